"""Parsing LoadGen's own files into the ``loadgen`` block of summary.json."""

from __future__ import annotations

import json
from pathlib import Path

from agentic_bench.loadgen.accuracy import logged_sessions, score_accuracy_log
from agentic_bench.loadgen.logs import loadgen_result, parse_accuracy_log, parse_summary

SERVER_SUMMARY = """\
================================================
MLPerf Results Summary
================================================
SUT name : PySUT
Scenario : Server
Mode     : PerformanceOnly
Completed samples per second    : 18.93
Completed tokens per second: 103.27
Result is : INVALID
  Performance constraints satisfied : Yes
  Min duration satisfied : Yes
  Min queries satisfied : Yes
  Early stopping satisfied: NO
Recommendations:
TTFT Early Stopping Result:

TPOT Early Stopping Result:
 * Run unsuccessful.
 * Processed 12 queries.
 * Would need to run at least 447 more queries,
 with the run being successful if every additional
 query were under latency.

================================================
Additional Stats
================================================
Scheduled samples per second : 19.82
Mean latency (ns)               : 26425531
"""


def mllog(key: str, value: object, error: bool = False) -> str:
    meta = {"is_error": error, "is_warning": False}
    return ":::MLLOG " + json.dumps({"key": key, "value": value, "metadata": meta}) + "\n"


DETAIL = "".join([
    mllog("loadgen_version", "6.0.17 @ d6147c7eb7"),
    mllog("loadgen_file_sha1", {"/a": "b"}),
    mllog("effective_scenario", "Server"),
    mllog("effective_test_mode", "PerformanceOnly"),
    mllog("result_validity", "INVALID"),
    mllog("result_perf_constraints_met", True),
    mllog("result_min_duration_met", True),
    mllog("result_min_queries_met", True),
    mllog("early_stopping_met", False),
    mllog("result_invalid_reason", ""),
    mllog("result_query_count", 12),
    mllog("result_completed_samples_per_sec", 18.9324),
    mllog("result_min_latency_ns", 25639379),
    mllog("result_max_latency_ns", 29860574),
    mllog("result_mean_latency_ns", 26425531),
    mllog("result_50.00_percentile_latency_ns", 25826410),
    mllog("result_99.90_percentile_latency_ns", 29860574),
    mllog("result_first_token_mean_latency_ns", 6236727),
    mllog("result_first_token_min_latency_ns", 5453449),
    mllog("result_first_token_max_latency_ns", 9650203),
    mllog("result_first_token_99.00_percentile_latency_ns", 9650203),
    mllog("result_time_to_output_token_mean", 5047200),
    mllog("result_time_to_output_token_min", 5032642),
    mllog("result_time_to_output_token_max", 5062253),
    mllog("result_time_per_output_token_99.00_percentile_ns", 5062253),
    mllog("result_completed_tokens_per_second", 103.268),
    mllog("error_runtime", "something broke", error=True),
    "not an mllog line\n",
])


def test_summary_verdict_constraints_and_early_stopping() -> None:
    s = parse_summary(SERVER_SUMMARY)
    assert s["result"] == "INVALID"
    assert s["satisfied"] == {"performance_constraints": True, "min_duration": True,
                              "min_queries": True, "early_stopping": False}
    assert s["early_stopping"]["ttft"] == []
    assert s["early_stopping"]["tpot"][0] == "* Run unsuccessful."
    assert len(s["early_stopping"]["tpot"]) == 5
    assert s["stats"]["Mean latency (ns)"] == 26425531
    assert s["stats"]["Scenario"] == "Server"


