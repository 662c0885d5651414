"""The house's import rules (#23): no circle between modules, whenever the imports run (at
import time, inside a function, or never: under ``TYPE_CHECKING``; #45 item 5), the RAG
pipeline library never imports the harness, and a plugin uses only ``agentic_bench.api``."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agentic_bench", "rag_pipeline")
# when an import statement runs: with its module, inside a function (a lazy import), or never
# (under ``if TYPE_CHECKING:``, read by the type checker alone)
IMPORT_TIME, LAZY, TYPE_CHECKING_ONLY = "import time", "lazy", "type checking"


def modules(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    out = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def imported(tree: ast.AST, *, top_level_only: bool) -> Iterator[str]:
    nodes = tree.body if top_level_only and isinstance(tree, ast.Module) else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{a.name}" for a in node.names)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_statements(nodes: Iterable[ast.AST], when: str = IMPORT_TIME
                      ) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement below ``nodes``, with when it runs: :data:`IMPORT_TIME` (module
    or class level, ``try`` blocks included), :data:`LAZY` (inside a function) or
    :data:`TYPE_CHECKING_ONLY` (under ``if TYPE_CHECKING:``, its ``else`` runs as usual)."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, when
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner = TYPE_CHECKING_ONLY if when == TYPE_CHECKING_ONLY else LAZY
            yield from import_statements(ast.iter_child_nodes(node), inner)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from import_statements(node.body, TYPE_CHECKING_ONLY)
            yield from import_statements(node.orelse, when)
        else:
            yield from import_statements(ast.iter_child_nodes(node), when)


def imported_modules(node: ast.Import | ast.ImportFrom, name: str, is_package: bool,
                     known: Collection[str]) -> list[str]:
    """The modules one import statement of module ``name`` names, relative ones resolved;
    ``from pkg import sub`` counts as importing ``pkg.sub`` (when it is a module), not
    ``pkg``'s own ``__init__``; ``from pkg import attr`` as importing ``pkg``."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        package = name.split(".") if is_package else name.split(".")[:-1]
        parent = package[: len(package) - (node.level - 1)]
        base = ".".join([*parent, *([node.module] if node.module else [])])
    subs = [f"{base}.{a.name}" for a in node.names]
    found = [sub for sub in subs if sub in known]
    return found if len(found) == len(subs) else [*found, base]


def import_edges(counted: Collection[str], root: Path = ROOT,
                 packages: Iterable[str] = PACKAGES) -> dict[str, dict[str, str]]:
    """Module → {module it imports: where (``path:line``)} over the imports that run
    ``counted`` (:data:`IMPORT_TIME`, :data:`LAZY`, :data:`TYPE_CHECKING_ONLY`); only
    imports between modules of ``packages``."""
    mods = modules(root, packages)
    edges: dict[str, dict[str, str]] = {m: {} for m in mods}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, when in import_statements(tree.body):
            if when not in counted:
                continue
            for target in imported_modules(node, name, path.name == "__init__.py", mods):
                if target in mods and target != name:
                    edges[name].setdefault(target, f"{path.relative_to(root)}:{node.lineno}")
    return edges


def import_time_edges() -> dict[str, set[str]]:
    """Module -> modules it imports at import time (module or class level, ``try`` blocks
    included; not inside a function, not under TYPE_CHECKING); ``from pkg import sub`` counts
    as importing ``pkg.sub``, not ``pkg``'s own __init__."""
    return {m: set(t) for m, t in import_edges({IMPORT_TIME}).items()}


def every_edge(root: Path = ROOT, packages: Iterable[str] = PACKAGES
               ) -> dict[str, dict[str, str]]:
    """Every import, whenever it runs. Lazy imports count: a circle that one of them holds
    open is a circle all the same (two modules that cannot be read, tested or moved apart),
    put off until a call. ``TYPE_CHECKING`` imports count too, though they never run: a
    module that names another's types depends on it (the layer map counts them the same way,
    tests/unit/test_layers.py), and #45 item 5 named such a circle
    (``replay/session.py`` ↔ ``replay/tree_steps.py``, the replayer's type named back)."""
    return import_edges({IMPORT_TIME, LAZY, TYPE_CHECKING_ONLY}, root, packages)


