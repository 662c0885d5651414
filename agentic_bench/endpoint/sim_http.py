"""A minimal HTTP/1.1 server protocol for the latency simulator (keep-alive, chunked replies).

Hand-written on ``asyncio.Protocol`` so the simulator costs little CPU per streamed token
and is never the bottleneck of a measurement.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter_ns

MAX_HEADER = 64 * 1024
MAX_BODY = 64 * 1024 * 1024


@dataclass
class Request:
    method: str
    path: str  # without the query
    headers: dict[str, str]
    body: bytes
    query: str = ""
    # perf_counter_ns of the reads that brought the request's first and last bytes
    t_first_byte_ns: int = 0
    t_last_byte_ns: int = 0


class HttpConnection(asyncio.Protocol):
    """Parses requests one at a time and hands each to ``handler(conn, request)``.

    The handler must eventually call :meth:`finish` (after :meth:`send_json` or a streamed
    reply ended with :meth:`chunks` ``end=True``) so the next pipelined request can be served.
    """

    def __init__(self, handler: Callable[[HttpConnection, Request], None]) -> None:
        self.handler = handler
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.busy = False
        self.closed = False
        self.t_first_ns = 0  # the read that began the request now in the buffer
        self.t_last_ns = 0  # the latest read

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        sock = transport.get_extra_info("socket")
        if sock is not None:
            import socket

            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True

    def data_received(self, data: bytes) -> None:
        t = perf_counter_ns()
        if not self.buf:
            self.t_first_ns = t
        self.t_last_ns = t
        self.buf += data
        if not self.busy:
            self._next()

    def _next(self) -> None:
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            if len(self.buf) > MAX_HEADER:
                self.send_json(431, b'{"error":"headers too large"}', close=True)
            return
        head = self.buf[:end].decode("latin-1").split("\r\n")
        try:
            method, path, _ = head[0].split(" ", 2)
        except ValueError:
            self.send_json(400, b'{"error":"bad request line"}', close=True)
            return
        headers = {}
        for line in head[1:]:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        if length > MAX_BODY:
            self.send_json(413, b'{"error":"body too large"}', close=True)
            return
        if len(self.buf) < end + 4 + length:
            return
        body = self.buf[end + 4 : end + 4 + length]
        self.buf = self.buf[end + 4 + length :]
        self.busy = True
        route, _, query = path.partition("?")
        request = Request(method, route, headers, body, query, self.t_first_ns, self.t_last_ns)
        self.t_first_ns = self.t_last_ns  # a pipelined request behind it: its bytes are here
        self.handler(self, request)

    def finish(self) -> None:
        self.busy = False
        if self.buf and not self.closed:
            self._next()

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.closed:
            self.transport.write(data)

    def send_json(self, status: int, body: bytes, close: bool = False,
                  content_type: str = "application/json") -> None:
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 401: "Unauthorized",
                  500: "Internal Server Error"}.get(status, "Error")
        conn = "close" if close else "keep-alive"
        self.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n"
                   f"Content-Length: {len(body)}\r\nConnection: {conn}\r\n\r\n".encode() + body)
        if close:
            self.abort(graceful=True)
        else:
            self.finish()

    def start_chunked(self, content_type: str = "text/event-stream", send: bool = True) -> bytes:
        """The head of a chunked reply, written now (``send=False``: only returned, for the
        caller to send before its first chunks)."""
        head = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
                "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
        if send:
            self.write(head)
        return head

    def chunks(self, datas: list[bytes], end: bool = False, head: bytes = b"") -> None:
        """Each of ``datas`` as its own chunk, after ``head`` (not yet sent), in one write;
        ``end``: then the last chunk, and the response is finished."""
        framed = head + b"".join(b"%x\r\n%s\r\n" % (len(data), data) for data in datas)
        if end:
            self.write(framed + b"0\r\n\r\n")
            self.finish()
        elif framed:
            self.write(framed)

    def abort(self, graceful: bool = False) -> None:
        if self.transport is not None and not self.closed:
            if graceful:
                self.transport.close()
            else:
                self.transport.abort()
        self.closed = True
