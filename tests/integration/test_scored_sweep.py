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


def test_trials_under_a_duration_keep_pass_k_and_the_accuracy_block_exact(
        sim_factory: Any, cli: Any, tmp_path: Path) -> None:
    """``--trials 3 --duration 4`` cycles on past trial 2. pass^k must stay over trials 0-2 of
    every task (the later sessions counted apart), and agentic-edge's accuracy block must
    score each sample once, its trial 0, saying so."""
    pytest.importorskip("bfcl_eval")
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "8")
    out = tmp_path / "run"
    res = cli("run", "agentic-edge", "--quick", "--samples", "12", "--trials", "3",
              "--scenario", "concurrency", "--concurrency", "4", "--duration", "4",
              "--endpoint", sim.url, "--out", str(out), "--quiet")
    assert res.returncode in (0, 3), res.stderr
    summary = json.loads((out / "summary.json").read_text())
    samples = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    samples = [r for r in samples if r.get("type") == "sample"]
    assert max(r["trial"] for r in samples) >= 3  # it cycled on (else nothing is shown)
    tasks = summary["tasks"]
    assert tasks["trials"] == 3
    assert {r["n"] for r in tasks["pass_k"]["per_task"].values()} == {3}
    assert sorted(tasks["pass_k"]["k"]) == ["1", "2", "3"]
    assert tasks["extra_trials"] == sum(r["trial"] >= 3 for r in samples)
    assert tasks["pass_k"]["tasks"] + tasks["tasks_fewer_trials"] == 12
    acc = summary["accuracy"]
    assert acc["scored_trial"] == 0 and acc["planned"] == 12
    assert acc["other_trials"] == sum(r["trial"] != 0 for r in samples)
    text = (out / "summary.txt").read_text()
    assert "tasks with < 3 trials:" in text and "trial 0 of each" in text
