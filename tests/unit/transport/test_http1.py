"""HTTP/1.1 response framing of the raw client, fed byte by byte and in random splits."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_bench.transport.http1 import Http1Connection, ResponseError

BODY = b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"


def chunked(body: bytes, sizes: list[int]) -> bytes:
    out, pos = b"", 0
    for size in sizes:
        piece = body[pos : pos + size]
        if not piece:
            break
        out += b"%x\r\n%s\r\n" % (len(piece), piece)
        pos += size
    if pos < len(body):
        out += b"%x;ext=1\r\n%s\r\n" % (len(body) - pos, body[pos:])
    return out + b"0\r\n\r\n"


HEAD_CHUNKED = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")


class FakeTransport:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def abort(self) -> None:
        self.aborted = True

    def get_extra_info(self, name: str) -> None:
        return None


def feed(raw: bytes, cuts: list[int]) -> Http1Connection:
    async def go() -> Http1Connection:
        conn = Http1Connection()
        conn.connection_made(FakeTransport())  # type: ignore[arg-type]
        conn.start(b"GET / HTTP/1.1\r\n\r\n", None)
        pos = 0
        for cut in [*sorted({c for c in cuts if 0 < c < len(raw)}), len(raw)]:
            conn.data_received(raw[pos:cut])
            pos = cut
        return conn

    return asyncio.run(go())


def body_of(conn: Http1Connection) -> bytes:
    return b"".join(p for _, p in conn.pieces)


def test_chunked_byte_by_byte() -> None:
    raw = HEAD_CHUNKED + chunked(BODY, [5, 9, 1, 30])
    conn = feed(raw, list(range(len(raw))))
    assert conn.done is not None and conn.done.done() and conn.done.exception() is None
    assert body_of(conn) == BODY
    assert conn.status == 200 and conn.keep_alive


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(1, 40), max_size=6),
       cuts=st.lists(st.integers(0, 400), max_size=12))
def test_chunked_any_split(sizes: list[int], cuts: list[int]) -> None:
    conn = feed(HEAD_CHUNKED + chunked(BODY, sizes), cuts)
    assert conn.done is not None and conn.done.done() and conn.done.exception() is None
    assert body_of(conn) == BODY


def test_each_piece_is_timestamped_in_order() -> None:
    raw = HEAD_CHUNKED + chunked(BODY, [10, 10, 10])
    conn = feed(raw, [len(HEAD_CHUNKED) + 3, len(HEAD_CHUNKED) + 20, len(HEAD_CHUNKED) + 33])
    times = [t for t, _ in conn.pieces]
    assert times == sorted(times) and len(times) >= 3
    assert conn.t_head_ns is not None and conn.t_head_ns <= times[0]


def test_content_length_and_close() -> None:
    raw = b"HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\nConnection: close\r\n\r\nnopeX"
    conn = feed(raw, [20, 60])
    assert conn.status == 404
    assert body_of(conn) == b"nopeX"
    assert not conn.keep_alive and conn.done is not None and conn.done.done()


def test_close_delimited_body_ends_with_the_connection() -> None:
    async def go() -> Http1Connection:
        conn = Http1Connection()
        conn.connection_made(FakeTransport())  # type: ignore[arg-type]
        conn.start(b"GET / HTTP/1.1\r\n\r\n", None)
        conn.data_received(b"HTTP/1.0 200 OK\r\n\r\nhello ")
        conn.data_received(b"world")
        assert conn.done is not None and not conn.done.done()
        conn.connection_lost(None)
        await conn.done
        return conn

    conn = asyncio.run(go())
    assert body_of(conn) == b"hello world" and not conn.keep_alive


def test_lost_mid_stream_keeps_pieces_and_fails() -> None:
    async def go() -> Http1Connection:
        conn = Http1Connection()
        conn.connection_made(FakeTransport())  # type: ignore[arg-type]
        conn.start(b"GET / HTTP/1.1\r\n\r\n", None)
        conn.data_received(HEAD_CHUNKED + b"5\r\nhello\r\n")
        conn.connection_lost(None)
        with pytest.raises(ConnectionResetError):
            await conn.done  # type: ignore[misc]
        return conn

    assert body_of(asyncio.run(go())) == b"hello"


@pytest.mark.parametrize("raw", [
    b"SPDY/9 200 OK\r\n\r\n",
    HEAD_CHUNKED + b"zz\r\nhello\r\n",
])
def test_broken_framing_is_a_response_error(raw: bytes) -> None:
    conn = feed(raw, [])
    assert conn.done is not None and isinstance(conn.done.exception(), ResponseError)


def test_watch_sees_pieces_until_it_returns_true() -> None:
    seen: list[bytes] = []

    def watch(t: int, data: bytes) -> bool:
        seen.append(data)
        return len(seen) == 2

    async def go() -> None:
        conn = Http1Connection()
        conn.connection_made(FakeTransport())  # type: ignore[arg-type]
        conn.start(b"GET / HTTP/1.1\r\n\r\n", watch)
        conn.data_received(HEAD_CHUNKED)
        for part in (b"a", b"b", b"c"):
            conn.data_received(b"1\r\n" + part + b"\r\n")
        conn.data_received(b"0\r\n\r\n")

    asyncio.run(go())
    assert seen == [b"a", b"b"]


def test_a_read_of_whole_chunks_takes_the_split_path_and_gives_the_walks_piece(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The common read (whole chunks, the last one included) is taken by
    ``_feed_whole_chunks``; turned off, the byte walk gives the same piece and end."""
    events = [e + b"\n\n" for e in BODY.split(b"\n\n")[:-1]]  # a chunk per event
    raw = HEAD_CHUNKED + b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events) + b"0\r\n\r\n"
    taken: list[bool] = []
    whole = Http1Connection._feed_whole_chunks

    def spy(self: Http1Connection, t: int, data: bytes) -> bool:
        taken.append(whole(self, t, data))
        return taken[-1]

    monkeypatch.setattr(Http1Connection, "_feed_whole_chunks", spy)
    fast = feed(raw, [len(HEAD_CHUNKED)])
    assert taken == [True] and len(fast.pieces) == 1 and body_of(fast) == BODY
    monkeypatch.setattr(Http1Connection, "_feed_whole_chunks", lambda *a: False)
    walked = feed(raw, [len(HEAD_CHUNKED)])
    assert [p for _, p in walked.pieces] == [p for _, p in fast.pieces]
    for conn in (fast, walked):
        assert conn.done is not None and conn.done.done() and conn.done.exception() is None


