"""Pick the HTTP client: ``raw`` (default, :mod:`.raw_client`) or ``aiohttp``
(:mod:`.aiohttp_client`).

Both speak the same contract and produce the same records; ``raw`` timestamps chunks in the
read callback and is the measured-more-precise one (docs/transport.md). A run chooses with
``--transport aiohttp`` (its config, passed as ``kind`` by whatever makes a client for the run)
or the ``AGENTIC_BENCH_TRANSPORT`` environment variable, to compare, or to fall back if a
server's HTTP/1.1 framing trips the raw client. Order: an explicit ``kind``, the environment
variable, ``raw``.
"""

from __future__ import annotations

import os

from agentic_bench.errors import ConfigError
from agentic_bench.transport.aiohttp_client import AiohttpChatClient
from agentic_bench.transport.raw_client import RawChatClient

ENV_TRANSPORT = "AGENTIC_BENCH_TRANSPORT"
TRANSPORTS = ("raw", "aiohttp")
HttpChatClient = RawChatClient | AiohttpChatClient


def check_kind(kind: str, where: str) -> str:
    """``kind`` when it names a client, else a :class:`ConfigError` saying ``where``."""
    if kind not in TRANSPORTS:
        raise ConfigError(f"{where}={kind!r}: expected one of {', '.join(TRANSPORTS)}")
    return kind


def make_chat_client(base_url: str, api_key: str | None = None, *, kind: str | None = None,
                     max_connections: int = 0, timeout_s: float = 300.0,
                     api_key_header: str | None = None) -> HttpChatClient:
    """A streaming chat client for ``base_url`` (its query kept on every request, its
    ``user:password`` sent as Basic auth); ``kind``: the run's ``--transport``, None:
    $AGENTIC_BENCH_TRANSPORT, then ``raw``; ``api_key_header``: send the key in this header
    instead of ``Authorization: Bearer``."""
    if kind is not None:
        check_kind(kind, "--transport")
    kind = kind or os.environ.get(ENV_TRANSPORT) or "raw"
    if kind == "raw":
        return RawChatClient(base_url, api_key, max_connections=max_connections,
                             timeout_s=timeout_s, api_key_header=api_key_header)
    check_kind(kind, ENV_TRANSPORT)  # only the environment variable can hold another value
    return AiohttpChatClient(base_url, api_key, max_connections=max_connections,
                             timeout_s=timeout_s, api_key_header=api_key_header)
