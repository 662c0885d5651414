"""#23 acceptance: the committed benchmark results, summarised again from their committed records
by today's code, give the committed summaries — every figure they hold, unchanged (a block added
since, such as ``interactivity``, may be new; nothing may differ)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.reporting.regenerate import load_run

RESULTS = Path(__file__).parents[3] / "benchmarks" / "results"
RUNS = sorted(p.parent for p in RESULTS.rglob("records.jsonl.gz")
              if (p.parent / "summary.json").is_file())


def changed(then: Any, now: Any, path: str = "") -> list[str]:
    """Where ``now`` departs from ``then`` (keys only ``now`` has are additions, not changes)."""
    if isinstance(then, dict) and isinstance(now, dict):
        return [c for key, value in then.items()
                for c in (changed(value, now[key], f"{path}.{key}") if key in now
                          else [f"{path}.{key} (gone)"])]
    return [] if then == now else [f"{path}: {then!r} then, {now!r} now"]


def test_there_are_committed_runs_of_both_flagships() -> None:
    names = {p.relative_to(RESULTS).parts[0] for p in RUNS}
    assert {"agentic-edge", "rag-e2e"} <= names and len(RUNS) >= 5


@pytest.mark.parametrize("run", RUNS, ids=lambda p: str(p.relative_to(RESULTS)))
def test_a_committed_run_summarises_to_its_committed_summary(run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    then = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    now = load_run(copy, regenerate=True).summary
    assert changed(then, now) == []
    assert now["latency_ms"] == then["latency_ms"] and now["result"] == then["result"]
