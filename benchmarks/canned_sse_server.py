"""A chat endpoint that costs next to nothing: every POST gets the same pre-built streamed reply.

For measuring a client's ceiling (#33 item 3): `agentic-bench sim` parses each request and
builds each chunk, which on one core caps it near the client under test, so the client would be
measured against the simulator. This server reads a request's head and body length, answers
`GET /v1/models` and every POST with bytes built once (HTTP/1.1 keep-alive, a chunked SSE
stream of N one-token content chunks, a usage chunk, `[DONE]`), and parses nothing else. It is a
benchmark fixture, not an endpoint to test against.

    python benchmarks/canned_sse_server.py --port 8123 [--tokens 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any


def chunked(payload: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(payload), payload)


def reply(tokens: int) -> bytes:
    events = []
    for i in range(tokens):
        doc = {"id": "c", "object": "chat.completion.chunk", "model": "canned",
               "choices": [{"index": 0, "delta": {"content": f"t{i} "}, "finish_reason": None}]}
        events.append(b"data: " + json.dumps(doc, separators=(",", ":")).encode() + b"\n\n")
    done = {"id": "c", "object": "chat.completion.chunk", "model": "canned",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    usage = {"id": "c", "object": "chat.completion.chunk", "model": "canned", "choices": [],
             "usage": {"prompt_tokens": 8, "completion_tokens": tokens,
                       "total_tokens": 8 + tokens}}
    events += [b"data: " + json.dumps(d, separators=(",", ":")).encode() + b"\n\n"
               for d in (done, usage)]
    events.append(b"data: [DONE]\n\n")
    head = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n")
    return head + b"".join(chunked(e) for e in events) + b"0\r\n\r\n"


MODELS = json.dumps({"object": "list", "data": [{"id": "canned", "object": "model"}]}).encode()
MODELS_REPLY = (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
                b"connection: keep-alive\r\n\r\n%s" % (len(MODELS), MODELS))


class Canned(asyncio.Protocol):
    def __init__(self, stream: bytes) -> None:
        self.stream = stream
        self.buffer = b""
        self.transport: Any = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # uvloop's transports are not asyncio.Transport subclasses

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].lower()
            at = head.find(b"content-length:")
            length = int(head[at + 15:head.find(b"\r\n", at) if head.find(b"\r\n", at) > 0
                              else len(head)]) if at >= 0 else 0
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length:]
            self.transport.write(MODELS_REPLY if head.startswith(b"get") else self.stream)


async def serve(port: int, tokens: int) -> None:
    stream = reply(tokens)
    server = await asyncio.get_running_loop().create_server(lambda: Canned(stream),
                                                            "127.0.0.1", port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--tokens", type=int, default=16)
    args = ap.parse_args()
    try:
        import uvloop

        uvloop.run(serve(args.port, args.tokens))
    except ImportError:
        asyncio.run(serve(args.port, args.tokens))
