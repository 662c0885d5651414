"""#47 acceptance: ``run agentic-edge --quick --trials 3 --sweep concurrency=1,4`` on the
latency simulator (TTFT rising 15 ms per request in flight) — sweep.json and sweep.html carry
accuracy, pass^k and correct tasks/s per point, each point's summary its ``tasks`` block.
(The page in Chromium: tests/integration/test_report_chromium.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration


def test_scored_sweep_with_trials_records_accuracy_per_load_point(sim_factory: Any, cli: Any,
                                                                  tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    sim = sim_factory("--ttft-ms", "20", "--itl-ms", "2", "--output-tokens", "16",
                      "--ttft-per-inflight-ms", "15")
    out = tmp_path / "sweep"
    res = cli("run", "agentic-edge", "--quick", "--trials", "3", "--sweep", "concurrency=1,4",
              "--endpoint", sim.url, "--slo", "session_p99_ms=400", "--out", str(out),
              "--quiet")
    assert res.returncode in (0, 3), res.stderr
    sweep = json.loads((out / "sweep.json").read_text())
    points = sweep["points"]
    assert [p["concurrency"] for p in points] == [1, 4]
    for p in points:
        summary = json.loads((Path(p["out_dir"]) / "summary.json").read_text())
        tasks = summary["tasks"]
        assert tasks["trials"] == 3 and tasks["pass_k"]["tasks"] * 3 == tasks["scored"]
        assert p["accuracy"] == tasks["accuracy"] and p["pass_hat_k"] == tasks["pass_hat_k"]
        assert p["task_goodput_per_s"] == tasks["task_goodput_per_s"]
        assert p["correct_within_slo"] <= p["correct_tasks"] <= p["tasks_scored"]
        assert sum(p["failure_causes"].values()) == p["tasks_scored"] - p["correct_within_slo"]
        assert "accuracy_outside" in p
        text = (Path(p["out_dir"]) / "summary.txt").read_text()
        assert "Task goodput:" in text and "pass^k" in text
        assert 'id="section-tasks"' in (Path(p["out_dir"]) / "report.html").read_text()
    base = sweep["accuracy_baseline"]
    assert base["concurrency"] == 1 and len(base["accuracy_interval"]) == 2
    page = (out / "sweep.html").read_text()
    for anchor in ('id="sweep-accuracy"', 'id="plot-sweep-accuracy"',
                   'id="plot-sweep-task-goodput"', 'id="table-sweep-accuracy"', "pass^3"):
        assert anchor in page, anchor
