"""A pooled keep-alive connection the server already closed is no reply: after a server dies
every idle connection may be stale at once, and a request must go on through them to a new
connection (where a dead server then refuses it: the embedded endpoint's restart wait takes
over). Before, one retry let the second stale connection fail the request (#34: a request
issued after the crash failed instead of waiting for the restart)."""

from __future__ import annotations

import asyncio

from agentic_bench.transport import make_chat_client

REPLY = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: keep-alive\r\n"
         b"Transfer-Encoding: chunked\r\n\r\n")


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


EVENTS = (b'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}\n\n'
          b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n')


def test_every_stale_idle_connection_is_passed_over() -> None:
    async def go() -> tuple[bool, int, int]:
        stale = {"on": False, "closed": 0}
        warm: set[asyncio.StreamWriter] = set()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if not stale["on"]:
                warm.add(writer)  # opened by warm_up: will be dead when first used
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if head.startswith(b"GET"):  # warm_up's GET /models
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                    await writer.drain()
                    continue
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                await reader.readexactly(length)
                if writer in warm:  # the server that opened it is gone: close, answer nothing
                    stale["closed"] += 1
                    writer.close()
                    return
                writer.write(REPLY + _chunk(EVENTS) + b"0\r\n\r\n")
                await writer.drain()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = make_chat_client(f"http://127.0.0.1:{port}/v1", kind="raw")
        try:
            await client.warm_up(3)
            stale["on"] = True
            result = await client.chat({"model": "m", "messages": []})
            return result.ok, stale["closed"], len(warm)
        finally:
            await client.aclose()
            server.close()

    ok, closed, warmed = asyncio.run(go())
    assert warmed == 3
    assert ok and closed == 3  # all three stale ones passed over, then a new connection
