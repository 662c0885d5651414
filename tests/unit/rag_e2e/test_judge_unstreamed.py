"""#43 E2E-RAG item 9: the judge's requests are not streamed, as the reference posts them.

Transcription of the reference rule: mlcommons/inference b66003e1 ``e2e-rag/accuracy_eval.py``
86-105 — the payload ``{"model", "messages", "temperature": 0.0, "max_tokens": 1024}`` (no
``stream``) goes by ``requests.post(..., json=payload, timeout=60)`` and the verdict is read from
``result['choices'][0]['message']['content']`` of the whole JSON reply; anything that fails there
is a judge error, scored incorrect (124-126). Ours sent ``stream: true`` through the streaming
chat client.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from agentic_bench.tasks.rag_e2e.judge import JudgeConfig, judge_samples


class JudgeServer:
    """A one-route HTTP server answering each chat completion with ``reply`` (raw bytes) and
    keeping every request body it read."""

    def __init__(self, reply: bytes, status: int = 200) -> None:
        self.reply, self.status = reply, status
        self.bodies: list[dict[str, Any]] = []
        self.ready = threading.Event()
        self.port = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    break  # the client closed its connection
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                body = await reader.readexactly(length) if length else b""
                if body:
                    self.bodies.append(json.loads(body))
                writer.write(f"HTTP/1.1 {self.status} X\r\nContent-Type: application/json\r\n"
                             f"Content-Length: {len(self.reply)}\r\n\r\n".encode() + self.reply)
                await writer.drain()
            writer.close()

        async def start() -> None:
            server = await asyncio.start_server(handle, "127.0.0.1", 0)
            self.port = server.sockets[0].getsockname()[1]
            self.ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()

    def __enter__(self) -> JudgeServer:
        self.thread.start()
        self.ready.wait(5)
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def completion(content: Any) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}
                      ).encode()


SAMPLES = [{"question_id": "1", "gold": "Paris", "answered": True, "prediction": "Paris"}]


@pytest.mark.parametrize("transport", ["raw", "aiohttp"])
def test_the_judge_posts_without_stream_and_reads_the_whole_reply(transport: str) -> None:
    verdict = '```json\n{"correct": true, "reasoning": "same city"}\n```'
    with JudgeServer(completion(verdict)) as server:
        out = judge_samples(SAMPLES, JudgeConfig(f"http://127.0.0.1:{server.port}/v1",
                                                 model="judge", transport=transport),
                            {"1": "Capital of France?"})
    (body,) = server.bodies
    assert body["stream"] is False and "stream_options" not in body
    assert body["temperature"] == 0 and body["max_tokens"] == 1024
    assert out["correct"] == 1 and out["judge_errors"] == 0 and out["accuracy"] == 1.0


@pytest.mark.parametrize(("reply", "status", "kind"), [
    (b"data: {}\n\n", 200, "malformed"),  # an SSE stream is not the JSON reply it reads
    (completion(None), 200, "malformed"),  # content None: .strip() raises there
    (b'{"error": "overloaded"}', 503, None),
])
def test_a_reply_the_reference_cannot_read_is_a_judge_error(reply: bytes, status: int,
                                                           kind: str | None) -> None:
    with JudgeServer(reply, status) as server:
        out = judge_samples(SAMPLES, JudgeConfig(f"http://127.0.0.1:{server.port}/v1",
                                                 model="judge"), {"1": "Capital of France?"})
    assert out["judge_errors"] == 1 and out["correct"] == 0 and out["accuracy"] == 0.0
    if kind is not None:
        assert out["errors"] == {kind: 1}
