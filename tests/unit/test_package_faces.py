"""#32 item 6: every package's face says what the package is and names its public names, and
every public class and function behind a face (and behind ``agentic_bench.api``, the plugin
surface) has a docstring of its own — not the signature a dataclass writes for itself."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).parents[2]


def faces() -> list[ModuleType]:
    inits = sorted([*ROOT.glob("agentic_bench/**/__init__.py"),
                    *ROOT.glob("rag_pipeline/**/__init__.py")])
    return [importlib.import_module(".".join(i.parent.relative_to(ROOT).parts)) for i in inits]


def named(name: str, text: str) -> bool:
    """``name`` appears in ``text`` as a word of its own (not inside a dotted path)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def own_docstring(obj: object) -> bool:
    """``obj`` has a docstring, and not the one a dataclass writes from its signature."""
    doc = (getattr(obj, "__doc__", None) or "").strip()
    return bool(doc) and not doc.startswith(f"{getattr(obj, '__name__', '')}(")


def test_every_face_names_its_public_names() -> None:
    unnamed = {face.__name__: [n for n in face.__all__ if not named(n, face.__doc__ or "")]
               for face in faces()}
    assert {k: v for k, v in unnamed.items() if v} == {}
    assert all((face.__doc__ or "").strip() for face in faces())


def test_every_public_class_and_function_has_a_docstring() -> None:
    import agentic_bench.api as api

    bare = []
    for face in [*faces(), api]:
        for name in face.__all__:
            obj = getattr(face, name, None)  # (a submodule named but not imported: skipped)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and not own_docstring(obj):
                bare.append(f"{face.__name__}.{name}")
    assert bare == []


def test_the_api_classes_document_their_methods() -> None:
    import agentic_bench.api as api

    bare = [f"{cls.__name__}.{name}" for cls in (getattr(api, n) for n in api.__all__)
            if inspect.isclass(cls) and cls.__module__ == api.__name__
            for name, member in vars(cls).items()
            if inspect.isfunction(member) and not name.startswith("_") and not member.__doc__]
    assert bare == []


def test_the_checks_catch_what_they_claim() -> None:
    from dataclasses import dataclass

    @dataclass
    class Plain:
        x: int

    assert not own_docstring(Plain) and own_docstring(own_docstring)
    assert named("Task", "the :class:`Task` contract") and not named("Task", "TaskRef only")
    assert not named("run", "api.run")
