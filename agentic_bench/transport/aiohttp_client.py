"""The aiohttp streaming chat client (``AGENTIC_BENCH_TRANSPORT=aiohttp``); the default is
:mod:`.raw_client`. Both satisfy :class:`~agentic_bench.transport.base.ChatTransport`.

Chosen over the openai SDK by measurement (``benchmarks/transport_overhead.py``,
``docs/transport.md``). The hot loop only timestamps raw chunks; see :mod:`.sse`.
Library exceptions are mapped to error records here, at one boundary.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from time import perf_counter_ns
from typing import Any

import aiohttp

from agentic_bench.transport.base import CHUNK_WATCH
from agentic_bench.transport.result import ChatResult, http_error_type
from agentic_bench.transport.session_headers import SESSION_HEADERS, with_user
from agentic_bench.transport.sse import assemble_stream
from agentic_bench.transport.url import auth_headers, parse_endpoint


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


class AiohttpChatClient:
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
        self.endpoint = parse_endpoint(base_url)
        self.base_url = self.endpoint.base
        self._url = self.endpoint.url("/chat/completions")
        credentials = auth_headers(self.endpoint, api_key, api_key_header)
        self.has_credentials = bool(credentials)
        self._headers = {"Content-Type": "application/json", "Accept": "text/event-stream",
                         **dict(credentials)}
        self._max_connections = max_connections
        self._timeout_s = timeout_s
        self._include_usage = include_usage
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

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None) -> ChatResult:
        body = dict(body)
        body["stream"] = True
        if self._include_usage:
            body.setdefault("stream_options", {"include_usage": True})
        affinity = SESSION_HEADERS.get()
        payload = json.dumps(with_user(body, affinity)).encode()
        timeout = aiohttp.ClientTimeout(total=timeout_s or self._timeout_s)
        result = ChatResult()
        chunks: list[tuple[int, bytes]] = []
        session = self._client()
        headers = dict(affinity.pairs) if affinity else None
        result.t_sent_ns = perf_counter_ns()
        try:
            async with session.post(self._url, data=payload, timeout=timeout,
                                    headers=headers) as resp:
                result.t_first_byte_ns = perf_counter_ns()
                result.http_status = resp.status
                if resp.status == 429:
                    result.retry_after = resp.headers.get("Retry-After")
                if resp.status >= 400:
                    excerpt = (await resp.content.read(600)).decode("utf-8", "replace")
                    result.t_end_ns = perf_counter_ns()
                    return result.fail(http_error_type(excerpt), f"HTTP {resp.status}: {excerpt}")
                append = chunks.append
                read = resp.content.readany
                watch = CHUNK_WATCH.get()
                if watch is None or await _read_watched(read, append, watch):
                    while True:
                        data = await read()
                        if not data:
                            break
                        append((perf_counter_ns(), data))
            result.t_end_ns = perf_counter_ns()
        except TimeoutError:
            result.t_end_ns = perf_counter_ns()
            assemble_stream(result, chunks)
            return result.fail("timeout", f"no complete reply within {timeout.total} s")
        except aiohttp.ClientConnectorError as exc:
            result.t_end_ns = perf_counter_ns()
            return result.fail("connect", f"cannot connect: {exc.os_error or exc}")
        except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError) as exc:
            result.t_end_ns = perf_counter_ns()
            assemble_stream(result, chunks)
            got = len(result.token_times_ns)
            return result.fail("disconnect", f"stream broke after {got} tokens: {exc}")
        except aiohttp.ClientError as exc:
            result.t_end_ns = perf_counter_ns()
            return result.fail("connect", f"{type(exc).__name__}: {exc}")
        return assemble_stream(result, chunks)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