@settings(max_examples=150, deadline=None)
@given(payloads=st.lists(st.sampled_from([b"a", b"data: {}\n\n", b"x\r\ny", b"\r\n", b"0",
                                          b"\r\n0\r\n\r\n", b"zz"]), min_size=1, max_size=6),
       sizes=st.lists(st.integers(1, 9), max_size=6), cuts=st.lists(st.integers(0, 200),
                                                                     max_size=6))
def test_payloads_that_look_like_framing_are_kept_whole(payloads: list[bytes], sizes: list[int],
                                                         cuts: list[int]) -> None:
    """CRLF, "0" and a whole last-chunk inside the payload: the split path must refuse such a
    read (sizes that do not match) and the walk frame it; the body comes out unchanged."""
    body = b"".join(payloads)
    conn = feed(HEAD_CHUNKED + chunked(body, sizes), cuts)
    assert conn.done is not None and conn.done.done() and conn.done.exception() is None
    assert body_of(conn) == body


@pytest.mark.parametrize("read", [b"\r\n", b"5", b"0\r\n", b"5\r\nhello", b"\r\n\r\n"])
def test_short_reads_at_a_chunk_boundary_are_left_to_the_walk(read: bytes) -> None:
    async def go() -> bool:
        conn = Http1Connection()
        conn.connection_made(FakeTransport())  # type: ignore[arg-type]
        conn.start(b"GET / HTTP/1.1\r\n\r\n", None)
        return conn._feed_whole_chunks(0, read)

    assert asyncio.run(go()) is False
