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
# Per-task rule for assembling streamed tool-call deltas: "openai" (a name sent in pieces is
# joined; a delta without ``index`` takes its position) or "mlperf" (mlcommons/endpoints
# ea332753 core/types.py merge_tool_calls 87-110: a later name overwrites, a missing index is
# 0). Agentic Edge's MLPerf phases set "mlperf".
TOOL_DELTA_RULES: ContextVar[str] = ContextVar("tool_delta_rules", default="openai")


class ChatTransport(Protocol):
    """Anything that can run one streamed chat completion and time it."""

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None) -> ChatResult: ...

    async def aclose(self) -> None: ...
