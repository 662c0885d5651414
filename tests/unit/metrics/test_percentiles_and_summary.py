from __future__ import annotations

import random

import numpy as np
import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.metrics import RunInfo, describe, parse_slos, percentile, summarize


def test_percentiles_match_numpy_linear() -> None:
    rng = random.Random(5)
    data = sorted(rng.random() * 100 for _ in range(1001))
    for p in (0, 50, 90, 95, 99, 100):
        assert percentile(data, p) == pytest.approx(float(np.percentile(data, p)))
    stats = describe([3.0, 1.0, 2.0])
    assert stats["count"] == 3 and stats["mean"] == 2.0 and stats["p50"] == 2.0
    assert describe([])["p99"] is None


def step(sid: str, ttft: float, status: str = "ok", **kw: object) -> dict:
    rec = {"type": "step", "kind": "llm", "session_id": sid, "status": status,
           "request_ms": ttft + 50, "schedule_lag_ms": 0.1, "output_tokens": 6,
           "itl_ms": [10.0] * 5, "token_source": "usage"}
    if status == "ok":
        rec |= {"ttft_ms": ttft, "tpot_ms": 10.0}
    else:
        rec |= {"error_type": "timeout"}
    return rec | kw


def records() -> list[dict]:
    return [
        step("a", 100.0), step("a", 120.0),
        {"type": "turn", "session_id": "a", "status": "ok", "latency_ms": 400.0},
        {"type": "session", "session_id": "a", "status": "ok", "turns": 1,
         "latency_ms": 420.0},
        step("b", 900.0),
        step("b", 0.0, status="error"),
        {"type": "turn", "session_id": "b", "status": "error", "latency_ms": 1.0},
        {"type": "turn", "session_id": "b", "status": "ok", "latency_ms": 950.0},
        {"type": "session", "session_id": "b", "status": "error", "turns": 3,
         "latency_ms": 960.0},
        {"type": "step", "kind": "tool", "session_id": "a", "status": "ok", "duration_ms": 5.0},
    ]


def test_summary_counts_latencies_and_verdict() -> None:
    s = summarize(records(), RunInfo("t", complete=True, duration_s=2.0,
                                     slos={"ttft_p99_ms": 1000.0}))
    c = s["counts"]
    assert (c["sessions"], c["sessions_ok"], c["requests"], c["requests_ok"]) == (2, 1, 4, 3)
    assert c["turns"] == 4 and c["turns_ok"] == 2 and c["missing_turns"] == 2
    assert c["errors"] == 1 and c["errors_by_type"] == {"timeout": 1}
    assert s["latency_ms"]["ttft"]["count"] == 3  # the failed request is excluded
    assert s["latency_ms"]["ttft"]["max"] == 900.0
    assert s["latency_ms"]["itl"]["count"] == 15
    assert s["stages_ms"]["tool"]["mean"] == 5.0
    assert s["throughput"]["requests_per_s"] == 1.5
    assert s["goodput"]["sessions_per_s"] == 0.5
    rows = {r["name"]: r for r in s["constraints"]}
    assert rows["missing_turns"]["ok"] is False and rows["ttft_p99_ms"]["ok"] is True
    assert s["result"] == "INVALID"
    for key in ("ttft", "itl", "tpot", "request", "turn", "session"):
        assert set(s["latency_ms"][key]) >= {"mean", "p50", "p90", "p95", "p99", "max"}


def test_goodput_applies_slos_per_session() -> None:
    recs = records()[:4]
    ok = summarize(recs, RunInfo("t", True, 1.0, slos={"ttft_p99_ms": 110.0}))
    assert ok["goodput"]["sessions_per_s"] == 0.0  # 120 ms > 110 ms
    assert ok["result"] == "INVALID"
    ok2 = summarize(recs, RunInfo("t", True, 1.0, slos={"ttft_p99_ms": 130.0}))
    assert ok2["goodput"]["sessions_per_s"] == 1.0 and ok2["result"] == "VALID"


def test_incomplete_run_is_invalid() -> None:
    s = summarize(records()[:4], RunInfo("t", complete=False, duration_s=1.0))
    assert s["complete"] is False and s["result"] == "INVALID"


def test_parse_slos() -> None:
    assert parse_slos(["ttft_p99_ms=2000,tpot_p99_ms=200", "min_sessions=3"]) == {
        "ttft_p99_ms": 2000.0, "tpot_p99_ms": 200.0, "min_sessions": 3.0}
    with pytest.raises(ConfigError):
        parse_slos(["bogus=1"])
    with pytest.raises(ConfigError):
        parse_slos(["ttft_p99_ms=fast"])


def test_loadgen_invalid_verdict_makes_the_run_invalid() -> None:
    from agentic_bench.metrics.verdict import evaluate

    base = {"complete": True, "counts": {"missing_turns": 0}, "latency_ms": {},
            "duration_s": 1.0, "accuracy": None}
    rows = evaluate({**base, "loadgen": {"result": "INVALID",
                                         "invalid_reason": "min duration not met"}}, {})
    row = next(r for r in rows if r["name"] == "loadgen_result")
    assert row["ok"] is False and "min duration not met" in row["rule"]
    rows = evaluate({**base, "loadgen": {"result": "VALID"}}, {})
    assert all(r["ok"] for r in rows)
    assert not [r for r in evaluate(base, {}) if r["name"] == "loadgen_result"]