def circle_report(edges: dict[str, dict[str, str]]) -> list[str]:
    """Each circle (a strongly connected component of more than one module) with the
    imports inside it, ``where: a -> b``."""
    out = []
    for members in cycles({m: set(t) for m, t in edges.items()}):
        inside = [f"  {where}: {a} -> {b}" for a in members
                  for b, where in sorted(edges[a].items()) if b in members]
        out.append(" <-> ".join(members) + "\n" + "\n".join(inside))
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle() -> None:
    assert cycles(import_time_edges()) == []


def test_the_checker_sees_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle_even_through_lazy_or_type_checking_imports() -> None:
    """#45 item 5: no circle inside any package, whenever its imports run; a circle is broken
    by moving code so the imports point one way, never by hiding an import."""
    found = circle_report(every_edge())
    assert not found, "import circles (lazy and TYPE_CHECKING imports count):\n" + "\n".join(
        found)


def _package(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def test_the_checker_sees_a_lazy_circle_and_a_type_checking_one(tmp_path: Path) -> None:
    _package(tmp_path, {
        "pkg/__init__.py": "",
        # a circle held open by a relative import inside a function
        "pkg/low.py": "def use():\n    from . import high\n    return high\n",
        "pkg/high.py": "from pkg.low import use\n",
        # a circle through a type named under TYPE_CHECKING (in a subpackage, two dots up)
        "pkg/sub/__init__.py": "",
        "pkg/sub/steps.py": ("from typing import TYPE_CHECKING\n"
                             "if TYPE_CHECKING:\n    from ..walker import Walker\n"),
        "pkg/walker.py": "import pkg.sub.steps\n",
        # one way only: no circle
        "pkg/leaf.py": "from pkg import low\n",
    })
    edges = every_edge(tmp_path, ["pkg"])
    assert edges["pkg.low"] == {"pkg.high": "pkg/low.py:2"}
    assert edges["pkg.sub.steps"] == {"pkg.walker": "pkg/sub/steps.py:3"}
    assert cycles({m: set(t) for m, t in edges.items()}) == [
        ["pkg.high", "pkg.low"], ["pkg.sub.steps", "pkg.walker"]]
    report = circle_report(edges)
    assert report[0] == ("pkg.high <-> pkg.low\n  pkg/high.py:1: pkg.high -> pkg.low\n"
                         "  pkg/low.py:2: pkg.low -> pkg.high")
    # at import time neither is a circle: the lazy and the TYPE_CHECKING imports never run
    at_import = import_edges({IMPORT_TIME}, tmp_path, ["pkg"])
    assert cycles({m: set(t) for m, t in at_import.items()}) == []


def test_rag_pipeline_never_imports_the_harness() -> None:
    paths = sorted((ROOT / "rag_pipeline").rglob("*.py"))
    assert len(paths) >= 10
    for path in paths:
        names = imported(ast.parse(path.read_text(encoding="utf-8")), top_level_only=False)
        assert not [n for n in names if n.split(".")[0] == "agentic_bench"], path


def test_plugins_use_only_the_public_api() -> None:
    paths = sorted((ROOT / "plugins").glob("*/*_bench/**/*.py"))
    assert len(paths) >= 5  # the tau2 plugin's package is checked, not skipped
    for path in paths:
        names = imported(ast.parse(path.read_text(encoding="utf-8")), top_level_only=False)
        internal = {n for n in names if n.startswith("agentic_bench")
                    and not n.startswith("agentic_bench.api")}
        assert not internal, f"{path}: {sorted(internal)}"
