"""The layer map of docs/architecture.md (#23 item 6): every import in agentic_bench/ points to
its own layer or one below, and every package is on the map. Imports inside functions and under
TYPE_CHECKING count too: they are dependencies all the same."""

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
