"""Turn the raw byte chunks of an SSE chat stream into a :class:`ChatResult`.

The hot loop in the client only appends ``(perf_counter_ns, bytes)`` pairs; all parsing
happens here, after the stream ends, so JSON decoding never delays a timestamp. An event
that spans two network chunks is dated by the chunk that completes it.
"""

from __future__ import annotations

import json
from typing import Any

from agentic_bench.transport.result import ChatResult


def _events(chunks: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """Split timed chunks into (time, data payload) per SSE ``data:`` line."""
    out: list[tuple[int, bytes]] = []
    buf = b""
    for t, data in chunks:
        buf += data
        if b"\n" not in data:
            continue
        lines = buf.split(b"\n")
        buf = lines.pop()
        for line in lines:
            line = line.rstrip(b"\r")
            if line.startswith(b"data:"):
                out.append((t, line[5:].strip()))
    if buf.strip().startswith(b"data:") and chunks:
        out.append((chunks[-1][0], buf.strip()[5:].strip()))
    return out


_BAD = object()


def _decoded(events: list[tuple[int, bytes]]) -> list[tuple[int, bytes, Any]]:
    """Decode every event payload; one ``json.loads`` over the whole stream when it parses
    (several times faster than one call per event), per event otherwise."""
    body = [p for _, p in events if p and p != b"[DONE]"]
    try:
        values = json.loads(b"[" + b",".join(body) + b"]")
        if len(values) != len(body):  # a payload like `1,2` would shift the rest
            raise ValueError("payload count mismatch")
        decoded = iter(values)
        return [(t, p, None if p == b"[DONE]" else next(decoded))
                for t, p in events if p]
    except (ValueError, UnicodeDecodeError):
        out: list[tuple[int, bytes, Any]] = []
        for t, p in events:
            if not p:
                continue
            if p == b"[DONE]":
                out.append((t, p, None))
                continue
            try:
                out.append((t, p, json.loads(p)))
            except (json.JSONDecodeError, UnicodeDecodeError):
                out.append((t, p, _BAD))
        return out


def _merge_tool_delta(calls: dict[int, dict[str, Any]], delta: list[dict[str, Any]]) -> None:
    for pos, tc in enumerate(delta):
        index = tc.get("index", pos)
        slot = calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
        if tc.get("id"):
            slot["id"] = tc["id"]
        fn = tc.get("function") or {}
        if fn.get("name"):
            slot["name"] += fn["name"]
        if fn.get("arguments"):
            slot["arguments"] += fn["arguments"]


def assemble_stream(result: ChatResult, chunks: list[tuple[int, bytes]]) -> ChatResult:
    """Fill ``result`` from the timed chunks; mark it malformed/disconnected when needed."""
    result.chunks = len(chunks)
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    done = False
    for t, payload, event in _decoded(_events(chunks)):
        if payload == b"[DONE]":
            done = True
            break
        if event is _BAD:
            result.fail("malformed", f"chunk is not JSON: {payload[:120]!r}")
            break
        if not isinstance(event, dict):
            result.fail("malformed", f"chunk is not a JSON object: {payload[:120]!r}")
            break
        if "error" in event and not event.get("choices"):
            result.fail("http_status", f"error event in stream: {str(event['error'])[:300]}")
            break
        result.model = result.model or event.get("model")
        usage = event.get("usage")
        if isinstance(usage, dict):
            result.input_tokens = usage.get("prompt_tokens", result.input_tokens)
            result.output_tokens = usage.get("completion_tokens", result.output_tokens)
        for choice in event.get("choices") or ():
            delta = choice.get("delta") or {}
            carried = False
            text = delta.get("content")
            if text:
                content.append(text)
                carried = True
            think = delta.get("reasoning_content") or delta.get("reasoning")
            if think:
                reasoning.append(think)
                carried = True
            if delta.get("tool_calls"):
                _merge_tool_delta(calls, delta["tool_calls"])
                carried = True
            if carried:
                result.token_times_ns.append(t)
            if choice.get("finish_reason"):
                result.finish_reason = choice["finish_reason"]
    result.content = "".join(content)
    result.reasoning = "".join(reasoning)
    result.tool_calls = [calls[i] for i in sorted(calls)]
    if result.token_times_ns:
        result.t_first_token_ns = result.token_times_ns[0]
    if result.status == "ok" and not done:
        result.fail("disconnect", f"stream ended without [DONE] after {len(chunks)} chunks")
    elif result.status == "ok" and result.finish_reason is None:
        got = len(result.token_times_ns)
        result.fail("incomplete", f"stream ended with [DONE] but no finish_reason after {got} "
                    "tokens (the server cut the reply short)")
    return result
