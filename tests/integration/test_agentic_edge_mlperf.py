"""MLPerf v6.1 Edge Agentic through the CLI, against real simulator processes on loopback.

The performance phase replays MLCommons' recorded coding conversations (the 2 of the fixture):
against the oracle endpoint (``sim --replay-trace``: the recorded reply for each history) every
turn must score IoU 1.0 with 0 missing turns; against the plain simulator (text answers) the
IoU is 0 and the phase is still VALID (MLPerf gates only dropped turns there). A combined run
with a few BFCL samples reads INVALID on MLPerf's accuracy gates, each shown as a row.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "mlcommons_edge" / "agentic_coding_excerpt.jsonl"
pytestmark = pytest.mark.integration
FAST = ("--ttft-ms", "1", "--itl-ms", "0")


def _run(cli: Any, out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    res = cli("run", "agentic-edge", *args, "--out", str(out), "--quiet")
    assert res.returncode in (0, 3), res.stderr
    return res.returncode, json.loads((out / "summary.json").read_text())


def test_oracle_replay_scores_iou_one_with_no_missing_turn(sim_factory: Any, cli: Any,
                                                           tmp_path: Path) -> None:
    sim = sim_factory(*FAST, "--replay-trace", str(FIXTURE))
    rc, s = _run(cli, tmp_path / "oracle", "--mode", "performance", "--perf-trace",
                 str(FIXTURE), "--endpoint", sim.url)
    inline = s["accuracy"]["inline"]
    assert inline["score"] == 1.0
    assert inline["turns"] == {"issued": 71, "expected": 71, "observed": 71, "missing": 0,
                               "scored": 71}
    assert rc == 0 and s["result"] == "VALID"
    assert s["counts"]["requests"] == s["counts"]["requests_ok"] == 71
    assert s["workload"]["performance_format"] == "mlcommons-agentic"
    steps = [json.loads(line) for line in (tmp_path / "oracle" / "records.jsonl").open()]
    turns = sorted(r["mlperf_turn"] for r in steps if r.get("type") == "step")
    assert turns[0] == 1 and len(turns) == 71  # one request per client row, MLPerf-numbered


def test_text_answers_score_zero_and_the_phase_stays_valid(sim_factory: Any, cli: Any,
                                                          tmp_path: Path) -> None:
    sim = sim_factory(*FAST, "--output-tokens", "4")
    rc, s = _run(cli, tmp_path / "plain", "--mode", "performance", "--perf-trace",
                 str(FIXTURE), "--endpoint", sim.url)
    inline = s["accuracy"]["inline"]
    assert inline["score"] == 0.0 and inline["turns"]["missing"] == 0
    assert rc == 0 and s["result"] == "VALID", s["constraints"]
    rows = {r["name"]: r["ok"] for r in s["constraints"]}
    assert rows["perf_missing_turns"] and rows["perf_observed_turns"]


def test_combined_run_performance_first_then_gated_accuracy(sim_factory: Any, cli: Any,
                                                           tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    sim = sim_factory(*FAST, "--output-tokens", "4")
    rc, s = _run(cli, tmp_path / "both", "--mode", "both", "--perf-trace", str(FIXTURE),
                 "--perf-sessions", "1", "--samples", "3", "--endpoint", sim.url)
    assert rc == 3 and s["result"] == "INVALID"
    rows = {r["name"]: r for r in s["constraints"]}
    assert rows["bfcl_completed_samples"]["value"] == 3 and not rows["bfcl_completed_samples"]["ok"]
    assert rows["bfcl_overall_accuracy"]["limit"] == pytest.approx(83.6431)
    assert rows["perf_missing_turns"]["ok"]
    departs = s["workload"]["mlperf"]["departures"]
    assert any("3 single-turn samples" in d for d in departs)
    records = [json.loads(line) for line in (tmp_path / "both" / "records.jsonl").open()]
    phases = [r["phase"] for r in records if r.get("type") == "step"]
    assert phases[0] == "performance" and phases[-1] == "accuracy"  # MLPerf's order
    text = (tmp_path / "both" / "summary.txt").read_text()
    assert "[FAIL] bfcl_overall_accuracy" in text and "83.6431" in text
    # MLPerf's own artifacts, where its submission scripts look for them
    out = tmp_path / "both"
    results = json.loads((out / "accuracy" / "accuracy_results.json").read_text())
    entry = next(e for e in results["accuracy_scores"]
                 if e["dataset_name"] == "bfcl_v4::function_calling")
    assert entry["breakdown"]["total_samples"] == 3
    assert entry["breakdown"]["overall_accuracy"] == rows["bfcl_overall_accuracy"]["value"]
    scores = json.loads((out / "scores.json").read_text())
    assert scores["turns"]["missing"] == 0 and scores["score"] == 0.0
    perf = json.loads((out / "performance" / "result_summary.json").read_text())
    assert perf["n_samples_issued"] == 44  # the first conversation's client rows
    assert "temperature: 0" in (out / "config.yaml").read_text()


def test_report_recomputes_accuracy_from_the_records(sim_factory: Any, cli: Any,
                                                     tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    sim = sim_factory(*FAST, "--replay-trace", str(FIXTURE))
    out = tmp_path / "run"
    _, s = _run(cli, out, "--mode", "both", "--perf-trace", str(FIXTURE), "--perf-sessions",
                "1", "--samples", "4", "--endpoint", sim.url)
    truth = s["accuracy"]
    forged = json.loads((out / "summary.json").read_text())
    forged["accuracy"]["overall"] = forged["accuracy"]["headline"] = 0.99
    forged["accuracy"]["inline"]["score"] = 0.5
    (out / "summary.json").write_text(json.dumps(forged))
    (out / "scores.json").unlink()
    res = cli("report", str(out))
    assert res.returncode == 0, res.stderr
    again = json.loads((out / "summary.json").read_text())
    assert again["accuracy"]["overall"] == truth["overall"]
    assert again["accuracy"]["planned"] == 4 and again["accuracy"]["inline"]["score"] == 1.0
    assert {r["name"] for r in again["constraints"]} >= {"bfcl_overall_accuracy",
                                                          "perf_missing_turns"}
    assert json.loads((out / "scores.json").read_text())["score"] == 1.0  # written again
