"""A chat body encoded ahead of its send: :class:`PreparedBody`.

A replayer that knows a request's body before the request is due (a lane's next prompt,
written while the previous reply streams and the think time runs) asks the client to encode
it then (:func:`prepare_ahead`); at the send the client writes the ready bytes in one write,
with no encoding on the send path. A :class:`PreparedBody` is still the body's ``dict``, so a
transport that cannot use the bytes (the in-process endpoint, a test double, a wrapper) reads
it as any body; the bytes are used only by the client that encoded them, for the request
context they were encoded for (anything else is encoded afresh: the same bytes).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from agentic_bench.transport.request import NO_CONTEXT, RequestContext


class PreparedBody(dict[str, Any]):
    """A chat body (the ``dict``) with the request bytes one client encoded for one context
    (``payload``, ``owner``: that client, ``context``: that context)."""

    __slots__ = ("context", "owner", "payload")

    def __init__(self, body: dict[str, Any], payload: bytes, owner: object,
                 context: RequestContext) -> None:
        super().__init__(body)
        self.payload = payload
        self.owner = owner
        self.context = context

    def bytes_for(self, client: object, context: RequestContext) -> bytes | None:
        """The ready bytes when ``client`` encoded them for ``context``; else None."""
        if self.owner is client and self.context is context:
            return self.payload
        return None


@runtime_checkable
class Preparing(Protocol):
    """A transport that can encode a body ahead of its send (the HTTP clients)."""

    def prepare(self, body: dict[str, Any], context: RequestContext = NO_CONTEXT) -> bytes:
        ...


def prepare_ahead(transport: object, body: dict[str, Any],
                  context: RequestContext = NO_CONTEXT) -> dict[str, Any]:
    """``body`` as a :class:`PreparedBody` encoded by ``transport`` for ``context`` — or
    ``body`` itself when the transport cannot encode ahead."""
    if isinstance(transport, Preparing):
        return PreparedBody(body, transport.prepare(body, context), transport, context)
    return body


__all__ = ["PreparedBody", "Preparing", "prepare_ahead"]
