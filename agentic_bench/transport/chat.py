"""The chat layer shared by both HTTP clients: body preparation and error mapping, once.

:class:`ChatClient` turns a chat body and a :class:`~.request.RequestContext` into request
bytes (``stream: true``, ``stream_options.include_usage``, the context's ``user``), hands them
to its byte-level sender (:meth:`ChatClient._send`: :class:`~.raw_client.RawChatClient` on
:mod:`.http1`, :class:`~.aiohttp_client.AiohttpChatClient` on aiohttp), and turns what comes
back — a :class:`Reply`, or a :class:`SendError` carrying the part of the reply that did
arrive — into a :class:`~.result.ChatResult` with the error types of docs/transport.md.

A sender does only bytes and timestamps: it stamps every chunk as it arrives (feeding the
context's ``on_chunk``) and raises :class:`SendError` with one of ``connect``, ``timeout``,
``disconnect`` or ``malformed``; SSE parsing (:mod:`.sse`) happens here, after the last byte.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from time import perf_counter_ns
from typing import Any

from agentic_bench.transport.http1 import Piece
from agentic_bench.transport.prepared import PreparedBody
from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.result import ChatResult, http_error_type
from agentic_bench.transport.sse import assemble_stream
from agentic_bench.transport.url import auth_headers, parse_endpoint

ERROR_EXCERPT = 600  # bytes of an HTTP error body kept in the record


@dataclass(slots=True)
class Reply:
    """What a sender got back: the response head, and the body as ``(perf_counter_ns, bytes)``
    pieces in arrival order. ``t_sent_ns``: just before the request bytes went to the socket;
    ``t_end_ns``: the end of the reply as the sender saw it."""

    t_sent_ns: int
    status: int = 0
    retry_after: str | None = None  # the Retry-After header of a 429 reply, as sent
    t_head_ns: int | None = None
    pieces: list[Piece] = field(default_factory=list)
    t_end_ns: int = 0


class SendError(Exception):
    """A sender could not complete the exchange: ``kind`` is the record's ``error_type``;
    ``reply`` is what did arrive (None: nothing, not even a head)."""

    def __init__(self, kind: str, message: str, t_sent_ns: int,
                 reply: Reply | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.t_sent_ns, self.reply = kind, message, t_sent_ns, reply


class ChatClient(ABC):
    """A streaming ``/v1/chat/completions`` client over a byte-level sender (subclasses)."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout_s: float = 300.0,
                 include_usage: bool = True, api_key_header: str | None = None) -> None:
        self.endpoint = parse_endpoint(base_url)
        self.base_url = self.endpoint.base
        self._credentials = auth_headers(self.endpoint, api_key, api_key_header)
        self.has_credentials = bool(self._credentials)
        self._timeout_s = timeout_s
        self._include_usage = include_usage

    # -- the sender's part (subclasses) -------------------------------------------------------
    @abstractmethod
    def _encode(self, body: dict[str, Any]) -> bytes:
        """The body as JSON bytes (each sender keeps its own encoder: same bytes as before)."""

    @abstractmethod
    async def _send(self, payload: bytes, context: RequestContext, timeout_s: float) -> Reply:
        """POST ``payload`` to ``/chat/completions`` with the context's headers and chunk hook;
        the whole reply, or :class:`SendError`."""

    @abstractmethod
    async def warm_up(self, connections: int) -> None:
        """Open up to ``connections`` keep-alive connections before measuring anything."""

    @abstractmethod
    async def list_models(self) -> tuple[int, Any]:
        """``GET /models``: the HTTP status and the decoded JSON (or the text)."""

    @abstractmethod
    async def aclose(self) -> None:
        """Close every connection."""

    # -- the chat layer -----------------------------------------------------------------------
    def prepare(self, body: dict[str, Any], context: RequestContext = NO_CONTEXT) -> bytes:
        """The request body as sent: streamed, with usage asked for (unless the body says
        otherwise) and the context's ``user``; ``body`` itself is not changed."""
        body = dict(body)
        body["stream"] = True
        if self._include_usage:
            body.setdefault("stream_options", {"include_usage": True})
        if context.user is not None:
            body["user"] = context.user
        return self._encode(body)

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext = NO_CONTEXT) -> ChatResult:
        """Send ``body`` streamed with ``context`` and time it; errors are results (the error
        types of docs/transport.md), never raised — except cancellation. A
        :class:`~.prepared.PreparedBody` this client encoded for ``context`` is sent as its
        ready bytes (no encoding on the send path)."""
        ready = body.bytes_for(self, context) if isinstance(body, PreparedBody) else None
        payload = self.prepare(body, context) if ready is None else ready
        timeout = timeout_s or self._timeout_s
        result = ChatResult()
        try:
            reply = await self._send(payload, context, timeout)
        except SendError as exc:
            result.t_end_ns = perf_counter_ns()
            result.t_sent_ns = exc.t_sent_ns
            return failed(result, exc, context)
        result.t_sent_ns = reply.t_sent_ns
        result.t_end_ns = reply.t_end_ns
        if take_head(result, reply):
            return result
        return assemble_stream(result, reply.pieces, context.tool_deltas)


def take_head(result: ChatResult, reply: Reply) -> bool:
    """Copy the reply's head into ``result``; True when it is an HTTP error (recorded)."""
    result.http_status = reply.status or None
    result.t_first_byte_ns = reply.t_head_ns
    if reply.status == 429:
        result.retry_after = reply.retry_after
    if reply.status >= 400:
        excerpt = b"".join(p for _, p in reply.pieces)[:ERROR_EXCERPT].decode("utf-8", "replace")
        result.fail(http_error_type(excerpt), f"HTTP {reply.status}: {excerpt}")
        return True
    return False


def failed(result: ChatResult, exc: SendError, context: RequestContext = NO_CONTEXT
           ) -> ChatResult:
    """A reply cut short: keep the tokens that did arrive, then record the error."""
    reply = exc.reply
    if reply is None:
        return result.fail(exc.kind, exc.message)
    if take_head(result, reply):
        return result
    if exc.kind == "connect":  # a library error after the head: no stream to keep
        return result.fail(exc.kind, exc.message)
    assemble_stream(result, reply.pieces, context.tool_deltas)
    message = exc.message
    if exc.kind == "disconnect":
        message = f"stream broke after {len(result.token_times_ns)} tokens: {message}"
    return result.fail(exc.kind, message)


__all__ = ["ChatClient", "Reply", "SendError"]
