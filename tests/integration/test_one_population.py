"""#42.5: the report's charts and tables count the same turns and sessions as the summary —
mid-trajectory (``partial``) turns and sessions and warm-up records are out of both (the
charts showed n=4 turns beside a table of 2, and sessions n=2 beside 0)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.reporting import report_data as rd

pytestmark = pytest.mark.integration

TREE = Path(__file__).resolve().parents[1] / "data" / "weka" / "tree_subagents.json"


def test_charts_and_summary_count_one_population(sim_factory: Any, cli: Any,
                                                 tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "0.2")
    out = tmp_path / "run"
    res = cli("replay", str(TREE), "--endpoint", sim.url, "--out", str(out), "--quiet",
              "--tokenizer", "server", "--scenario", "concurrency", "--concurrency", "2",
              "--trajectory-start", "0.4:0.6",
              "--allow-dataset-wrap", "--sessions", "4")
    assert res.returncode in (0, 3), res.stderr
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    partial = [r for r in records if r.get("type") in ("turn", "session") and r.get("partial")]
    assert partial  # the lanes began mid-trajectory: there is something to leave out
    summary = json.loads((out / "summary.json").read_text())
    charted = rd.latency_values(records)
    for metric in ("turn", "session", "ttft"):
        assert len(charted[metric]) == summary["latency_ms"][metric]["count"], metric
    per_turn = sum(n for _, n, _, _ in rd.per_turn(records))
    assert per_turn == summary["latency_ms"]["turn"]["count"]
