"""Session affinity headers (#21 item 2): names checked up front, values that cannot inject a
header line, set per session and seen by the transport."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.transport.raw_client import RawChatClient
from agentic_bench.transport.session_headers import (
    SESSION_HEADERS,
    check_names,
    render,
    with_session_headers,
)


def test_names_are_checked() -> None:
    assert check_names(["X-Session-ID", "x-session-id", "X-Affinity"]) == (
        "X-Session-ID", "X-Affinity")  # case-insensitive duplicates dropped
    for bad in ("Bad Header", "", "X:Y", "Authorization", "content-length"):
        with pytest.raises(ConfigError):
            check_names([bad])


def test_values_cannot_inject_a_header_line() -> None:
    h = render(["X-Session-ID"], "evil\r\nX-Admin: 1#0")
    assert h.raw == "X-Session-ID: evil%0D%0AX-Admin:%201#0\r\n"
    assert h.pairs == (("X-Session-ID", "evil%0D%0AX-Admin:%201#0"),)
    assert render(["A", "B"], "weather-trip#3").raw == "A: weather-trip#3\r\nB: weather-trip#3\r\n"


def test_each_session_runs_with_its_own_headers() -> None:
    seen: list[str | None] = []

    async def execute(ticket: SimpleNamespace) -> str:
        await asyncio.sleep(0)
        h = SESSION_HEADERS.get()
        seen.append(h.pairs[0][1] if h else None)
        return ticket.session_id

    wrapped = with_session_headers(execute, ["X-Session-ID"])
    assert with_session_headers(execute, []) is execute

    async def go() -> None:
        await asyncio.gather(*(wrapped(SimpleNamespace(session_id=f"s#{i}")) for i in range(3)))
        assert SESSION_HEADERS.get() is None  # reset after each session

    asyncio.run(go())
    assert sorted(seen) == ["s#0", "s#1", "s#2"]


def test_user_field_only_when_asked() -> None:
    from agentic_bench.transport.session_headers import with_user

    body = {"model": "m"}
    assert with_user(body, None) is body
    assert with_user(body, render(["X"], "s#1")) is body
    assert with_user(body, render([], "s#1", user_field=True)) == {"model": "m", "user": "s#1"}
    assert body == {"model": "m"}  # not mutated


def test_raw_client_puts_them_in_the_request_head() -> None:
    client = RawChatClient("http://127.0.0.1:9/v1")
    token = SESSION_HEADERS.set(render(["X-Session-ID"], "a#1", user_field=True))
    try:
        sent: list[bytes] = []

        async def fake_exchange(request: bytes, *_: object) -> None:
            sent.append(request)
            raise asyncio.CancelledError

        client._exchange = fake_exchange  # type: ignore[method-assign]
        with pytest.raises(asyncio.CancelledError):
            asyncio.run(client.chat({"model": "m", "messages": []}))
    finally:
        SESSION_HEADERS.reset(token)
    head = sent[0].split(b"\r\n\r\n")[0]
    assert b"\r\nX-Session-ID: a#1\r\n" in head + b"\r\n"
    assert b"Accept: text/event-stream" in head
    assert b'"user":"a#1"' in sent[0].split(b"\r\n\r\n", 1)[1]


def test_transport_chosen_by_the_run_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """#23: --transport picks the client; precedence kind > config > env > raw."""
    from agentic_bench.transport.aiohttp_client import AiohttpChatClient
    from agentic_bench.transport.choose import make_chat_client, preferred_transport

    monkeypatch.delenv("AGENTIC_BENCH_TRANSPORT", raising=False)
    url = "http://127.0.0.1:9/v1"
    assert isinstance(make_chat_client(url), RawChatClient)
    with preferred_transport("aiohttp"):
        assert isinstance(make_chat_client(url), AiohttpChatClient)
        assert isinstance(make_chat_client(url, kind="raw"), RawChatClient)
        with preferred_transport("raw"):
            assert isinstance(make_chat_client(url), RawChatClient)
        assert isinstance(make_chat_client(url), AiohttpChatClient)  # restored
    monkeypatch.setenv("AGENTIC_BENCH_TRANSPORT", "aiohttp")
    assert isinstance(make_chat_client(url), AiohttpChatClient)
    with preferred_transport("raw"):
        assert isinstance(make_chat_client(url), RawChatClient)  # config beats the env
    with pytest.raises(ConfigError), preferred_transport("http2"):
        pass
