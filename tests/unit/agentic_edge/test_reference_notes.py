"""#43 Edge items 6 and 7: the latency-side differences and every documented difference are
listed in the run, an interrupted run is a departure, and the QPS window is the reference's.

QPS, transcription of mlcommons/endpoints ea332753 (``src/inference_endpoint/``):
``metrics/report.py`` 299-301 and 331-334 ``qps = tracked_samples_completed /
tracked_duration_ns`` (``commands/benchmark/pipeline.py`` 167-174: no legacy LoadGen window for
the agentic load pattern); the tracked block runs from START_PERFORMANCE_TRACKING to the last
tracked completion (``metrics_aggregator/metrics_table.py`` 102-116, 557-564); every sent
request and every turn aborted after a failure is a tracked ISSUED (``aggregator.py`` 398-402,
``load_generator/session.py`` 319-342) and completes, failed ones with an ERROR first
(``agentic_inference_strategy.py`` 524-597, session.py 618-651); a request in flight at the cap
never completes (session.py 395-413, 527-550).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agentic_bench.tasks.agentic_edge.mlperf_artifacts import build_result_summary
from agentic_bench.tasks.agentic_edge.mlperf_config import BFCL_PIN, mlperf_block
from agentic_bench.tasks.agentic_edge.phase_cap import CAP_IN_FLIGHT
from agentic_bench.tasks.agentic_edge.reference_notes import NOTES, notes, with_run_state

DOCS = Path(__file__).resolve().parents[3] / "docs" / "agentic-edge.md"
S = 10**9


def _args(**kw: object) -> SimpleNamespace:
    base = {"mode": "both", "samples": None, "quick": False, "sample_selection": "mlperf",
            "tool_mode": "native", "accuracy_target": None, "multi_turn_samples": 0,
            "perf_trace": "agentic_coding_2.5h.jsonl", "perf_sessions": None,
            "tool_delays": False, "turn_timeout": None, "scenario": "single-stream",
            "max_tokens": None, "temperature": None, "loadgen": None}
    return SimpleNamespace(**{**base, **kw})


def test_every_note_is_in_the_run_block_and_shown_in_summary_txt() -> None:
    from agentic_bench.reporting.summary_text import _mlperf_lines

    block = mlperf_block(_args(), mlcommons_trace=True, bfcl=BFCL_PIN, perf_file=(20, 1007))
    assert block["departures"] == [] and block["configuration"] == "MLPerf v6.1 Edge Agentic"
    assert block["notes"] == [n.text for n in NOTES.values()]
    lines = [line.strip() for line in _mlperf_lines(block)]
    assert all(f"note: {n.text}" in lines for n in NOTES.values())
    # the latency-side points of item 6 are among them
    assert {"request-cancelled", "warm-connection", "stale-connection-resent"} <= set(NOTES)


def test_notes_follow_the_phases_the_run_has() -> None:
    perf_only = notes("performance", True, None)
    assert NOTES["request-cancelled"].text in perf_only
    assert NOTES["scoring-exception"].text not in perf_only
    acc_only = notes("accuracy", False, None)
    assert NOTES["scoring-exception"].text in acc_only
    assert NOTES["request-cancelled"].text not in acc_only
    assert notes("performance", False, None) == []  # our own trajectories: no MLPerf phase


def test_the_docs_list_exactly_the_runs_notes() -> None:
    """docs/agentic-edge.md "Differences by design" holds one bullet per key of the run's
    table, with the run's text (so a documented difference cannot be left out of the run)."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Differences by design", 1)[1].split("\n## ", 1)[0]
    keys = re.findall(r"^- `([a-z-]+)`", section, flags=re.M)
    assert keys == list(NOTES)
    flat = " ".join(section.split())
    for key, note in NOTES.items():
        assert f"`{key}` ({note.phase}): {note.text}" in flat, key


def _session(name: str) -> dict[str, Any]:
    return {"type": "session", "session_id": f"{name}#0", "source_session": name}


def test_an_interrupted_run_is_a_departure() -> None:
    """docs: "performance/result_summary.json says interrupted ... where the reference writes
    complete" — named in the run's departures, not only in the docs."""
    block = mlperf_block(_args(), mlcommons_trace=True, bfcl=BFCL_PIN, perf_file=(20, 1007))
    name = "MLPerf v6.1 Edge Agentic"
    whole = with_run_state(block, [_session("a"), _session("b")], 2, name)
    assert whole["departures"] == [] and whole["configuration"] == name
    cut = with_run_state(block, [_session("a")], 2, name)
    assert cut["configuration"] == f"not {name}"
    assert cut["departures"] == [
        "the run stopped before its end (1 of 2 planned sessions finished): "
        "performance/result_summary.json says \"state\": \"interrupted\", \"complete\": false, "
        "where the reference writes \"complete\" / true after Ctrl-C (its metrics aggregator "
        "ignores SIGINT: async_utils/services/metrics_aggregator/__main__.py 290-320)"]


def _step(start: int, end: int, status: str = "ok") -> dict[str, Any]:
    return {"type": "step", "phase": "performance", "t_scheduled_ns": start, "t_sent_ns": start,
            "t_end_ns": end, "status": status}


def _turn(cid: str, turn: int, answered: bool, reason: str | None = None) -> dict[str, Any]:
    return {"type": "inline_score", "conversation_id": cid, "mlperf_turn": turn,
            "issued": True, "answered": answered, **({"reason": reason} if reason else {})}


def test_qps_counts_tracked_completions_over_the_references_window() -> None:
    """Conversation a: 2 answered, then a failure aborting 2 turns; b: 1 answered, then one in
    flight at the cap. Issued 7 (the aborted turns too), completed 6, failed 3; the window ends
    at the last completion (9 s), not at the session's bookkeeping (12 s)."""
    records = [
        _step(0, 2 * S), _step(2 * S, 4 * S), _step(4 * S, 5 * S, "error"),
        _step(5 * S, 9 * S), _step(9 * S, 11 * S, "cancelled"),
        {"type": "session", "phase": "performance", "t_scheduled_ns": 0, "t_end_ns": 12 * S},
        _turn("a", 1, True), _turn("a", 3, True), _turn("a", 5, False, "http_status"),
        _turn("a", 7, False, "prior turn 5 errored: http_status"),
        _turn("a", 9, False, "prior turn 5 errored: http_status"),
        _turn("b", 1, True), _turn("b", 3, False, CAP_IN_FLIGHT)]
    summary = {"phases": {"performance": {"counts": {"requests": 5, "errors": 2}}}}
    out = build_result_summary(summary, records)
    assert (out["n_samples_issued"], out["n_samples_completed"],
            out["n_samples_failed"]) == (7, 6, 3)
    assert out["duration_ns"] == 9 * S
    assert out["qps"] == 6 / 9