def test_roles_block_only_when_records_name_a_role() -> None:
    assert "roles" not in summarize(records(), RunInfo("t", complete=True, duration_s=1.0))
    tagged = [step("a", 10.0, role="main"), step("a", 200.0, role="grade"),
              step("b", 300.0, role="grade"), step("b", 0.0, status="error", role="grade"),
              {"type": "session", "session_id": "a", "status": "ok", "turns": 1,
               "latency_ms": 1.0},
              {"type": "session", "session_id": "b", "status": "ok", "turns": 1,
               "latency_ms": 1.0}]
    roles = summarize(tagged, RunInfo("t", complete=True, duration_s=1.0))["roles"]
    assert set(roles) == {"main", "grade"}
    assert roles["grade"]["requests"] == 3 and roles["grade"]["errors"] == 1
    assert roles["grade"]["requests_per_session"] == 1.5
    assert roles["grade"]["ttft_ms"]["p50"] == 250.0 and roles["main"]["ttft_ms"]["max"] == 10.0


def test_interactivity_forms() -> None:
    from agentic_bench.metrics.interactivity import interactivity

    llm = [step("a", 10.0, output_tokens=10, request_ms=1000.0),
           step("a", 10.0, output_tokens=30, request_ms=1000.0),
           step("b", 10.0, output_tokens=20, request_ms=4000.0),
           step("b", 0.0, status="error", output_tokens=0, request_ms=5000.0)]
    sessions = [{"session_id": "a", "status": "ok", "latency_ms": 2500.0},
                {"session_id": "b", "status": "error", "latency_ms": 9000.0}]
    block = interactivity(llm, sessions)
    # endpoints PR #493: all tokens of ok requests / every request's latency (failed included)
    assert block["e2e_avg_interactivity"] == 60 / 11.0
    assert block["e2e_avg_interactivity_ok"] == 60 / 6.0  # the reviewer's matching sides
    assert block["tokens_per_s_per_user"]["count"] == 3
    assert block["tokens_per_s_per_user"]["p50"] == 10.0  # 10, 30, 5 tok/s
    assert block["session_tokens_per_s"]["count"] == 1  # only ok sessions
    assert block["session_tokens_per_s"]["mean"] == 40 / 2.5
    # AIPerf: 1000 / pXX(E2EL/OSL); ms/token = 100, 33.3, 200 -> p50 = 100 ms -> 10 tok/s
    assert block["inverse_e2el_per_token"]["p50"] == 10.0
    assert block["inverse_e2el_per_token"]["p99"] < block["inverse_e2el_per_token"]["p50"]
    empty = interactivity([], [])
    assert empty["e2e_avg_interactivity"] is None and empty["inverse_e2el_per_token"]["p90"] is None


def test_prefix_cache_block_from_reported_cached_tokens() -> None:
    from agentic_bench.metrics.prefix_cache import prefix_cache

    llm = [step("a", 1.0, input_tokens=100, cached_tokens=0, t_sent_ns=1),
           step("a", 1.0, input_tokens=200, cached_tokens=150, t_sent_ns=2),
           step("b", 1.0, input_tokens=100, cached_tokens=50, t_sent_ns=3),
           step("b", 1.0, input_tokens=300, t_sent_ns=4),  # did not report: left out
           step("b", 0.0, status="error", input_tokens=10, cached_tokens=10)]
    block = prefix_cache(llm)
    assert block is not None
    assert block["requests_reporting"] == 3
    assert block["hit_rate"] == 200 / 400
    assert [(r["position"], r["requests"], r["hit_rate"]) for r in block["by_request_position"]] \
        == [(0, 2, 50 / 200), (1, 1, 150 / 200)]
    assert block["per_session_hit_rate"]["count"] == 2
    assert prefix_cache([step("a", 1.0, input_tokens=5)]) is None
    summary = summarize(llm, RunInfo("t", complete=True, duration_s=1.0))
    assert summary["prefix_cache"]["cached_tokens"] == 200


@pytest.mark.parametrize(("usage", "timings", "cached"), [
    ({"prompt_tokens_details": {"cached_tokens": 7}}, None, 7),  # OpenAI, vLLM, SGLang
    ({"cached_tokens": 5}, None, 5),
    ({}, {"cache_n": 12, "prompt_n": 3}, 12),  # llama.cpp server
    ({"prompt_tokens": 9}, None, None),
])
def test_cached_prompt_tokens_fields(usage: dict, timings: dict | None, cached: int | None) -> None:
    from agentic_bench.transport.sse import cached_prompt_tokens

    assert cached_prompt_tokens(usage, timings) == cached


def test_any_declared_metric_at_any_statistic_is_an_slo() -> None:
    """#30 item 14: the SLO keys were a fixed list (ttft_p95_ms refused)."""
    assert parse_slos(["ttft_p95_ms=50,request_max_ms=900,turn_p50_ms=10"]) == {
        "ttft_p95_ms": 50.0, "request_max_ms": 900.0, "turn_p50_ms": 10.0}
    with pytest.raises(ConfigError, match="statistic"):
        parse_slos(["ttft_p97_ms=1"])
    with pytest.raises(ConfigError, match=r"e\.g\. ttft_p95_ms"):
        parse_slos(["speed_p99_ms=1"])
    recs = [{"type": "step", "kind": "llm", "session_id": "s#0", "status": "ok",
             "ttft_ms": float(v), "request_ms": 100.0, "t_sent_ns": 0, "t_end_ns": 1}
            for v in range(1, 101)]
    summary = summarize(recs, RunInfo(benchmark="x", complete=True, duration_s=1.0,
                                      slos={"ttft_p95_ms": 90.0}))
    row = next(r for r in summary["constraints"] if r["name"] == "ttft_p95_ms")
    assert row["value"] == pytest.approx(95.05) and not row["ok"]
