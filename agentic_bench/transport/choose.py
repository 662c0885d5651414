"""Pick the HTTP client: ``raw`` (default, :mod:`.raw_client`) or ``aiohttp`` (:mod:`.client`).

Both speak the same contract and produce the same records; ``raw`` timestamps chunks in the
read callback and is the measured-more-precise one (docs/transport.md). Set
``AGENTIC_BENCH_TRANSPORT=aiohttp`` to compare, or to fall back if a server's HTTP/1.1
framing trips the raw client.
"""

from __future__ import annotations

import os

from agentic_bench.errors import ConfigError
from agentic_bench.transport.aiohttp_client import AiohttpChatClient
from agentic_bench.transport.raw_client import RawChatClient

ENV_TRANSPORT = "AGENTIC_BENCH_TRANSPORT"
TRANSPORTS = ("raw", "aiohttp")
HttpChatClient = RawChatClient | AiohttpChatClient


def make_chat_client(base_url: str, api_key: str | None = None, *, kind: str | None = None,
                     max_connections: int = 0, timeout_s: float = 300.0) -> HttpChatClient:
    """A streaming chat client for ``base_url``; ``kind`` defaults to $AGENTIC_BENCH_TRANSPORT
    or ``raw``."""
    kind = kind or os.environ.get(ENV_TRANSPORT) or "raw"
    if kind == "raw":
        return RawChatClient(base_url, api_key, max_connections=max_connections,
                             timeout_s=timeout_s)
    if kind == "aiohttp":
        return AiohttpChatClient(base_url, api_key, max_connections=max_connections,
                                 timeout_s=timeout_s)
    raise ConfigError(f"{ENV_TRANSPORT}={kind!r}: expected one of {', '.join(TRANSPORTS)}")
