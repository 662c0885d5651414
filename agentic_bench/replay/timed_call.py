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

from agentic_bench.metrics.records import llm_record
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.result import ChatResult

RETRYABLE = frozenset({"connect", "timeout", "http_status", "disconnect", "malformed",
                       "incomplete"})


async def timed_chat(
    transport: ChatTransport, body: dict[str, Any], *, timeout_s: float, retries: int,
    sink: Callable[[dict[str, Any]], None], ids: dict[str, Any], t0_ns: int, scheduled_ns: int,
) -> tuple[ChatResult, dict[str, Any]]:
    """Run the call; returns the final result and its record (not yet written)."""
    attempt = 0
    while True:
        t_issue = perf_counter_ns()
        try:
            result = await transport.chat(body, timeout_s)
        except asyncio.CancelledError:
            cancelled = ChatResult(t_sent_ns=t_issue, t_end_ns=perf_counter_ns()).fail(
                "cancelled", "cancelled by the harness", status="cancelled")
            sink({**ids, **llm_record(cancelled, t0_ns, scheduled_ns), "attempt": attempt})
            raise
        except Exception as exc:
            result = ChatResult(t_sent_ns=t_issue, t_end_ns=perf_counter_ns()).fail(
                "internal", f"{type(exc).__name__}: {exc}")
        rec = {**ids, **llm_record(result, t0_ns, scheduled_ns)}
        if attempt:
            rec["attempt"] = attempt
        if result.ok or attempt >= retries or result.error_type not in RETRYABLE:
            return result, rec
        sink({**rec, "status": "retried"})
        attempt += 1
        scheduled_ns = perf_counter_ns()
