"""#32 item 4: a request's RequestContext is passed explicitly and reaches the wire — its headers
and ``user`` in the request, its ``on_chunk`` called for each chunk of that request's reply —
for both HTTP clients, and nothing of one request's context leaks into another's when many run
concurrently on the same client (the bug class context variables invite)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web

from agentic_bench.transport import ChatResult, make_chat_client
from agentic_bench.transport.request import RequestContext
from agentic_bench.transport.session_headers import render

KINDS = ["raw", "aiohttp"]
EVENTS = 5
SEEN = web.AppKey("seen", list[tuple[str | None, str | None]])


def _event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return b"data: " + json.dumps({"choices": [choice]}).encode() + b"\n\n"


async def _echo(request: web.Request) -> web.StreamResponse:
    """Streams back, one event at a time with pauses, the session header and ``user`` it
    received, so each reply names the context that reached the wire."""
    body = await request.json()
    said = f"{request.headers.get('X-Session-ID')}|{body.get('user')}"
    request.app[SEEN].append((request.headers.get("X-Session-ID"), body.get("user")))
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    if request.headers.get("X-Reply") == "tools":  # a name sent in two pieces
        for piece in ("get_", "weather"):
            await resp.write(_event({"tool_calls": [
                {"index": 0, "function": {"name": piece, "arguments": "{}"}}]}))
            await asyncio.sleep(0.002)
        await resp.write(_event({}, "tool_calls") + b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp
    for k in range(EVENTS):
        await asyncio.sleep(random.uniform(0.001, 0.004))
        await resp.write(_event({"content": f"{said};{k} "}))
    await resp.write(_event({}, "stop") + b"data: [DONE]\n\n")
    await resp.write_eof()
    return resp


def with_echo(fn: Callable[[str, web.Application], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        app = web.Application()
        app[SEEN] = []
        app.router.add_post("/v1/chat/completions", _echo)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            return await fn(f"http://127.0.0.1:{port}/v1", app)
        finally:
            await runner.cleanup()

    return asyncio.run(go())


BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


class Hook:
    """An ``on_chunk`` that records every chunk it is fed."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.chunks: list[tuple[int, bytes]] = []
        self.stop_after = stop_after

    def __call__(self, t_ns: int, data: bytes) -> bool:
        self.chunks.append((t_ns, data))
        return self.stop_after is not None and len(self.chunks) >= self.stop_after

    @property
    def data(self) -> bytes:
        return b"".join(d for _, d in self.chunks)


@pytest.mark.parametrize("kind", KINDS)
def test_headers_and_user_reach_the_wire(kind: str) -> None:
    async def fn(url: str, app: web.Application) -> ChatResult:
        client = make_chat_client(url, kind=kind)
        try:
            context = render(["X-Session-ID"], "trip#7", user_field=True)
            return await client.chat(BODY, 5.0, context=context)
        finally:
            await client.aclose()

    result = with_echo(fn)
    assert result.ok, result.error
    assert result.content.startswith("trip#7|trip#7;0 ")


@pytest.mark.parametrize("kind", KINDS)
def test_no_context_sends_nothing_extra(kind: str) -> None:
    async def fn(url: str, app: web.Application) -> list[Any]:
        client = make_chat_client(url, kind=kind)
        try:
            await client.chat(BODY, 5.0)
            return app[SEEN]
        finally:
            await client.aclose()

    assert with_echo(fn) == [(None, None)]


@pytest.mark.parametrize("kind", KINDS)
def test_on_chunk_is_called_for_each_chunk(kind: str) -> None:
    hook = Hook()

    async def fn(url: str, app: web.Application) -> ChatResult:
        client = make_chat_client(url, kind=kind)
        try:
            return await client.chat(BODY, 5.0, context=RequestContext(on_chunk=hook))
        finally:
            await client.aclose()

    result = with_echo(fn)
    assert result.ok, result.error
    # every event of the reply went through the hook, stamped in arrival order, and the
    # hook saw them as they came (the pauses make them separate chunks)
    assert hook.data.count(b"data: ") == EVENTS + 2
    assert len(hook.chunks) >= EVENTS
    times = [t for t, _ in hook.chunks]
    assert times == sorted(times) and result.t_sent_ns < times[0] <= result.t_end_ns
    assert result.token_times_ns[0] in times  # the same stamps the result was built from


@pytest.mark.parametrize("kind", KINDS)
def test_on_chunk_stops_once_it_returns_true(kind: str) -> None:
    hook = Hook(stop_after=1)

    async def fn(url: str, app: web.Application) -> ChatResult:
        client = make_chat_client(url, kind=kind)
        try:
            return await client.chat(BODY, 5.0, context=RequestContext(on_chunk=hook))
        finally:
            await client.aclose()

    result = with_echo(fn)
    assert result.ok and len(result.token_times_ns) == EVENTS
    assert len(hook.chunks) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_the_tool_delta_rule_is_the_requests_own(kind: str) -> None:
    async def fn(url: str, app: web.Application) -> list[ChatResult]:
        client = make_chat_client(url, kind=kind)
        tools = (("X-Reply", "tools"),)
        try:
            return list(await asyncio.gather(
                client.chat(BODY, 5.0, context=RequestContext(tools, tool_deltas="mlperf")),
                client.chat(BODY, 5.0, context=RequestContext(tools))))
        finally:
            await client.aclose()

    mlperf, openai = with_echo(fn)
    assert [c["name"] for c in mlperf.tool_calls] == ["weather"]  # a later name overwrites
    assert [c["name"] for c in openai.tool_calls] == ["get_weather"]  # pieces joined


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_leaks_between_concurrent_requests(kind: str) -> None:
    n = 24

    async def fn(url: str, app: web.Application) -> list[tuple[ChatResult, Hook]]:
        client = make_chat_client(url, kind=kind)
        hooks = [Hook() for _ in range(n)]
        try:
            async def one(i: int) -> ChatResult:
                # half the requests carry a context, half none, interleaved on one client
                if i % 2:
                    return await client.chat(BODY, 10.0)
                context = render(["X-Session-ID"], f"s#{i}", user_field=True,
                                 base=RequestContext(on_chunk=hooks[i]))
                return await client.chat(BODY, 10.0, context=context)

            results = await asyncio.gather(*(one(i) for i in range(n)))
            return list(zip(results, hooks, strict=True))
        finally:
            await client.aclose()

    for i, (result, hook) in enumerate(with_echo(fn)):
        assert result.ok, result.error
        said = "None|None" if i % 2 else f"s#{i}|s#{i}"
        assert result.content == "".join(f"{said};{k} " for k in range(EVENTS)), i
        if i % 2:
            assert hook.chunks == []
        else:  # its own reply's bytes only
            assert hook.data.count(b"data: ") == EVENTS + 2
            assert hook.data.count(f"{said};".encode()) == EVENTS
            assert b"None|None" not in hook.data
