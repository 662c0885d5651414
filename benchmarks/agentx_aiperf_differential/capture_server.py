#!/usr/bin/env python3
"""Tiny OpenAI-compatible capture server (aiohttp).

Endpoints:
  GET  /v1/models              -> list with the configured model name(s)
  POST /v1/chat/completions    -> streaming (SSE) or non-streaming
  POST /v1/completions         -> same, prompt-based (minimal)
  GET  /health, /metrics       -> trivial (aiperf probes /metrics by default)

Every POST is appended as one JSON line to --log:
  {"seq", "t" (time.perf_counter at arrival), "wall" (time.time),
   "path", "headers_of_interest", "headers" (all), "body" (full JSON body)}

Response: max_tokens (or max_completion_tokens, default 16) one-word chunks,
then (streaming) a usage chunk with prompt_tokens = whitespace word count of
all message contents, completion_tokens = number of chunks.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid

from aiohttp import web

INTEREST = (
    "X-Session-ID",
    "X-Dynamo-Session-ID",
    "X-Dynamo-Parent-Session-ID",
    "X-SMG-Routing-Key",
    "X-Correlation-ID",
    "X-Request-ID",
    "Authorization",
)


def _content_text(content) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        out = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append(part["text"])
        return " ".join(out)
    return str(content)


def _prompt_words(body: dict) -> int:
    if "messages" in body:
        return sum(
            len(_content_text(m.get("content")).split())
            for m in body.get("messages") or []
            if isinstance(m, dict)
        )
    p = body.get("prompt", "")
    if isinstance(p, list):
        p = " ".join(str(x) for x in p)
    return len(str(p).split())


class Capture:
    def __init__(self, log_path: str, models: list[str], delay: float):
        self.log = open(log_path, "a", buffering=1)
        self.models = models
        self.delay = delay
        self.seq = 0

    def record(self, request: web.Request, body) -> int:
        self.seq += 1
        hdrs = {k: v for k, v in request.headers.items()}
        interest = {}
        lower = {k.lower(): v for k, v in hdrs.items()}
        for h in INTEREST:
            if h.lower() in lower:
                interest[h] = lower[h.lower()]
        rec = {
            "seq": self.seq,
            "t": time.perf_counter(),
            "wall": time.time(),
            "path": request.path,
            "headers_of_interest": interest,
            "headers": hdrs,
            "body": body,
        }
        self.log.write(json.dumps(rec, ensure_ascii=False) + "\n")
        return self.seq

    async def models_handler(self, request: web.Request) -> web.Response:
        now = int(time.time())
        return web.json_response(
            {
                "object": "list",
                "data": [
                    {"id": m, "object": "model", "created": now, "owned_by": "capture"}
                    for m in self.models
                ],
            }
        )

    async def health(self, request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def metrics(self, request: web.Request) -> web.Response:
        return web.Response(text="# capture server: no metrics\n",
                            content_type="text/plain")

    async def chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except Exception:
            body = {"_raw": raw.decode("utf-8", "replace")}
        self.record(request, body)
        if not isinstance(body, dict):
            body = {}
        is_chat = request.path.endswith("/chat/completions")
        n = body.get("max_completion_tokens") or body.get("max_tokens") or 16
        try:
            n = max(1, int(n))
        except Exception:
            n = 16
        model = body.get("model") or (self.models[0] if self.models else "model")
        prompt_tokens = _prompt_words(body)
        rid = ("chatcmpl-" if is_chat else "cmpl-") + uuid.uuid4().hex[:16]
        created = int(time.time())
        obj = "chat.completion" if is_chat else "text_completion"
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": n,
            "total_tokens": prompt_tokens + n,
        }
        if not body.get("stream"):
            text = " ".join(["the"] * n)
            if is_chat:
                choice = {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "length",
                }
            else:
                choice = {"index": 0, "text": text, "finish_reason": "length"}
            return web.json_response(
                {"id": rid, "object": obj, "created": created, "model": model,
                 "choices": [choice], "usage": usage}
            )

        resp = web.StreamResponse(
            status=200,
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
        )
        await resp.prepare(request)
        chunk_obj = "chat.completion.chunk" if is_chat else "text_completion"

        async def send(payload):
            await resp.write(b"data: " + json.dumps(payload).encode() + b"\n\n")

        if is_chat:
            await send({"id": rid, "object": chunk_obj, "created": created, "model": model,
                        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                     "finish_reason": None}]})
        for i in range(n):
            word = "the " if i < n - 1 else "the"
            if is_chat:
                ch = {"index": 0, "delta": {"content": word},
                      "finish_reason": "length" if i == n - 1 else None}
            else:
                ch = {"index": 0, "text": word,
                      "finish_reason": "length" if i == n - 1 else None}
            await send({"id": rid, "object": chunk_obj, "created": created,
                        "model": model, "choices": [ch]})
            if self.delay:
                await asyncio.sleep(self.delay)
        await send({"id": rid, "object": chunk_obj, "created": created, "model": model,
                    "choices": [], "usage": usage})
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--log", required=True)
    ap.add_argument("--model", action="append", default=None,
                    help="model id(s) for /v1/models (repeatable)")
    ap.add_argument("--token-delay", type=float, default=0.0,
                    help="seconds to sleep between streamed chunks")
    a = ap.parse_args()
    cap = Capture(a.log, a.model or ["test-model"], a.token_delay)
    app = web.Application(client_max_size=256 * 1024 * 1024)
    app.router.add_get("/v1/models", cap.models_handler)
    app.router.add_get("/health", cap.health)
    app.router.add_get("/metrics", cap.metrics)
    app.router.add_post("/v1/chat/completions", cap.chat)
    app.router.add_post("/v1/completions", cap.chat)
    web.run_app(app, host=a.host, port=a.port, access_log=None, print=None)


if __name__ == "__main__":
    main()
