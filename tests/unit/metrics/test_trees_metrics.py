"""The AgentX figures and validity rows (metrics/trees.py) from records, each against the rule
it transcribes: InferenceX utils/agentic/aggregation/request_metrics.py and the InferenceX app's
full-response-interactivity.ts (ITL, interactivity, throughput per GPU), AIPerf 0.13
exporters/aggregate/aggregate_base_exporter.py and common/environment.py (overflow), InferenceX
utils/agentic/validation/validate_agentic_result.py (error threshold)."""

from __future__ import annotations

from typing import Any

import pytest

from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.trees import trees_block
from agentic_bench.transport.context_overflow import is_context_overflow
from agentic_bench.transport.result import ChatResult


def llm(i: int, *, sent: float, end: float, ttft_ms: float, out: int, status: str = "ok",
        **extra: Any) -> dict[str, Any]:
    rec = {"type": "step", "kind": "llm", "session_id": "t#0", "turn": 0, "step": i,
           "status": status, "t_sent_ns": int(sent * 1e9), "t_end_ns": int(end * 1e9),
           "request_ms": (end - sent) * 1000, "output_tokens": out, "input_tokens": 1000,
           "prompt_tokens_target": 990, "prompt_tokens_synth": 990, "output_tokens_target": out,
           "prefix_hit_blocks": 10, "prefix_blocks": 15}
    if status == "ok":
        rec["ttft_ms"] = ttft_ms
        if out > 1:
            rec["tpot_ms"] = ((end - sent) * 1000 - ttft_ms) / (out - 1)
    rec.update(extra)
    return rec


def test_full_response_itl_interactivity_and_throughput() -> None:
    recs = [llm(0, sent=0.0, end=1.0, ttft_ms=100, out=10),  # ITL 100 ms
            llm(1, sent=1.0, end=3.0, ttft_ms=200, out=19),  # ITL 100 ms
            llm(2, sent=3.0, end=4.0, ttft_ms=500, out=2),  # ITL 500 ms
            llm(3, sent=4.0, end=4.5, ttft_ms=400, out=1)]  # one token: no ITL sample
    block = trees_block(recs, [], recs, gpus=2)
    itl = block["full_response_itl_ms"]
    assert itl["count"] == 3 and itl["p50"] == pytest.approx(100.0)
    p90 = 100 + 0.8 * 400  # linear interpolation between ranks, as numpy's default
    assert itl["p90"] == pytest.approx(p90)
    assert block["interactivity"]["p90"] == pytest.approx(1000.0 / p90)  # 1 / P90(ITL s)
    thr = block["throughput"]
    assert thr["window_s"] == pytest.approx(4.5)  # first start → last end
    assert thr["output_tokens_per_s"] == pytest.approx(32 / 4.5)
    assert thr["per_gpu"]["total_tokens_per_s"] == pytest.approx((4000 + 32) / 4.5 / 2)
    assert block["prefix_hit"]["theoretical"] == pytest.approx(40 / 60)
    assert block["prompt_tokens"]["synthesized_exact"] == 4
    assert block["prompt_tokens"]["server_minus_target"]["p50"] == 10


def test_overflow_and_error_rules() -> None:
    """An overflow: an error body holding one of AIPerf's phrases (any case; llama.cpp's own
    wording added). The rate is overflows over every response; more than 1% is invalid,
    exactly 1% passes. InferenceX fails a run above 10% failed requests."""
    assert is_context_overflow(ChatResult().fail("http_status", "HTTP 400: This model's "
                                                 "MAXIMUM CONTEXT length is 4096 tokens"))
    assert is_context_overflow(ChatResult().fail("http_status", "the request exceeds the "
                                                 "available context size, try increasing it"))
    assert not is_context_overflow(ChatResult().fail("http_status", "HTTP 500: boom"))
    ok = [llm(i, sent=i, end=i + 0.5, ttft_ms=10, out=5) for i in range(99)]
    over = llm(99, sent=99, end=99.1, ttft_ms=0, out=0, status="error", context_overflow=True,
               error_type="http_status")
    rules = {"scenario": "inferencex-agentx-mvp", "violations": [], "departures": [],
             "duration_s": 10.0}
    lanes = {"type": "lanes", "lanes": 1, "measured_s": 10.0, "starved": 0, "unfilled": 0,
             "occupancy": 1.0, "trees_started": 1, "wrapped": 0, "warmup_s": 0.0,
             "warmup_requests": 0, "jumps": 0, "skipped_s": 0.0, "idle_gap_cap_s": 10.0}

    def verdict(records: list[dict[str, Any]]) -> dict[str, bool]:
        summary = summarize([*records, lanes], RunInfo(
            benchmark="replay", complete=True, duration_s=10.0, extra={"agentx": rules}))
        return {row["name"]: row["ok"] for row in summary["constraints"]}

    assert verdict([*ok, over])["context_overflow_rate"]  # 1/100: exactly 1% passes
    assert not verdict([*ok[:50], over])["context_overflow_rate"]
    failed = [llm(i, sent=i, end=i + 1, ttft_ms=0, out=0, status="error") for i in range(11)]
    assert not verdict([*ok[:90], *failed])["error_rate"]  # 11 / 90 > 10%
    assert verdict([*ok[:90], *failed[:9]])["error_rate"]
    rows = verdict([*ok, over])
    assert set(rows) == {"not_cancelled", "duration_reached", "context_overflow_rate",
                         "error_rate", "lanes_filled"}
    broken = {**rules, "violations": ["--think-time none"]}
    summary = summarize([*ok, lanes], RunInfo(benchmark="replay", complete=True,
                                              duration_s=10.0, extra={"agentx": broken}))
    assert summary["result"] == "INVALID"
    assert next(r for r in summary["constraints"] if not r["ok"])["name"] == "scenario_rule"


def test_warm_up_and_partial_records_are_not_counted() -> None:
    recs = [llm(0, sent=0.0, end=1.0, ttft_ms=10, out=5, warmup=True),
            llm(1, sent=1.0, end=2.0, ttft_ms=20, out=5),
            {"type": "turn", "session_id": "t#0", "turn": 0, "status": "ok",
             "latency_ms": 999.0, "partial": True},
            {"type": "turn", "session_id": "t#0", "turn": 1, "status": "ok",
             "latency_ms": 50.0},
            {"type": "session", "session_id": "t#0", "status": "ok", "turns": 1,
             "turns_ok": 1, "latency_ms": 2000.0, "partial": True}]
    s = summarize(recs, RunInfo(benchmark="replay", complete=True, duration_s=2.0))
    assert s["counts"]["requests"] == 1 and s["warmup"] == {"requests": 1, "errors": 0}
    assert s["latency_ms"]["turn"]["count"] == 1 and s["latency_ms"]["turn"]["max"] == 50.0
    assert s["latency_ms"]["session"]["count"] == 0  # began mid-trajectory: not a whole tree
    assert s["trees"]["trees"]["mid_trajectory"] == 1
