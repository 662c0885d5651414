"""#46 item 2: a body encoded ahead of its send (``PreparedBody``) goes as its ready bytes only
from the client that encoded it and for the context it was encoded for; anywhere else it is
a plain body, encoded afresh to the same bytes."""

from __future__ import annotations

from typing import Any

from agentic_bench.transport import AiohttpChatClient, RawChatClient, RequestContext
from agentic_bench.transport.prepared import PreparedBody, prepare_ahead

BODY: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi " * 50}],
                        "max_tokens": 4}


def test_ready_bytes_are_the_fresh_encode_and_serve_only_their_client_and_context() -> None:
    raw = RawChatClient("http://127.0.0.1:9/v1")
    other = RawChatClient("http://127.0.0.1:9/v1")
    context = RequestContext(headers=(("X-Session-ID", "s"),))
    prepared = prepare_ahead(raw, BODY, context)
    assert isinstance(prepared, PreparedBody) and dict(prepared) == BODY
    assert prepared.payload == raw.prepare(BODY, context)
    assert prepared.bytes_for(raw, context) == prepared.payload
    assert prepared.bytes_for(other, context) is None
    assert prepared.bytes_for(raw, RequestContext(headers=(("X-Session-ID", "s"),))) is None
    # a client that did not encode it reads it as the body it is
    assert other.prepare(prepared, context) == prepared.payload
    aio = AiohttpChatClient("http://127.0.0.1:9/v1")
    assert aio.prepare(prepared, context) == aio.prepare(BODY, context)


def test_a_transport_that_cannot_encode_ahead_keeps_the_body() -> None:
    class Plain:
        async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                       context: RequestContext | None = None) -> None:
            return None

    assert prepare_ahead(Plain(), BODY) is BODY
