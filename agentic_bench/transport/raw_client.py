"""The default transport: the byte-level sender under :class:`~.chat.ChatClient`, on
:mod:`.http1` connections.

Same chat layer as :class:`~agentic_bench.transport.aiohttp_client.AiohttpChatClient` (body
preparation and error records in :mod:`.chat`), but the chunk timestamps are taken in the
protocol's read callback instead of after a task wake-up, which is where the aiohttp client
lost precision when many streams tick together (``benchmarks/harness_throughput.py --only
precision``, docs/performance.md). Socket and framing failures become :class:`~.chat.SendError`.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from time import perf_counter_ns
from typing import Any
from urllib.parse import urlsplit

import orjson

from agentic_bench.transport.chat import ChatClient, Reply, SendError
from agentic_bench.transport.http1 import Http1Connection, ResponseError
from agentic_bench.transport.request import ChunkHook, RequestContext

ACCEPT_SSE = "Accept: text/event-stream\r\n"


def _dumps(body: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(body)
    except TypeError:  # what orjson refuses (e.g. integers over 64 bits) the stdlib writes
        return json.dumps(body).encode()


def _expire(done: asyncio.Future[None]) -> None:
    if not done.done():
        done.set_exception(TimeoutError())


class _Failed(Exception):
    def __init__(self, kind: str, message: str, conn: Http1Connection | None,
                 t_sent: int) -> None:
        super().__init__(message)
        self.kind, self.message, self.conn, self.t_sent = kind, message, conn, t_sent


def _reply(conn: Http1Connection, t_sent_ns: int) -> Reply:
    return Reply(t_sent_ns, conn.status,
                 conn.headers.get("retry-after") if conn.status == 429 else None,
                 conn.t_head_ns, conn.pieces,
                 conn.pieces[-1][0] if conn.pieces else perf_counter_ns())


class RawChatClient(ChatClient):
    """Streaming ``/v1/chat/completions`` client with nanosecond, read-callback timestamps."""

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
        parts = urlsplit(self.base_url)
        self._tls = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or (443 if self._tls else 80)
        host_header = parts.netloc
        auth = "".join(f"{name}: {value}\r\n" for name, value in self._credentials)
        self._common = (f"Host: {host_header}\r\nUser-Agent: agentic-bench\r\n"
                        f"Accept-Encoding: identity\r\nConnection: keep-alive\r\n{auth}")
        self._idle: list[Http1Connection] = []
        self._all: set[Http1Connection] = set()
        self._slots = asyncio.Semaphore(max_connections) if max_connections > 0 else None

    # -- connections --------------------------------------------------------------------------
    async def _open(self) -> Http1Connection:
        loop = asyncio.get_running_loop()
        kw: dict[str, Any] = {}
        if self._tls:
            kw = {"ssl": ssl.create_default_context(), "server_hostname": self._host}
        _, conn = await loop.create_connection(Http1Connection, self._host, self._port, **kw)
        self._all.add(conn)
        return conn

    async def _acquire(self) -> tuple[Http1Connection, bool]:
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed:
                return conn, True
            self._all.discard(conn)
        return await self._open(), False

    def _release(self, conn: Http1Connection) -> None:
        if conn.closed or not conn.keep_alive:
            conn.abort()
            self._all.discard(conn)
        else:
            self._idle.append(conn)

    def _request(self, method: str, path: str, body: bytes = b"", extra: str = "") -> bytes:
        head = f"{method} {self.endpoint.path(path)} HTTP/1.1\r\n{self._common}{extra}"
        if body or method == "POST":
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        return head.encode("latin-1") + b"\r\n" + body

    async def _exchange(self, request: bytes, timeout_s: float,
                        watch: ChunkHook | None = None) -> tuple[Http1Connection, int]:
        """Send on a pooled connection and wait for the whole response. A reused connection
        the server had already closed (no byte came back: a restarted server, an idle
        timeout) is no reply: the request goes again on the next one — every idle connection
        may be stale at once after a server died — and last on a new connection.

        Failures raise :class:`_Failed` carrying the connection (for the pieces received)."""
        attempts = len(self._idle) + 1
        for attempt in range(attempts + 1):
            try:
                conn, reused = await self._acquire()
            except OSError as exc:
                raise _Failed("connect", f"cannot connect: {exc}", None, 0) from None
            t_sent = conn.start(request, watch)
            done = conn.done
            assert done is not None
            timer = asyncio.get_running_loop().call_later(timeout_s, _expire, done)
            try:
                await done
                return conn, t_sent
            except ConnectionResetError as exc:
                self._all.discard(conn)
                if reused and conn.received == 0 and attempt < attempts:
                    continue
                raise _Failed("disconnect", str(exc), conn, t_sent) from None
            except TimeoutError:
                self._drop(conn)
                raise _Failed("timeout", f"no complete reply within {timeout_s} s", conn,
                              t_sent) from None
            except ResponseError as exc:
                self._drop(conn)
                raise _Failed("malformed", f"bad HTTP response: {exc}", conn, t_sent) from None
            except BaseException:
                self._drop(conn)  # cancelled mid-response: the connection is unusable
                raise
            finally:
                timer.cancel()
        raise AssertionError("unreachable")

    def _drop(self, conn: Http1Connection) -> None:
        conn.abort()
        self._all.discard(conn)

    # -- public API ---------------------------------------------------------------------------
    async def warm_up(self, connections: int) -> None:
        """Open up to ``connections`` keep-alive connections before measuring anything."""

        async def one() -> Http1Connection | None:
            try:
                conn = await self._open()
                conn.start(self._request("GET", "/models"), None)
                assert conn.done is not None
                await asyncio.wait_for(conn.done, 10)
                return conn
            except (OSError, TimeoutError, ResponseError):
                return None

        opened = await asyncio.gather(*(one() for _ in range(max(1, connections))))
        for conn in opened:
            if conn is not None:
                self._release(conn)

    async def list_models(self) -> tuple[int, Any]:
        try:
            conn, _ = await self._exchange(self._request("GET", "/models"), 30.0)
        except _Failed as exc:
            raise OSError(exc.message) from None
        try:
            text = b"".join(p for _, p in conn.pieces).decode("utf-8", "replace")
            try:
                return conn.status, json.loads(text)
            except json.JSONDecodeError:
                return conn.status, text
        finally:
            self._release(conn)

    def _encode(self, body: dict[str, Any]) -> bytes:
        return _dumps(body)

    async def _send(self, payload: bytes, context: RequestContext, timeout_s: float) -> Reply:
        request = self._request("POST", "/chat/completions", payload,
                                ACCEPT_SSE + context.header_lines if context.headers
                                else ACCEPT_SSE)
        if self._slots is not None:
            await self._slots.acquire()
        try:
            t_ready = perf_counter_ns()
            conn, t_sent = await self._exchange(request, timeout_s, context.on_chunk)
        except _Failed as exc:
            reply = None if exc.conn is None or exc.kind == "connect" \
                else _reply(exc.conn, exc.t_sent)
            raise SendError(exc.kind, exc.message, exc.t_sent or t_ready, reply) from None
        finally:
            if self._slots is not None:
                self._slots.release()
        try:
            return _reply(conn, t_sent)
        finally:
            self._release(conn)

    async def aclose(self) -> None:
        for conn in list(self._all):
            if conn.transport is not None:
                conn.transport.close()
        self._all.clear()
        self._idle.clear()