def test_loadgen_result_block(tmp_path: Path) -> None:
    (tmp_path / "mlperf_log_summary.txt").write_text(SERVER_SUMMARY)
    (tmp_path / "mlperf_log_detail.txt").write_text(DETAIL)
    r = loadgen_result(tmp_path)
    assert r["result"] == "INVALID" and r["scenario"] == "Server"
    assert r["constraints"] == {"performance": True, "min_duration": True, "min_queries": True,
                                "early_stopping": False}
    assert r["early_stopping"] == {"tpot": "* Run unsuccessful. * Processed 12 queries. "
                                   "* Would need to run at least 447 more queries, with the "
                                   "run being successful if every additional query were "
                                   "under latency."}
    assert r["latency_ms"]["mean"] == 26.425531
    assert r["latency_ms"]["p50"] == 25.82641 and r["latency_ms"]["p99.9"] == 29.860574
    assert r["first_token_ms"]["mean"] == 6.236727 and r["first_token_ms"]["p99"] == 9.650203
    assert r["tpot_ms"]["mean"] == 5.0472 and r["tpot_ms"]["p99"] == 5.062253
    assert r["samples_per_s"] == 18.9324 and r["tokens_per_s"] == 103.268
    assert r["query_count"] == 12 and r["invalid_reason"] is None
    assert r["errors"] == ["error_runtime: something broke"]
    assert r["files"] == ["mlperf_log_summary.txt", "mlperf_log_detail.txt"]
    assert r["version"].startswith("6.0.17")


def test_missing_files_give_an_empty_block(tmp_path: Path) -> None:
    r = loadgen_result(tmp_path)
    assert r["result"] is None and r["files"] == [] and r["latency_ms"] is None


def accuracy_log(path: Path, entries: list[dict[str, object]]) -> Path:
    rows = [{"seq_id": i, "qsl_idx": e.get("qsl_index", 0),
             "data": json.dumps(e).encode().hex().upper(), "token_count": 3}
            for i, e in enumerate(entries)]
    rows.append({"seq_id": 99, "qsl_idx": 0, "data": "FFFE", "token_count": 0})  # not ours
    path.write_text(json.dumps(rows))
    return path


def test_accuracy_log_round_trip(tmp_path: Path) -> None:
    path = accuracy_log(tmp_path / "mlperf_log_accuracy.json", [
        {"session_id": "a#0", "qsl_index": 0, "status": "ok"},
        {"session_id": "b#1", "qsl_index": 1, "status": "error"}])
    assert len(parse_accuracy_log(path)) == 3
    sessions = logged_sessions(path)
    assert [s["session_id"] for s in sessions] == ["a#0", "b#1"]
    assert sessions[0]["token_count"] == 3


def test_scorer_runs_over_the_logged_sessions_only(tmp_path: Path) -> None:
    path = accuracy_log(tmp_path / "acc.json", [{"session_id": "a#0", "qsl_index": 0,
                                                  "status": "ok"}])
    records = [{"type": "run"}, {"type": "session", "session_id": "a#0"},
               {"type": "session", "session_id": "z#9"}]
    seen: list[list[dict[str, object]]] = []

    def scorer(recs: list[dict[str, object]]) -> dict[str, object]:
        seen.append(recs)
        return {"n": len(recs)}

    block = score_accuracy_log(path, records, scorer)
    assert block["score"] == {"n": 2} and block["logged_samples"] == 1
    assert block["sessions_ok"] == 1 and block["unique_samples"] == 1
    assert {r.get("session_id") for r in seen[0]} == {None, "a#0"}
    assert score_accuracy_log(tmp_path / "absent.json", records, None)["logged_samples"] == 0


def test_text_lines_for_summary_txt() -> None:
    from agentic_bench.loadgen.text import render_loadgen_lines

    assert render_loadgen_lines(None) == []
    lines = render_loadgen_lines({
        "scenario": "Server", "mode": "PerformanceOnly", "result": "INVALID",
        "constraints": {"performance": True, "early_stopping": False},
        "early_stopping": {"tpot": "* Run unsuccessful."},
        "comparison": {"latency_ms": {"loadgen_mean": 252.69, "ours_mean": 252.17,
                                      "diff_ms": 0.52}},
        "samples_per_s": 8.05, "tokens_per_s": 137.36})
    text = "\n".join(lines)
    assert "MLPerf LoadGen (Server, PerformanceOnly): Result is : INVALID" in text
    assert "performance yes  early stopping NO" in text
    assert "early stopping (tpot): * Run unsuccessful." in text
    assert "mean latency 252.69 ms (ours 252.17 ms, diff 0.52 ms)" in text
