"""A minimal HTTP/1.1 client connection on ``asyncio.Protocol``, built for timing streams.

Every ``data_received`` call is stamped with ``perf_counter_ns()`` *first*, in the event
loop's read callback, before any other work: no task has to be woken per chunk (the awaiting
coroutine wakes once, when the response is complete), so 64 streams whose chunks land in the
same millisecond are each dated by their own arrival, not by their place in a queue of task
wake-ups. The only per-chunk work is the ``Transfer-Encoding: chunked`` framing (a length
read); SSE and JSON parsing happen after the stream ends (:mod:`.sse`).

Supported: keep-alive, ``Content-Length``, chunked and close-delimited bodies, TLS through
``loop.create_connection(ssl=...)``. Not supported (not needed by chat endpoints): pipelining,
``100-continue``, compressed bodies (``Accept-Encoding: identity`` is sent).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from time import perf_counter_ns

MAX_HEAD = 64 * 1024
# the socket's send buffer: a whole ~400 kB agent prompt goes to the kernel in the one write
# (the rest would wait in the event loop's buffer for its next turns); the kernel caps it at
# net.core.wmem_max
SEND_BUFFER_BYTES = 4 * 1024 * 1024

Piece = tuple[int, bytes]


class ResponseError(Exception):
    """The server broke HTTP/1.1 framing (bad status line, bad chunk size, oversize head)."""


class Http1Connection(asyncio.Protocol):
    """One keep-alive connection; one request in flight at a time.

    After :meth:`start` the response's body pieces accumulate in ``pieces`` as
    ``(perf_counter_ns, bytes)``; ``done`` resolves when the response ends (or the connection
    is lost / the framing is broken, with the exception set).
    """

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._reset()

    # -- per-response state -------------------------------------------------------------------
    def _reset(self) -> None:
        self.status = 0
        self.headers: dict[str, str] = {}
        self.t_head_ns: int | None = None
        self.pieces: list[Piece] = []
        self.received = 0
        self.watch: Callable[[int, bytes], bool] | None = None
        self.done: asyncio.Future[None] | None = None
        self._head = b""
        self._in_head = True
        self._mode = ""  # "length" | "chunked" | "eof"
        self._left = 0  # length mode: body bytes left; chunked: chunk bytes + CRLF left
        self._line = b""  # chunked: partial size/trailer line
        self._trailer = False
        self._finish_after = False
        self.keep_alive = True

    def start(self, request: bytes, watch: Callable[[int, bytes], bool] | None) -> int:
        """Send ``request``; return its ``perf_counter_ns`` send time."""
        assert self.transport is not None
        self._reset()
        self.watch = watch
        self.done = asyncio.get_running_loop().create_future()
        t = perf_counter_ns()
        self.transport.write(request)
        return t

    # -- asyncio.Protocol ---------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        sock = transport.get_extra_info("socket")
        if sock is not None:
            import socket

            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) < SEND_BUFFER_BYTES:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
            except OSError:
                pass

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.done is not None and not self.done.done():
            if self._mode == "eof" and not self._in_head:
                self.done.set_result(None)
            else:
                self.done.set_exception(ConnectionResetError(
                    f"connection closed by the server{f': {exc}' if exc else ''}"))

    def data_received(self, data: bytes) -> None:
        t = perf_counter_ns()
        if self.done is None or self.done.done():
            return  # bytes outside a response: ignored (the connection is not reused)
        self.received += len(data)
        try:
            if self._in_head:
                data = self._feed_head(t, data)
                if self._in_head or not data:
                    return
            if self._mode == "chunked":
                self._feed_chunked(t, data)
            elif self._mode == "length":
                take = data[: self._left]
                self._left -= len(take)
                self._piece(t, take)
                if self._left <= 0:
                    self._finish()
            else:
                self._piece(t, data)
        except ResponseError as exc:
            self.keep_alive = False
            if not self.done.done():
                self.done.set_exception(exc)

    # -- parsing ------------------------------------------------------------------------------
    def _piece(self, t: int, data: bytes) -> None:
        if data:
            self.pieces.append((t, data))
            if self.watch is not None and self.watch(t, data):
                self.watch = None

    def _feed_head(self, t: int, data: bytes) -> bytes:
        self._head += data
        end = self._head.find(b"\r\n\r\n")
        if end < 0:
            if len(self._head) > MAX_HEAD:
                raise ResponseError("response head over 64 KiB")
            return b""
        self.t_head_ns = t
        lines = self._head[:end].decode("latin-1").split("\r\n")
        rest = self._head[end + 4 :]
        self._head = b""
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ResponseError(f"bad status line {lines[0][:80]!r}")
        self.status = int(parts[1])
        for line in lines[1:]:
            key, _, value = line.partition(":")
            self.headers[key.strip().lower()] = value.strip()
        self.keep_alive = (parts[0] != "HTTP/1.0"
                           and self.headers.get("connection", "").lower() != "close")
        self._in_head = False
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            self._mode = "chunked"
        elif "content-length" in self.headers:
            try:
                self._left = int(self.headers["content-length"])
            except ValueError:
                raise ResponseError("bad Content-Length") from None
            self._mode = "length"
            if self._left == 0:
                self._finish()
                return b""
        else:
            self._mode = "eof"
            self.keep_alive = False
        return rest

    def _feed_whole_chunks(self, t: int, data: bytes) -> bool:
        """The common read, taken in a few C-level calls: it starts at a chunk boundary and
        holds only whole chunks (sizes in plain hex, payloads free of CRLF), possibly ending
        with the last chunk and an empty trailer. False (nothing consumed): anything else,
        for :meth:`_feed_chunked`'s byte-exact walk."""
        parts = data.split(b"\r\n")
        if len(parts) < 3 or len(parts) % 2 == 0 or parts[-1]:
            return False
        sizes = parts[0:-1:2]
        payloads = parts[1:-1:2]
        last = sizes[-1] == b"0"
        if last:  # "0", then the empty line that ends a trailer-less message
            if payloads[-1]:
                return False
            del sizes[-1], payloads[-1]
        try:
            if list(map(len, payloads)) != [int(s, 16) for s in sizes] or b"" in payloads:
                return False
        except ValueError:  # an extension (";"), a bad size: the walk says which
            return False
        if payloads:
            self._piece(t, payloads[0] if len(payloads) == 1 else b"".join(payloads))
        if last:
            self._finish()
        return True

    def _feed_chunked(self, t: int, data: bytes) -> None:
        """Strip the chunk framing; the payload of one read becomes one timed piece.

        ``_left`` counts the current chunk's data *plus* its closing CRLF, so each chunk
        costs two turns of the loop (size line, data)."""
        if (not self._left and not self._line and not self._trailer
                and self._feed_whole_chunks(t, data)):
            return
        out: list[bytes] = []
        pos, n = 0, len(data)
        try:
            while pos < n:
                left = self._left
                if left:
                    end = pos + left if pos + left < n else n
                    if left > 2:
                        out.append(data[pos : min(end, pos + left - 2)])
                    self._left = left - (end - pos)
                    pos = end
                    continue
                nl = data.find(b"\n", pos)
                if nl < 0:
                    self._line += data[pos:]
                    if len(self._line) > 4096:
                        raise ResponseError("chunk-size line too long")
                    return
                line = data[pos:nl]
                if self._line:
                    line, self._line = self._line + line, b""
                pos = nl + 1
                if self._trailer:
                    if not line.strip():
                        self._finish_after = True
                        return
                    continue
                if b";" in line:
                    line = line.split(b";", 1)[0]
                try:
                    size = int(line, 16)
                except ValueError:
                    raise ResponseError(f"bad chunk size line {line[:40]!r}") from None
                if size == 0:
                    self._trailer = True
                elif size < 0:
                    raise ResponseError(f"bad chunk size line {line[:40]!r}")
                else:
                    self._left = size + 2
        finally:
            if out:
                self._piece(t, out[0] if len(out) == 1 else b"".join(out))
            if self._finish_after:
                self._finish()

    def _finish(self) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_result(None)

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()
