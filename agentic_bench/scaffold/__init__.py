"""``agentic-bench new-task NAME``: write a benchmark plugin package that passes its own tests.

Templates are plain files in ``templates/`` (package data, read with importlib.resources;
:data:`LAYOUT` maps each to its place); ``{{name}}``, ``{{package}}``, ``{{dist}}`` and
``{{class_name}}`` (a :class:`Names`, from a name matching :data:`NAME_RE`) are substituted by
:func:`render`. :func:`create` writes the result: a distribution with the
``agentic_bench.plugins`` entry point, a task module, a tiny dataset, tools, a scorer and
tests. Stdlib only: the CLI imports this lazily.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from agentic_bench.errors import ConfigError

__all__ = ["LAYOUT", "NAME_RE", "Names", "create", "render"]

NAME_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
# template file -> path in the new package ("PKG" is the import package directory)
LAYOUT = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "package__init__.py.tmpl": "PKG/__init__.py",
    "package_task.py.tmpl": "PKG/task.py",
    "package_tools.py.tmpl": "PKG/tools.py",
    "package_scorer.py.tmpl": "PKG/scorer.py",
    "package_data_questions.jsonl.tmpl": "PKG/data/questions.jsonl",
    "tests_test_task.py.tmpl": "tests/test_task.py",
}


@dataclass(frozen=True)
class Names:
    """The names a new task package is written with: task name, Python package, distribution
    and class name."""

    name: str  # benchmark name: `agentic-bench run NAME`
    package: str  # import name
    dist: str  # distribution name (pip)
    class_name: str

    @classmethod
    def for_task(cls, name: str, package: str | None = None) -> Names:
        if not NAME_RE.match(name) or len(name) > 40:
            raise ConfigError(f"task name {name!r}: use lowercase letters, digits and single "
                              "hyphens, starting with a letter (e.g. 'my-qa'), at most 40 "
                              "characters")
        snake = name.replace("-", "_")
        package = package or f"{snake}_bench"
        if (not package.isidentifier() or keyword.iskeyword(package)
                or package in sys.stdlib_module_names or package.startswith("agentic_bench")):
            raise ConfigError(f"package name {package!r} is not a usable import name "
                              "(identifier, not a keyword, stdlib module or agentic_bench*)")
        title = "".join(part.capitalize() for part in name.split("-"))
        return cls(name=name, package=package, dist=f"agentic-bench-{name}",
                   class_name=f"{title}Task")


def render(text: str, names: Names) -> str:
    """``text`` with its ``{{placeholders}}`` replaced by ``names``."""
    for key in ("name", "package", "dist", "class_name"):
        text = text.replace("{{" + key + "}}", getattr(names, key))
    left = re.search(r"\{\{\w+\}\}", text)
    if left:  # pragma: no cover - a template bug
        raise ValueError(f"unknown placeholder {left.group(0)}")
    return text


def create(name: str, parent: Path, package: str | None = None,
           force: bool = False) -> tuple[Path, Names]:
    """Write the package into ``parent/name``; returns its path and names."""
    names = Names.for_task(name, package)
    root = parent / name
    if root.exists() and any(root.iterdir()) and not force:
        raise ConfigError(f"{root} exists and is not empty (use --force to write into it)")
    templates = files("agentic_bench.scaffold") / "templates"
    for template, target in LAYOUT.items():
        path = root / target.replace("PKG", names.package)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = (templates / template).read_text(encoding="utf-8")
        path.write_text(render(text, names), encoding="utf-8")
    return root, names
