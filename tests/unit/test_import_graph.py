"""The house's import rules (#23): no circle between modules at import time, the RAG pipeline
library never imports the harness, and a plugin uses only the public ``agentic_bench.api``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def modules() -> dict[str, Path]:
    out = {}
    for package in ("agentic_bench", "rag_pipeline"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
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


def import_time_edges() -> dict[str, set[str]]:
    """Module -> modules it imports at import time (module level, not under TYPE_CHECKING);
    ``from pkg import sub`` counts as importing ``pkg.sub``, not ``pkg``'s own __init__."""
    mods = modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = [f"{node.module}.{a.name}" for a in node.names]
                targets = [t for t in subs if t in mods]
                if len(targets) < len(subs):
                    targets.append(node.module)
            else:
                continue
            edges[name] |= {t for t in targets if t in mods and t != name}
    return edges


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
