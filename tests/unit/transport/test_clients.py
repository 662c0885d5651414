"""Both HTTP clients against the real latency simulator (in-process) give the same records."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from agentic_bench.endpoint.sim import SimConfig, SimServer
from agentic_bench.endpoint.sim_http import HttpConnection
from agentic_bench.transport import ChatResult, make_chat_client

BODY = {"model": "sim", "messages": [{"role": "user", "content": "hi"}]}
KINDS = ["raw", "aiohttp"]


def with_sim(cfg: SimConfig, fn: Callable[[str, SimServer], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        server = SimServer(cfg)
        port = await server.start()
        try:
            return await fn(f"http://127.0.0.1:{port}", server)
        finally:
            await server.stop()

    return asyncio.run(go())


def one(kind: str, cfg: SimConfig, body: dict[str, Any] | None = None,
        timeout_s: float = 5.0, n: int = 1) -> list[ChatResult]:
    async def fn(url: str, _: SimServer) -> list[ChatResult]:
        client = make_chat_client(url, kind=kind, timeout_s=timeout_s)
        try:
            return [await client.chat(body or BODY) for _ in range(n)]
        finally:
            await client.aclose()

    return with_sim(cfg, fn)


@pytest.mark.parametrize("kind", KINDS)
def test_stream_content_tokens_usage(kind: str) -> None:
    (r,) = one(kind, SimConfig(ttft_ms=20, itl_ms=2, output_tokens=8))
    assert r.ok, r.error
    assert r.content == "".join(f"tok{k} " for k in range(8))
    assert len(r.token_times_ns) == 8 and r.output_tokens == 8 and r.finish_reason == "stop"
    assert r.t_sent_ns < r.t_first_byte_ns <= r.t_first_token_ns <= r.t_end_ns  # type: ignore[operator]
    assert 19e6 <= r.t_first_token_ns - r.t_sent_ns < 60e6  # type: ignore[operator]


@pytest.mark.parametrize("kind", KINDS)
def test_tool_call_stream(kind: str) -> None:
    (r,) = one(kind, SimConfig(ttft_ms=1, itl_ms=1, output_tokens=4, tool_call="lookup"))
    assert r.ok and r.tool_calls[0]["name"] == "lookup"
    assert r.tool_calls[0]["arguments"] == '{  "x":0}'


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("fault", "error_type"), [
    ("fail_rate", "http_status"), ("hang_rate", "timeout"),
    ("disconnect_rate", "disconnect"), ("malformed_rate", "malformed")])
def test_faults_become_typed_errors(kind: str, fault: str, error_type: str) -> None:
    cfg = SimConfig(ttft_ms=1, itl_ms=1, output_tokens=6, **{fault: 1.0})
    (r,) = one(kind, cfg, timeout_s=0.5 if fault == "hang_rate" else 30.0)
    assert not r.ok and r.error_type == error_type, (r.error_type, r.error)
    if fault == "fail_rate":
        assert r.http_status == 500 and "injected failure" in (r.error or "")


@pytest.fixture
def server_conns(monkeypatch: pytest.MonkeyPatch) -> list[HttpConnection]:
    """Every server-side connection the simulator accepts, in order."""
    seen: list[HttpConnection] = []
    made = HttpConnection.connection_made

    def spy(self: HttpConnection, transport: Any) -> None:
        seen.append(self)
        made(self, transport)

    monkeypatch.setattr(HttpConnection, "connection_made", spy)
    return seen


@pytest.mark.parametrize("kind", KINDS)
def test_keep_alive_reuses_one_connection(kind: str, server_conns: list[HttpConnection]) -> None:
    results = one(kind, SimConfig(ttft_ms=0, itl_ms=0, output_tokens=2), n=5)
    assert all(r.ok for r in results)
    assert len(server_conns) == 1


def test_raw_client_retries_when_the_server_closed_an_idle_connection(
        server_conns: list[HttpConnection]) -> None:
    async def fn(url: str, _: SimServer) -> list[bool]:
        client = make_chat_client(url, kind="raw")
        try:
            first = await client.chat(BODY)
            # the server closes the idle connection (its keep-alive timeout) and the client
            # has not seen the FIN yet when it sends the next request on it
            server_conns[0].abort(graceful=True)
            second = await client.chat(BODY)
            return [first.ok, second.ok, len(server_conns) == 2]
        finally:
            await client.aclose()

    assert with_sim(SimConfig(ttft_ms=0, itl_ms=0, output_tokens=2), fn) == [True, True, True]


@pytest.mark.parametrize("kind", KINDS)
def test_unreachable_is_a_connect_error(kind: str) -> None:
    from tests.conftest import free_port

    async def go() -> ChatResult:
        client = make_chat_client(f"http://127.0.0.1:{free_port()}", kind=kind)
        try:
            return await client.chat(BODY)
        finally:
            await client.aclose()

    r = asyncio.run(go())
    assert r.error_type == "connect"


@pytest.mark.parametrize("kind", KINDS)
def test_list_models_and_rejected_key(kind: str) -> None:
    async def fn(url: str, _: SimServer) -> tuple[Any, Any]:
        good = make_chat_client(url, "sekret", kind=kind)
        bad = make_chat_client(url, "wrong", kind=kind)
        try:
            return await good.list_models(), (await bad.chat(BODY)).http_status
        finally:
            await good.aclose()
            await bad.aclose()

    (status, listing), bad_status = with_sim(SimConfig(api_key="sekret"), fn)
    assert status == 200 and listing["data"][0]["id"] == "sim"
    assert bad_status == 401


def test_unknown_transport_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentic_bench.errors import ConfigError

    monkeypatch.setenv("AGENTIC_BENCH_TRANSPORT", "carrier-pigeon")
    with pytest.raises(ConfigError, match="carrier-pigeon"):
        make_chat_client("http://127.0.0.1:1")


def test_cancel_mid_stream_drops_the_connection() -> None:
    async def fn(url: str, _: SimServer) -> bool:
        client = make_chat_client(url, kind="raw")
        try:
            task = asyncio.ensure_future(client.chat(BODY))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            after = await client.chat({**BODY, "max_tokens": 2})
            return after.ok and not client._idle[0].closed  # type: ignore[attr-defined]
        finally:
            await client.aclose()

    assert with_sim(SimConfig(ttft_ms=1, itl_ms=20, output_tokens=50), fn)
