"""Error events dropped from a 200 stream, made visible in the MLPerf phases' step records.

Under the ``mlperf`` stream rule (:mod:`agentic_bench.transport.sse`) an error event inside an
HTTP 200 stream is dropped, as mlcommons/endpoints ea332753 drops every frame without choices,
and the request completes with what arrived: its step record says ``status: ok``. So that the
event is not lost, :func:`noting_stream_errors` gives a session a context whose step record of
such a request also keeps ``stream_error`` (the frame's text).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentic_bench.contracts import ExecContext
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.result import ChatResult
from agentic_bench.transport.sse import dropped_stream_error


@dataclass
class _Noting:
    """The session's transport, remembering the last result's dropped error frame."""

    inner: ChatTransport
    pending: str | None = None

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext = NO_CONTEXT) -> ChatResult:
        result = await self.inner.chat(body, timeout_s, context=context)
        self.pending = dropped_stream_error(result)
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()


def noting_stream_errors(ctx: ExecContext) -> ExecContext:
    """``ctx`` for one session: the step record of a request whose stream carried a dropped
    error event gains ``stream_error``. One session's requests run one at a time, and the
    recorder writes a request's step record before it sends the next one."""
    noting = _Noting(ctx.transport)
    sink = ctx.sink

    def noted(record: dict[str, Any]) -> None:
        if noting.pending is not None and record.get("type") == "step" \
                and record.get("kind") == "llm" and record.get("status") == "ok":
            record = {**record, "stream_error": noting.pending}
            noting.pending = None
        sink(record)

    return ExecContext(noting, noted, ctx.t0_ns, ctx.options, transport_kind=ctx.transport_kind)
