"""#45 item 3: TTFT has one definition (metrics/declarations.py). The E2E-RAG trace builder
and agentic-edge's ``result_summary.json`` read it there, and give the value the record and
the summariser give for the same request."""

from __future__ import annotations

from typing import Any

import pytest

from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.declarations import step_derivations, step_value, ttft_ns
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.records.llm import llm_record, record_timestamps, result_timestamps
from agentic_bench.tasks.agentic_edge.mlperf_artifacts import _ttft_ns
from agentic_bench.tasks.rag_e2e.question_log import LlmCall
from agentic_bench.tasks.rag_e2e.trace_build import _llm_step
from agentic_bench.transport.result import ChatResult
from agentic_bench.units import NS_PER_MS

T0 = 5_000_000_000
SENT = T0 + 250_000_000


def _result(first_token_ns: int | None) -> ChatResult:
    times = [] if first_token_ns is None else [first_token_ns, first_token_ns + 4_000_000]
    return ChatResult(t_sent_ns=SENT, t_first_token_ns=first_token_ns, t_end_ns=SENT + 90_000_000,
                      token_times_ns=times, content="hi", output_tokens=2, input_tokens=7)


def _record(result: ChatResult) -> dict[str, Any]:
    rec = llm_record(result, T0, SENT, derived=step_derivations())
    return {"type": "step", "session_id": "s", "turn": 0, **rec}


@pytest.mark.parametrize("first", [SENT + 12_345_000, SENT + 1, SENT + 987_654_321])
def test_the_trace_builder_and_result_summary_give_the_summarisers_ttft(first: int) -> None:
    result = _result(first)
    record = _record(result)
    expected = (first - SENT) / NS_PER_MS
    assert record["ttft_ms"] == expected  # what the summary is computed from
    summary = Summary.of(summarize([record], RunInfo("t", True, 1.0)))
    assert summary.latency("ttft", "p50") == pytest.approx(expected, abs=1e-3)  # µs resolution
    call = LlmCall(step=0, stage="generate", start_ns=SENT, messages=[], params={},
                   result=result, content="hi")
    assert _llm_step(call).ttft_ms == expected  # rag-e2e --record-trace
    assert _ttft_ns(record) == float(first - SENT)  # agentic-edge result_summary.json, in ns
    assert _ttft_ns(record) / NS_PER_MS == expected


def test_a_request_without_a_first_token_has_no_ttft_anywhere() -> None:
    result = _result(None)
    record = _record(result)
    assert "ttft_ms" not in record
    call = LlmCall(step=0, stage="generate", start_ns=SENT, messages=[], params={},
                   result=result, content="")
    assert _llm_step(call).ttft_ms is None and _ttft_ns(record) is None
    assert step_value("ttft", result_timestamps(result, SENT)) is None


def test_a_record_without_instants_keeps_its_recorded_ttft() -> None:
    assert record_timestamps({"ttft_ms": 3.5}) is None
    assert _ttft_ns({"ttft_ms": 3.5}) == 3_500_000
    stamps = record_timestamps({"t_sent_ns": 10, "t_first_token_ns": 25})
    assert stamps is not None and ttft_ns(stamps) == 15
