"""The layer map of docs/architecture.md (#23 item 6): every import in agentic_bench/ points to
its own layer or one below, no two units on one line import each other (#32 item 5), and every
package is on the map. Imports inside functions and under TYPE_CHECKING count too: they are
dependencies all the same."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "docs" / "architecture.md"


def layer_map() -> dict[str, int]:
    """Name → height (0 = the bottom line) from the ```layers block."""
    block = re.search(r"```layers\n(.*?)```", MAP.read_text(encoding="utf-8"), re.S)
    assert block, "docs/architecture.md has no ```layers block"
    lines = [line.split() for line in block.group(1).strip().splitlines() if line.strip()]
    return {name: len(lines) - 1 - n for n, names in enumerate(lines) for name in names}


def unit(module: str) -> str:
    """``agentic_bench.load.runner`` → ``load``; ``agentic_bench`` → ``agentic_bench``."""
    parts = module.split(".")
    if parts[0] == "rag_pipeline":
        return "rag_pipeline"
    return parts[1] if len(parts) > 1 else "agentic_bench"


def imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return [(line, name) for line, name in out
            if name.split(".")[0] in ("agentic_bench", "rag_pipeline")]


# Two units on the same line may import each other's modules only where they do not form a
# cycle: a sideways import into a unit that imports back is a circle the map cannot show. The
# pairs allowed to do so while they are being removed (each with the change that removes it);
# none today. The two #32 named are gone: run_config -> loadgen/options while loadgen/run ->
# run_config (went with options/), and proxy/__main__ -> cli while cli/record_cmd -> proxy
# (went when `record` got its own option model, options/serving.py).
KNOWN_BACK_ARROWS: frozenset[frozenset[str]] = frozenset()


def unit_imports() -> list[tuple[str, str, str]]:
    """Every import between two units: ``(importing unit, imported unit, where)``."""
    edges = []
    for path in sorted((ROOT / "agentic_bench").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        here = unit(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        for line, target in imports(path):
            there = unit(target)
            if there != here:
                edges.append((here, there, f"{path.relative_to(ROOT)}:{line}"))
    return edges


def back_arrows(edges: list[tuple[str, str, str]], heights: dict[str, int]
                ) -> dict[frozenset[str], list[str]]:
    """Pairs of units on the same line of the map that import each other, with the imports
    (``where: a -> b``) that make each circle."""
    same_line = [(a, b, where) for a, b, where in edges
                 if a != b and a in heights and b in heights and heights[a] == heights[b]]
    linked = {(a, b) for a, b, _ in same_line}
    out: dict[frozenset[str], list[str]] = {}
    for a, b, where in same_line:
        if (b, a) in linked:
            out.setdefault(frozenset({a, b}), []).append(f"{where}: {a} -> {b}")
    return out


def test_back_arrows_are_found_on_a_synthetic_graph() -> None:
    heights = {"top": 2, "a": 1, "b": 1, "c": 1, "low": 0}
    edges = [("a", "b", "a.py:1"), ("b", "a", "b.py:2"),  # a circle on one line
             ("a", "c", "a.py:3"),  # sideways, one way only: allowed
             ("top", "a", "top.py:1"), ("a", "top", "a.py:9"),  # up: another test's job
             ("c", "low", "c.py:1"), ("low", "low", "low.py:1")]
    assert back_arrows(edges, heights) == {
        frozenset({"a", "b"}): ["a.py:1: a -> b", "b.py:2: b -> a"]}
    assert back_arrows(edges[2:], heights) == {}


def test_no_import_circle_between_units_on_one_line() -> None:
    found = back_arrows(unit_imports(), layer_map())
    new = {pair: wheres for pair, wheres in found.items() if pair not in KNOWN_BACK_ARROWS}
    assert not new, "sideways imports into a unit that imports back:\n" + "\n".join(
        w for wheres in new.values() for w in wheres)
    gone = KNOWN_BACK_ARROWS - set(found)
    assert not gone, ("no longer a circle, remove from KNOWN_BACK_ARROWS: "
                      f"{sorted(map(sorted, gone))}")


def test_every_import_points_down_or_sideways() -> None:
    heights = layer_map()
    upward, unmapped = [], set()
    for path in sorted((ROOT / "agentic_bench").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        here = unit(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        for line, target in imports(path):
            there = unit(target)
            for name in (here, there):
                if name not in heights:
                    unmapped.add(name)
            if here in heights and there in heights and heights[there] > heights[here]:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {here} -> {there}")
    assert not unmapped, f"not on the layer map in docs/architecture.md: {sorted(unmapped)}"
    assert not upward, "imports pointing up the layer map:\n" + "\n".join(upward)


def test_the_map_names_only_what_exists() -> None:
    present = {p.name for p in (ROOT / "agentic_bench").iterdir()
               if p.is_dir() and (p / "__init__.py").is_file()}
    present |= {p.stem for p in (ROOT / "agentic_bench").glob("*.py") if p.stem != "__init__"}
    present |= {"agentic_bench", "rag_pipeline"}
    assert set(layer_map()) <= present, set(layer_map()) - present
