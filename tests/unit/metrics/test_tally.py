"""#33: the run keeps a RunTally, not its records — it is fed one record at a time, holds no
step, turn or session record, and its summary is the one of the same records as a list."""

from __future__ import annotations

import sys
from typing import Any

from agentic_bench.metrics.aggregate import RunInfo, summarize, summary_of
from agentic_bench.metrics.tally import RunTally


def session(i: int, *, ttft: float = 10.0, status: str = "ok", cached: int | None = None,
            phase: str | None = None) -> list[dict[str, Any]]:
    sid = f"s{i}"
    extra = {"phase": phase} if phase else {}
    step = {"type": "step", "kind": "llm", "session_id": sid, "turn": 0, "step": 0,
            "status": status, "t_sent_ns": i * 1000, "t_end_ns": i * 1000 + 5000,
            "request_ms": ttft + 5.123456, "schedule_lag_ms": 0.01 * (i % 7),
            "output_tokens": 16, "token_source": "usage", "itl_ms": [0.0] * 15, **extra}
    if status == "ok":
        step |= {"ttft_ms": ttft + (i % 13) * 0.0017, "tpot_ms": 0.33}
    else:
        step |= {"error_type": "http", "http_status": 503, "error": "HTTP 503: busy"}
    if cached is not None:
        step |= {"input_tokens": 100, "cached_tokens": cached}
    return [step,
            {"type": "turn", "session_id": sid, "turn": 0, "status": status,
             "latency_ms": ttft + 6.5, "tool_calls_scored": 1, "tool_calls_matched": 1,
             **extra},
            {"type": "session", "session_id": sid, "status": status, "turns": 1,
             "t_scheduled_ns": i * 1000, "t_end_ns": i * 1000 + 6000,
             "latency_ms": ttft + 7.25, **extra}]


def run_records(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"type": "run", "benchmark": "t", "config": {}, "workload": {}}]
    for i in range(n):
        out += session(i, ttft=10.0 if i % 10 else 90.0, status="error" if i % 17 == 0
                       else "ok", cached=i % 50 if i % 3 == 0 else None,
                       phase="accuracy" if i % 4 == 0 else "performance")
    out.append({"type": "segment", "duration_s": 2.0, "stop_reason": "done", "issued": n})
    return out


INFO = RunInfo(benchmark="t", complete=True, duration_s=2.0,
               slos={"ttft_p99_ms": 50.0}, extra={"scenario": {"scenario": "concurrency",
                                                               "concurrency": 4}})


def test_a_stream_summarises_as_the_list() -> None:
    records = run_records(300)
    assert summarize(iter(records), INFO) == summarize(records, INFO)


def test_the_tally_keeps_no_step_turn_or_session_record() -> None:
    tally = RunTally(INFO.slos)
    for record in run_records(2000):
        tally.add(record)
    assert [r["type"] for r in tally.kept] == ["run", "segment"]
    assert not tally.interactivity._running and not tally.prefix_cache._running
    assert not tally._violated  # every session ended: nothing of it is left
    refs = sys.getrefcount  # the records fed are not referenced by the tally
    record = session(9999)[0]
    before = refs(record)
    tally.add(record)
    assert refs(record) == before
    summary = summary_of(tally, INFO)
    assert summary["counts"]["requests"] == 2001


def test_goodput_counts_sessions_whose_every_request_met_the_limits() -> None:
    records = run_records(100)
    summary = summarize(records, INFO)
    ok = [s for s in records if s["type"] == "session" and s["status"] == "ok"]
    slow = [s for s in ok if int(s["session_id"][1:]) % 10 == 0]  # TTFT 90 ms > 50 ms
    assert summary["goodput"]["sessions"] == len(ok) - len(slow)


def test_phases_and_failures() -> None:
    summary = summarize(run_records(100), INFO)
    phases = summary["phases"]
    assert set(phases) == {"accuracy", "performance"}
    assert phases["accuracy"]["counts"]["requests"] == 25
    every_failed = summarize([r for r in run_records(1) if r["type"] != "segment"], INFO)
    assert every_failed["failure"] == "1/1 requests failed: HTTP 503: busy"
