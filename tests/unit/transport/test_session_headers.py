"""Session affinity headers (#21 item 2): names checked up front, values that cannot inject a
header line, rendered once per session into its RequestContext and seen by the transport
(#32 item 4: passed explicitly, no context variables)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest

from agentic_bench.contracts import (
    ExecContext,
    SessionOutcome,
    SessionSource,
    SessionTicket,
    Workload,
)
from agentic_bench.errors import ConfigError
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.transport.raw_client import RawChatClient
from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.session_headers import check_names, render
from agentic_bench.workload import session_executor


def test_names_are_checked() -> None:
    assert check_names(["X-Session-ID", "x-session-id", "X-Affinity"]) == (
        "X-Session-ID", "X-Affinity")  # case-insensitive duplicates dropped
    for bad in ("Bad Header", "", "X:Y", "Authorization", "content-length"):
        with pytest.raises(ConfigError):
            check_names([bad])


def test_values_cannot_inject_a_header_line() -> None:
    h = render(["X-Session-ID"], "evil\r\nX-Admin: 1#0")
    assert h.header_lines == "X-Session-ID: evil%0D%0AX-Admin:%201#0\r\n"
    assert h.headers == (("X-Session-ID", "evil%0D%0AX-Admin:%201#0"),)
    assert render(["A", "B"], "weather-trip#3").header_lines == (
        "A: weather-trip#3\r\nB: weather-trip#3\r\n")


def test_render_keeps_the_base_chunk_hook() -> None:
    def hook(_t: int, _data: bytes) -> bool:
        return True

    ctx = render(["X"], "s#1", user_field=True, base=RequestContext(on_chunk=hook))
    assert ctx.on_chunk is hook and ctx.user == "s#1" and ctx.headers == (("X", "s#1"),)
    assert render(["X"], "s#1").user is None


SESSION: Any = SimpleNamespace(session_id="s")


def _workload(execute: Any) -> Workload:
    return Workload("w", SessionSource(1, lambda i: SESSION), make_executor=lambda ctx: execute)


def test_each_session_runs_with_its_own_headers() -> None:
    seen: list[tuple[str, RequestContext]] = []

    async def execute(ticket: SessionTicket) -> SessionOutcome:
        await asyncio.sleep(0)  # interleave the sessions
        seen.append((ticket.session_id, ticket.request_context))
        return SessionOutcome(ticket.session_id, "ok", 0, 0, 0, 0)

    options = ReplayOptions(model="m", session_headers=("X-Session-ID",))
    ctx = ExecContext(None, lambda rec: None, 0, options)  # type: ignore[arg-type]
    wrapped = session_executor(_workload(execute), ctx)
    plain = ExecContext(None, lambda rec: None, 0, ReplayOptions(model="m"))  # type: ignore[arg-type]
    assert session_executor(_workload(execute), plain) is execute

    async def go() -> None:
        await asyncio.gather(*(wrapped(SessionTicket(i, SESSION, 0))
                               for i in range(3)))

    asyncio.run(go())
    assert sorted((sid, c.headers) for sid, c in seen) == [
        (f"s#{i}", (("X-Session-ID", f"s#{i}"),)) for i in range(3)]


def test_user_field_only_when_asked() -> None:
    client = RawChatClient("http://127.0.0.1:9/v1")
    body = {"model": "m"}
    assert "user" not in json.loads(client.prepare(body, NO_CONTEXT))
    assert "user" not in json.loads(client.prepare(body, render(["X"], "s#1")))
    sent = json.loads(client.prepare(body, render([], "s#1", user_field=True)))
    assert sent["user"] == "s#1" and sent["stream"] is True
    assert body == {"model": "m"}  # not mutated


def test_raw_client_puts_them_in_the_request_head() -> None:
    client = RawChatClient("http://127.0.0.1:9/v1")
    sent: list[bytes] = []

    async def fake_exchange(request: bytes, *_: object) -> None:
        sent.append(request)
        raise asyncio.CancelledError

    client._exchange = fake_exchange  # type: ignore[method-assign]
    context = render(["X-Session-ID"], "a#1", user_field=True)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(client.chat({"model": "m", "messages": []}, context=context))
    head = sent[0].split(b"\r\n\r\n")[0]
    assert b"\r\nX-Session-ID: a#1\r\n" in head + b"\r\n"
    assert b"Accept: text/event-stream" in head
    assert b'"user":"a#1"' in sent[0].split(b"\r\n\r\n", 1)[1]


def test_transport_chosen_by_the_run_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """#23: --transport picks the client; precedence: kind (the run's) > env > raw."""
    from agentic_bench.transport.aiohttp_client import AiohttpChatClient
    from agentic_bench.transport.choose import make_chat_client

    monkeypatch.delenv("AGENTIC_BENCH_TRANSPORT", raising=False)
    url = "http://127.0.0.1:9/v1"
    assert isinstance(make_chat_client(url), RawChatClient)
    assert isinstance(make_chat_client(url, kind="aiohttp"), AiohttpChatClient)
    monkeypatch.setenv("AGENTIC_BENCH_TRANSPORT", "aiohttp")
    assert isinstance(make_chat_client(url), AiohttpChatClient)
    assert isinstance(make_chat_client(url, kind="raw"), RawChatClient)  # config beats the env
    with pytest.raises(ConfigError, match="--transport"):
        make_chat_client(url, kind="http2")
