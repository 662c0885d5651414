"""A request refused by a crashed embedded server waits for the restart and is sent again; the
wait is recorded on the request, not counted in its latency (#34 item 4)."""

from __future__ import annotations

import asyncio
from typing import Any

from agentic_bench.endpoint.restart_wait import RestartWaitingClient
from agentic_bench.records.llm import llm_record
from agentic_bench.transport.result import ChatResult


class FakeServer:
    def __init__(self, restarts: bool) -> None:
        self.generation = 0
        self.restart_waits: dict[str, float] = {"requests": 0, "total_ms": 0.0}
        self.restarts = restarts
        self.asked: list[int] = []

    def recover(self, seen_generation: int, timeout_s: float) -> bool:
        self.asked.append(seen_generation)
        if self.restarts:
            self.generation += 1
        return self.restarts


class FakeClient:
    base_url = "http://127.0.0.1:1/v1"

    def __init__(self, results: list[ChatResult]) -> None:
        self.results = results
        self.sent = 0

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        self.sent += 1
        return self.results.pop(0)


def _refused() -> ChatResult:
    return ChatResult(t_sent_ns=1, t_end_ns=2).fail("connect", "connection refused")


def test_a_refused_request_waits_for_the_restart_and_is_sent_again() -> None:
    server, inner = FakeServer(restarts=True), FakeClient([_refused(), ChatResult(content="hi")])
    client = RestartWaitingClient(inner, server)
    result = asyncio.run(client.chat({}))
    assert result.ok and inner.sent == 2 and server.asked == [0]
    assert result.restart_wait_ms is not None and result.restart_wait_ms >= 0
    assert llm_record(result, 0, 0, derived=())["restart_wait_ms"] == result.restart_wait_ms
    assert server.restart_waits["requests"] == 1
    assert client.base_url == inner.base_url  # everything else is the inner client's
    assert client.client_name == "FakeClient"


def test_no_restart_no_resend_and_other_failures_untouched() -> None:
    server, inner = FakeServer(restarts=False), FakeClient([_refused()])
    result = asyncio.run(RestartWaitingClient(inner, server).chat({}))
    assert result.error_type == "connect" and inner.sent == 1 and result.restart_wait_ms is None
    timeout = ChatResult().fail("timeout", "slow")
    server, inner = FakeServer(restarts=True), FakeClient([timeout])
    assert asyncio.run(RestartWaitingClient(inner, server).chat({})) is timeout
    assert server.asked == [] and "restart_wait_ms" not in llm_record(timeout, 0, 0, derived=())
