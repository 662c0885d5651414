"""#23 acceptance: the committed benchmark results, summarised again from their committed records
by today's code, give the committed summaries — every figure they hold, unchanged (a block added
since, such as ``interactivity``, may be new; nothing may differ).

Since #33 a run keeps its latencies at 1 µs (docs/metrics.md: exact value→count maps, not the
records), so a latency figure (ms) may differ from one computed from the ns-precise records by
at most half a µs, and a rate computed from latencies (``interactivity``: tokens/s per user, kept
as ms per token at 1 µs) by half a µs relative to the ms per token (under 2.5e-4 for tokens
slower than 2 ms, as in every committed run); every other figure is identical.
"""

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


HALF_US_MS = 0.0005 + 1e-12  # half a µs, in ms (and a float's rounding)
RATE_RELATIVE = 2.5e-4


def same_to_the_us(then: Any, now: Any, path: str) -> bool:
    """Equal, or a latency (a ``..._ms`` block) within half a µs, or a rate derived from
    latencies within :data:`RATE_RELATIVE`."""
    if then == now:
        return True
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (then, now))
    if not numbers:
        return False
    if any(part.endswith("_ms") for part in path.split(".")):
        return bool(abs(then - now) <= HALF_US_MS)
    if ".interactivity." in f"{path}.":
        return bool(abs(then - now) <= RATE_RELATIVE * abs(then))
    return False


def changed(then: Any, now: Any, path: str = "") -> list[str]:
    """Where ``now`` departs from ``then`` (keys only ``now`` has are additions, not changes)."""
    if isinstance(then, dict) and isinstance(now, dict):
        return [c for key, value in then.items()
                for c in (changed(value, now[key], f"{path}.{key}") if key in now
                          else [f"{path}.{key} (gone)"])]
    return [] if same_to_the_us(then, now, path) else [f"{path}: {then!r} then, {now!r} now"]


def test_the_comparison_is_strict_outside_the_us() -> None:
    assert changed({"latency_ms": {"ttft": {"p99": 1.0}}},
                   {"latency_ms": {"ttft": {"p99": 1.0004}}}) == []
    assert changed({"latency_ms": {"ttft": {"p99": 1.0}}}, {"latency_ms": {"ttft": {"p99": 1.001}}})
    assert changed({"counts": {"requests": 10}}, {"counts": {"requests": 11}})
    assert changed({"throughput": {"requests_per_s": 1.0}},
                   {"throughput": {"requests_per_s": 1.0000001}})


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
    assert now["result"] == then["result"]
