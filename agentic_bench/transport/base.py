"""The transport contract: what the harness needs of a chat client.

Both clients (:mod:`.raw_client`, the default, and :mod:`.aiohttp_client`), the in-process
endpoint and test doubles satisfy :class:`ChatTransport`; everything above the transport
depends on this module (and :mod:`.request`, the per-request context) only.
"""

from __future__ import annotations

from typing import Any, Protocol

from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.result import ChatResult


class ChatTransport(Protocol):
    """Anything that can run one streamed chat completion and time it.

    ``context`` carries what this one request adds (affinity headers, the ``user`` field, a
    chunk hook, the tool-call delta rule); a transport without HTTP (the in-process
    endpoint) ignores the headers, and one that cannot see chunks arrive ignores
    ``on_chunk``. Wrappers pass it on unchanged."""

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext = NO_CONTEXT) -> ChatResult:
        """Send ``body`` streamed; the timed result (errors are results, never raised)."""
        ...

    async def aclose(self) -> None:
        """Release what the transport holds (connections, a server)."""
        ...


__all__ = ["ChatTransport"]
