"""The floor of ``benchmarks/agentx_scale.py``: a bare asyncio client that sends the same trees'
bodies on the same schedule, with nothing else on its path.

Every body is written and encoded, and every lane's connection opened, before the clock starts
(the same words, blocks, roles and sizes as ``agentic-bench replay`` writes: this repository's
synthesis classes, the marker's hex aside), and each lane holds one keep-alive connection
(TCP_NODELAY, the same 4 MiB send buffer as the raw client). A lane sends its tree's first
request at the start, each next one the recorded gap after the previous reply ended, the head
and body in one write; the read callback stamps each piece, and the first piece with a
``"content"`` key is the first token. Nothing is parsed until a reply ends. Per request it
writes one JSON line: ``due``, ``sent``, ``first_token``, ``end`` (perf_counter_ns) and the
simulator's ``server_timing_ns``.

    python benchmarks/agentx_scale_floor.py TRACES.weka.jsonl --url http://127.0.0.1:PORT \\
        --lanes N --out FLOOR.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import sys
from pathlib import Path
from time import perf_counter_ns
from typing import Any
from urllib.parse import urlsplit

import orjson

from agentic_bench.synthesis.blocks import BlockWriter
from agentic_bench.synthesis.conversation import SyntheticConversation
from agentic_bench.synthesis.vocabulary import word_list

SEND_BUFFER_BYTES = 4 * 1024 * 1024
TIMING = re.compile(rb'"server_timing_ns":(\{[^}]*\})')
SEED = 42  # the replay's default synthesis seed


def tree_bodies(trace: dict[str, Any], model: str, marker: str) -> tuple[list[bytes], list[float]]:
    """A Weka tree's (root conversation's) request bodies as sent, and each request's gap
    after the previous reply (end-to-start: t_k − (t_{k−1} + api_{k−1}))."""
    rows = [r for r in trace["requests"] if r.get("type") != "subagent"]
    bs = trace.get("block_size", 64)
    writer = BlockWriter(word_list(), bs, SEED, trace["id"])
    conv = SyntheticConversation(writer, bs, trace.get("tool_tokens", 0)
                                 + trace.get("system_tokens", 0), "root")
    bodies, gaps = [], []
    for k, row in enumerate(rows):
        conv.advance(row["hash_ids"], row["in"], row["out"])
        body = {"model": model, "messages": conv.messages(marker),
                "max_tokens": max(1, row["out"]), "ignore_eos": True, "stream": True,
                "stream_options": {"include_usage": True}}
        bodies.append(orjson.dumps(body))
        prev = rows[k - 1] if k else None
        gaps.append(0.0 if prev is None else
                    max(0.0, row["t"] - prev["t"] - prev.get("api_time", 0.0)))
    return bodies, gaps


class Stream(asyncio.Protocol):
    """One keep-alive connection; one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.pieces: list[tuple[int, bytes]] = []
        self.done: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)

    def data_received(self, data: bytes) -> None:
        t = perf_counter_ns()
        self.pieces.append((t, data))
        if data.endswith(b"0\r\n\r\n") and self.done is not None and not self.done.done():
            self.done.set_result(None)

    def send(self, request: bytes) -> int:
        assert self.transport is not None
        self.pieces = []
        self.done = asyncio.get_running_loop().create_future()
        t = perf_counter_ns()
        self.transport.write(request)
        return t


def lane_requests(host: str, port: int, path: str,
                  trees: list[tuple[list[bytes], list[float]]]
                  ) -> list[tuple[int, bytes, int, float]]:
    """One lane's requests, head and body, in order: (index in its tree, bytes, body size,
    gap before it)."""
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: floor\r\n"
            "Accept: text/event-stream\r\nContent-Type: application/json\r\n").encode()
    return [(k, head + b"Content-Length: %d\r\n\r\n" % len(b) + b, len(b), gaps[k])
            for bodies, gaps in trees for k, b in enumerate(bodies)]


async def lane(conn: Stream, requests: list[tuple[int, bytes, int, float]], start_ns: int,
               out: list[dict[str, Any]]) -> None:
    """One lane: its trees one after another (a tree's first request due when the last
    tree's last reply ends), each request the recorded gap after the previous reply."""
    due = start_ns
    for k, request, size, gap in requests:
        if k:
            due += int(gap * 1e9)
        delay = (due - perf_counter_ns()) / 1e9
        if delay > 0:
            await asyncio.sleep(delay)
        sent = conn.send(request)
        assert conn.done is not None
        await conn.done
        whole = b"".join(p for _, p in conn.pieces)
        first = next((t for t, p in conn.pieces if b'"content"' in p), None)
        found = TIMING.search(whole)
        end = conn.pieces[-1][0]
        out.append({"k": k, "due": due, "sent": sent, "first_token": first, "end": end,
                    "bytes": size,
                    "server_timing_ns": json.loads(found.group(1)) if found else None})
        due = end
    assert conn.transport is not None
    conn.transport.close()


async def run(traces: list[dict[str, Any]], url: str, lanes: int, model: str
              ) -> list[dict[str, Any]]:
    """Every request written and every lane's connection open before the clock starts, so
    nothing but the sends and reads is on the lanes' path (the lanes' first sends are one
    burst, as ours are)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = parts.path.rstrip("/") + "/chat/completions"
    built = [tree_bodies(t, model, f"[rid:{i:012x}]\n\n") for i, t in enumerate(traces)]
    n = min(lanes, len(built))
    requests = [lane_requests(host, port, path, built[i::lanes]) for i in range(n)]
    loop = asyncio.get_running_loop()
    conns = [c for _, c in await asyncio.gather(
        *(loop.create_connection(Stream, host, port) for _ in range(n)))]
    out: list[dict[str, Any]] = []
    start = perf_counter_ns() + 50_000_000
    await asyncio.gather(*(lane(c, r, start, out) for c, r in zip(conns, requests, strict=True)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", type=Path)
    ap.add_argument("--url", required=True, help="the simulator's /v1 URL")
    ap.add_argument("--lanes", type=int, required=True)
    ap.add_argument("--model", default="sim")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    traces = [json.loads(line) for line in args.traces.read_text().splitlines() if line]
    rows = asyncio.run(run(traces, args.url, args.lanes, args.model))
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"floor: {len(rows)} requests", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
