"""Running a workload without a server, for plugin and unit tests (re-exported by
:mod:`agentic_bench.api`): :class:`FakeTransport` answers from a Python function,
:func:`run_offline` runs sessions one after another on a transport."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentic_bench.contracts import Workload
    from agentic_bench.transport.request import RequestContext
    from agentic_bench.transport.result import ChatResult

Reply = Callable[[dict[str, Any]], "str | Mapping[str, Any]"]


class FakeTransport:
    """A chat transport that answers from a Python function (for plugin unit tests).

    ``reply(body)`` returns the assistant text, or ``{"content": str, "tool_calls":
    [{"name": ..., "arguments": dict | str}]}``. Timestamps are real but trivially short.
    """

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext | None = None) -> ChatResult:
        """Answer ``body`` with ``reply(body)`` (``context`` is not used)."""
        from agentic_bench.transport.result import ChatResult

        self.requests.append(body)
        t0 = perf_counter_ns()
        out = self.reply(body)
        content, calls = (out, []) if isinstance(out, str) else (
            str(out.get("content") or ""), list(out.get("tool_calls") or []))
        tool_calls = [{"id": c.get("id") or f"call_{len(self.requests)}_{i}", "name": c["name"],
                       "arguments": c["arguments"] if isinstance(c.get("arguments"), str)
                       else json.dumps(c.get("arguments") or {})}
                      for i, c in enumerate(calls)]
        t1 = perf_counter_ns()
        return ChatResult(t_sent_ns=t0, t_first_byte_ns=t1, t_first_token_ns=t1, t_end_ns=t1,
                          token_times_ns=[t1], content=content, tool_calls=tool_calls,
                          finish_reason="tool_calls" if tool_calls else "stop",
                          output_tokens=1, model="fake", chunks=1)

    async def aclose(self) -> None:
        """Nothing to release."""
        return None


async def run_offline(workload: Workload, transport: Any, *, sessions: int | None = None,
                      model: str = "fake") -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Run sessions one after another on ``transport``; returns ``(records, accuracy)``."""
    from agentic_bench.contracts import ExecContext, SessionTicket
    from agentic_bench.options.replay import ReplayOptions

    records: list[dict[str, Any]] = []
    t0 = perf_counter_ns()
    ctx = ExecContext(transport, records.append, t0, ReplayOptions(model=model))
    execute = workload.make_executor(ctx)
    count = workload.source.size if sessions is None else sessions
    try:
        for i in range(count):
            await execute(SessionTicket(i, workload.source(i), perf_counter_ns()))
    finally:
        await ctx.close_extras()
    return records, workload.score(records) if workload.score else None


__all__ = ["FakeTransport", "Reply", "run_offline"]
