"""One timed chat call with retries, cancellation and bug capture, as records.

Shared by the trace replayer and by tasks that drive the endpoint themselves. A failed
attempt that is retried is written as a record with ``status: "retried"`` (not counted as a
request or an error; counted in ``counts.retries``); only the final attempt is the request.
A cancellation writes a ``cancelled`` record before propagating.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from time import perf_counter_ns
from typing import Any

from agentic_bench.metrics.declarations import step_derivations
from agentic_bench.records.llm import llm_record
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.result import ChatResult

RETRYABLE = frozenset({"connect", "timeout", "http_status", "disconnect", "malformed",
                       "incomplete"})
# --retry-on mlperf: MLPerf E2E-RAG's call_chat_completions (mlcommons/inference b66003e1
# e2e-rag/multi_shot_retrieval.py 334-465): HTTP 429 waits Retry-After (whole seconds) or
# 2**attempt s (343-351); 502/503/504 (399-407) and timeouts (422-428) wait 2**attempt s; any
# other failure is final at once (409-420, 444-457)
MLPERF_RETRY_STATUS = frozenset({502, 503, 504})
_sleep = asyncio.sleep  # replaced in tests


def retry_wait_s(result: ChatResult, attempt: int, rule: str) -> float | None:
    """Seconds to wait before the next attempt of a failed call, or ``None``: not retried."""
    if rule != "mlperf":
        return 0.0 if result.error_type in RETRYABLE else None
    if result.http_status == 429:
        if result.retry_after is None:
            return float(2 ** attempt)
        try:  # the reference reads the header with int(); anything else fails the call
            return float(int(result.retry_after))
        except ValueError:
            return None
    if result.error_type == "timeout" or result.http_status in MLPERF_RETRY_STATUS:
        return float(2 ** attempt)
    return None


async def timed_chat(
    transport: ChatTransport, body: dict[str, Any], *, timeout_s: float, retries: int,
    sink: Callable[[dict[str, Any]], None], ids: dict[str, Any], t0_ns: int, scheduled_ns: int,
    retry_rule: str = "any", context: RequestContext = NO_CONTEXT,
) -> tuple[ChatResult, dict[str, Any]]:
    """Run the call; returns the final result and its record (not yet written).

    ``retries`` more attempts at most; ``retry_rule`` says which failures are retried and after
    how long (:func:`retry_wait_s`); ``context``: the session's, on every attempt."""
    attempt = 0
    derived = step_derivations()  # the declared step metrics, written into every record
    while True:
        t_issue = perf_counter_ns()
        try:
            result = await transport.chat(body, timeout_s, context=context)
        except asyncio.CancelledError:
            cancelled = ChatResult(t_sent_ns=t_issue, t_end_ns=perf_counter_ns()).fail(
                "cancelled", "cancelled by the harness", status="cancelled")
            sink({**ids, **llm_record(cancelled, t0_ns, scheduled_ns, derived=derived),
                  "attempt": attempt})
            raise
        except Exception as exc:
            result = ChatResult(t_sent_ns=t_issue, t_end_ns=perf_counter_ns()).fail(
                "internal", f"{type(exc).__name__}: {exc}")
        rec = {**ids, **llm_record(result, t0_ns, scheduled_ns, derived=derived)}
        if attempt:
            rec["attempt"] = attempt
        wait = None if result.ok else retry_wait_s(result, attempt, retry_rule)
        if wait is None or attempt >= retries:
            if wait and retry_rule == "mlperf" and result.http_status == 429:
                await _sleep(wait)  # the reference waits out a 429 also before giving up (351)
            return result, rec
        sink({**rec, "status": "retried", **({"retry_wait_s": wait} if wait else {})})
        if wait:
            await _sleep(wait)
        attempt += 1
        scheduled_ns = perf_counter_ns()
