"""The aiohttp streaming chat client (``--transport aiohttp``); the default is
:mod:`.raw_client`. Both are the chat layer of :mod:`.chat` over their own byte-level sender.

Chosen over the openai SDK by measurement (``benchmarks/transport_overhead.py``,
``docs/transport.md``). The hot loop only timestamps raw chunks; see :mod:`.sse`. aiohttp's
exceptions become :class:`~.chat.SendError` here; the error records are made in :mod:`.chat`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from time import perf_counter_ns
from typing import Any

import aiohttp

from agentic_bench.transport.chat import ERROR_EXCERPT, ChatClient, Reply, SendError
from agentic_bench.transport.request import RequestContext


async def _read_watched(read: Callable[[], Awaitable[bytes]],
                        append: Callable[[tuple[int, bytes]], None],
                        watch: Callable[[int, bytes], bool]) -> bool:
    """Read chunks, feeding ``watch`` until it returns True (True) or the stream ends (False)."""
    while True:
        data = await read()
        if not data:
            return False
        t = perf_counter_ns()
        append((t, data))
        if watch(t, data):
            return True


class AiohttpChatClient(ChatClient):
    """Streaming ``/v1/chat/completions`` client with nanosecond timestamps."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        max_connections: int = 0,
        timeout_s: float = 300.0,
        include_usage: bool = True,
        api_key_header: str | None = None,
    ) -> None:
        super().__init__(base_url, api_key, timeout_s, include_usage, api_key_header)
        self._url = self.endpoint.url("/chat/completions")
        self._headers = {"Content-Type": "application/json", "Accept": "text/event-stream",
                         **dict(self._credentials)}
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=self._max_connections, ttl_dns_cache=None, keepalive_timeout=60
            )
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, auto_decompress=False,
                read_bufsize=1 << 16,
            )
        return self._session

    async def warm_up(self, connections: int) -> None:
        """Open up to ``connections`` keep-alive connections before measuring anything."""
        session = self._client()

        async def one() -> None:
            try:
                async with session.get(self.endpoint.url("/models")) as resp:
                    await resp.read()
            except (TimeoutError, aiohttp.ClientError):
                pass

        await asyncio.gather(*(one() for _ in range(max(1, connections))))

    async def list_models(self) -> tuple[int, Any]:
        async with self._client().get(self.endpoint.url("/models")) as resp:
            text = await resp.text()
            try:
                return resp.status, json.loads(text)
            except json.JSONDecodeError:
                return resp.status, text

    def _encode(self, body: dict[str, Any]) -> bytes:
        return json.dumps(body).encode()

    async def _send(self, payload: bytes, context: RequestContext, timeout_s: float) -> Reply:
        timeout = aiohttp.ClientTimeout(total=timeout_s)
        session = self._client()
        headers = dict(context.headers) if context.headers else None
        reply = Reply(perf_counter_ns())
        chunks = reply.pieces
        try:
            async with session.post(self._url, data=payload, timeout=timeout,
                                    headers=headers) as resp:
                reply.t_head_ns = perf_counter_ns()
                reply.status = resp.status
                if resp.status == 429:
                    reply.retry_after = resp.headers.get("Retry-After")
                if resp.status >= 400:
                    excerpt = await resp.content.read(ERROR_EXCERPT)
                    reply.t_end_ns = perf_counter_ns()
                    chunks.append((reply.t_end_ns, excerpt))
                    return reply
                append = chunks.append
                read = resp.content.readany
                watch = context.on_chunk
                if watch is None or await _read_watched(read, append, watch):
                    while True:
                        data = await read()
                        if not data:
                            break
                        append((perf_counter_ns(), data))
            reply.t_end_ns = perf_counter_ns()
            return reply
        except TimeoutError:
            raise SendError("timeout", f"no complete reply within {timeout.total} s",
                            reply.t_sent_ns, reply) from None
        except aiohttp.ClientConnectorError as exc:
            raise SendError("connect", f"cannot connect: {exc.os_error or exc}",
                            reply.t_sent_ns) from None
        except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError) as exc:
            raise SendError("disconnect", str(exc), reply.t_sent_ns, reply) from None
        except aiohttp.ClientError as exc:
            raise SendError("connect", f"{type(exc).__name__}: {exc}", reply.t_sent_ns,
                            reply if reply.status else None) from None

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
