"""Requests that meet a crashed embedded server wait for its restart instead of failing.

A killed server refuses connections at once, so without this every session issued while it
restarts (seconds) fails within milliseconds — before the supervisor even sees the crash — and
the run can end with no restart on record. :class:`RestartWaitingClient` wraps the embedded
server's chat client: a request whose connection is refused asks the server to recover (restart
now, or wait for the restart already under way, bounded by ``wait_s``) and, when a new server
came up, is sent again. The wait is recorded as ``restart_wait_ms`` on the request's record and
is not part of its latency (its ``t_sent`` is the re-send); requests that were in flight when the
server died fail as they did (error records).
"""

from __future__ import annotations

import asyncio
from time import perf_counter_ns
from typing import Any, Protocol

from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.result import ChatResult


class Recoverable(Protocol):
    generation: int
    restart_waits: dict[str, float]

    def recover(self, seen_generation: int, timeout_s: float) -> bool: ...


class RestartWaitingClient:
    """A chat client whose refused connections wait for the supervised server's restart."""

    def __init__(self, inner: Any, server: Recoverable, wait_s: float = 180.0) -> None:
        self._inner = inner
        self._server = server
        self.wait_s = wait_s

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def client_name(self) -> str:
        """The HTTP client doing the work (what a run's summary names)."""
        return type(self._inner).__name__

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext = NO_CONTEXT) -> ChatResult:
        generation = self._server.generation
        result: ChatResult = await self._inner.chat(body, timeout_s, context=context)
        if result.error_type != "connect":
            return result
        start = perf_counter_ns()
        restarted = await asyncio.to_thread(self._server.recover, generation, self.wait_s)
        if not restarted:
            return result
        waited_ms = (perf_counter_ns() - start) / 1e6
        waits = self._server.restart_waits
        waits["requests"] += 1
        waits["total_ms"] = round(waits["total_ms"] + waited_ms, 3)
        again: ChatResult = await self._inner.chat(body, timeout_s, context=context)
        again.restart_wait_ms = round(waited_ms, 3)
        return again
