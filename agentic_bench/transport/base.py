"""The transport contract: what the harness needs of a chat client, and the per-task hooks.

Both clients (:mod:`.raw_client`, the default, and :mod:`.aiohttp_client`), the in-process
endpoint and test doubles satisfy :class:`ChatTransport`; everything above the transport
depends on this module only.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, Protocol

from agentic_bench.transport.result import ChatResult

# Per-task hook: fed (perf_counter_ns, raw bytes) for each chunk until it returns True. The
# LoadGen adapter sets it per session to report first tokens as they arrive (docs/loadgen.md).
CHUNK_WATCH: ContextVar[Callable[[int, bytes], bool] | None] = ContextVar(
    "chunk_watch", default=None)


class ChatTransport(Protocol):
    """Anything that can run one streamed chat completion and time it."""

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None) -> ChatResult: ...

    async def aclose(self) -> None: ...
