"""Synthetic run records and summaries for the reporting tests (no network, no run)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from agentic_bench.metrics.aggregate import RunInfo, summarize

MS = 1_000_000


def llm(session: str, turn: int, t0_ms: float, *, status: str = "ok", ttft: float = 50.0,
        n_out: int = 8, itl: float = 5.0, input_tokens: int = 100,
        stage: str | None = None) -> dict[str, Any]:
    req = ttft + itl * (n_out - 1)
    rec: dict[str, Any] = {
        "type": "step", "session_id": session, "turn": turn, "kind": "llm", "status": status,
        "t_scheduled_ns": int(t0_ms * MS), "t_sent_ns": int(t0_ms * MS),
        "t_end_ns": int((t0_ms + req) * MS), "schedule_lag_ms": 0.1, "request_ms": req,
        "input_tokens": input_tokens, "output_tokens": n_out, "token_source": "usage",
    }
    if stage:
        rec["stage"] = stage
    if status == "ok":
        rec.update(ttft_ms=ttft, itl_ms=[itl] * (n_out - 1), tpot_ms=itl)
    else:
        rec.update(error_type="http_status", error="HTTP 500: injected failure")
    return rec


def tool(session: str, turn: int, t0_ms: float, kind: str = "tool", ms: float = 10.0,
         status: str = "ok") -> dict[str, Any]:
    rec = {"type": "step", "session_id": session, "turn": turn, "kind": kind, "status": status,
           "t_sent_ns": int(t0_ms * MS), "t_end_ns": int((t0_ms + ms) * MS), "duration_ms": ms}
    if status != "ok":
        rec.update(error_type="tool_error", error="tool failed")
    return rec


def make_records(sessions: int = 6, turns: int = 2, fail_every: int = 0) -> list[dict[str, Any]]:
    """Sessions of ``turns`` turns; RAG sessions (embed/retrieve/rerank + generate stage) and
    tool sessions alternate; every ``fail_every``-th LLM call fails."""
    recs: list[dict[str, Any]] = [{"type": "run", "benchmark": "synthetic", "started_at": 1.7e9,
                                   "config": {"load": {"scenario": "concurrency",
                                                       "concurrency": 2, "sessions": sessions},
                                              "slos": {}},
                                   "endpoint": {"url": "http://127.0.0.1:1/v1", "kind": "url",
                                                "model": "sim"}}]
    n_llm = 0
    for s in range(sessions):
        sid = f"s{s}"
        rag = s % 2 == 0
        t = s * 40.0
        ok_turns = 0
        for k in range(turns):
            start = t
            steps: list[dict[str, Any]] = []
            if rag:
                for kind, ms in (("embed", 2.0), ("retrieve", 3.0), ("rerank", 6.0)):
                    steps.append(tool(sid, k, t, kind, ms))
                    t += ms
            n_llm += 1
            failed = bool(fail_every) and n_llm % fail_every == 0
            steps.append(llm(sid, k, t, status="error" if failed else "ok",
                             ttft=40.0 + 5 * k + s, input_tokens=100 + 50 * k,
                             stage="generate" if rag else None))
            t += steps[-1]["request_ms"]
            if not rag and not failed:
                steps.append(tool(sid, k, t, "tool", 12.0))
                t += 12.0
            recs += steps
            if not failed:
                ok_turns += 1
                recs.append({"type": "turn", "session_id": sid, "turn": k, "status": "ok",
                             "t_start_ns": int(start * MS), "t_end_ns": int(t * MS),
                             "latency_ms": t - start, "tool_calls_scored": 0,
                             "tool_calls_matched": 0, "unmatched_tool_calls": 0})
        recs.append({"type": "session", "session_id": sid, "category": "rag" if rag else "tools",
                     "status": "ok" if ok_turns == turns else "error", "turns": turns,
                     "turns_ok": ok_turns, "t_scheduled_ns": s * 40 * MS, "t_end_ns": int(t * MS),
                     "latency_ms": t - s * 40.0})
    return recs


ACCURACY: dict[str, Any] = {
    "headline": 0.62, "metric": "overall accuracy", "overall": 0.62, "correct": 31, "total": 50,
    "categories": {"non_live": {"accuracy": 0.7, "correct": 14, "total": 20, "rule": "x"},
                   "live": {"accuracy": 0.55, "correct": 11, "total": 20, "rule": "y"}},
    "subsets": {"simple_python": {"accuracy": 0.8, "correct": 4, "total": 5},
                "empty_subset": {"accuracy": None, "correct": 0, "total": 0}},
}


def make_summary(records: list[dict[str, Any]], accuracy: dict[str, Any] | None = None,
                 slos: dict[str, float] | None = None, duration_s: float = 1.0,
                 **extra: Any) -> dict[str, Any]:
    info = RunInfo(benchmark="synthetic", complete=True, duration_s=duration_s,
                   slos=slos or {}, accuracy=accuracy,
                   extra={"scenario": {"scenario": "concurrency"},
                          "endpoint": {"url": "http://127.0.0.1:1/v1", "model": "sim"},
                          "versions": {"agentic-bench": "0"}, **extra})
    return summarize(records, info)


@pytest.fixture
def synth() -> SimpleNamespace:
    """The builders above: synth.make_records(...), synth.make_summary(...), synth.ACCURACY."""
    return SimpleNamespace(make_records=make_records, make_summary=make_summary,
                           llm=llm, tool=tool, ACCURACY=ACCURACY)
