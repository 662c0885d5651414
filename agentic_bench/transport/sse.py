"""Turn the raw byte chunks of an SSE chat stream into a :class:`ChatResult`.

The hot loop in the client only appends ``(perf_counter_ns, bytes)`` pairs; all parsing
happens here, after the stream ends, so JSON decoding never delays a timestamp. An event
that spans two network chunks is dated by the chunk that completes it.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from typing import Any

from agentic_bench.transport.request import ToolDeltaRule
from agentic_bench.transport.result import ChatResult, http_error_type

try:  # 2-3x faster than json.loads on chat chunks; the stdlib is the fallback
    from orjson import loads as _loads
except ImportError:  # pragma: no cover
    _loads = json.loads  # type: ignore[assignment]


_DATA_LINE = re.compile(rb"^data:(.*)", re.MULTILINE)


def _events(chunks: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """Split timed chunks into (time, data payload) per SSE ``data:`` line.

    One regex pass over the joined bytes; each line is dated by the chunk holding its
    terminating newline (an unterminated last line by the last chunk)."""
    if not chunks:
        return []
    if len(chunks) == 1:
        t, whole = chunks[0]
        return [(t, m.group(1).strip()) for m in _DATA_LINE.finditer(whole)]
    whole = b"".join(data for _, data in chunks)
    ends = list(itertools.accumulate(len(data) for _, data in chunks))
    last = len(chunks) - 1
    out: list[tuple[int, bytes]] = []
    for m in _DATA_LINE.finditer(whole):
        i = bisect.bisect_right(ends, m.end())  # the chunk holding the newline after it
        out.append((chunks[min(i, last)][0], m.group(1).strip()))
    return out


_BAD = object()


def _decoded(events: list[tuple[int, bytes]]) -> list[tuple[int, bytes, Any]]:
    """Decode every event payload; one ``json.loads`` over the whole stream when it parses
    (several times faster than one call per event), per event otherwise."""
    body = [p for _, p in events if p and p != b"[DONE]"]
    try:
        values = _loads(b"[" + b",".join(body) + b"]")
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
                out.append((t, p, json.loads(p)))  # the lenient stdlib on the rare path
            except (json.JSONDecodeError, UnicodeDecodeError):
                out.append((t, p, _BAD))
        return out


def _merge_tool_delta(calls: dict[int, dict[str, Any]], delta: list[dict[str, Any]],
                      mlperf: bool) -> None:
    """Merge one chunk's tool-call deltas (the rules: ``RequestContext.tool_deltas``)."""
    for pos, tc in enumerate(delta):
        index = tc.get("index", 0 if mlperf else pos)
        slot = calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
        if tc.get("id"):
            slot["id"] = tc["id"]
        fn = tc.get("function") or {}
        if fn.get("name"):
            slot["name"] = fn["name"] if mlperf else slot["name"] + fn["name"]
        if fn.get("arguments"):
            slot["arguments"] += fn["arguments"]


def cached_prompt_tokens(usage: Any, timings: Any) -> int | None:
    """Prompt tokens served from the server's prefix cache, from whichever field it uses:
    ``usage.prompt_tokens_details.cached_tokens`` (OpenAI, vLLM with
    ``--enable-prompt-tokens-details``, SGLang), ``usage.cached_tokens`` (some SGLang
    versions), or llama.cpp's ``timings.cache_n``. None when the server says nothing."""
    usage = usage if isinstance(usage, dict) else {}
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
        return int(details["cached_tokens"])
    if isinstance(usage.get("cached_tokens"), int):
        return int(usage["cached_tokens"])
    if isinstance(timings, dict) and isinstance(timings.get("cache_n"), int):
        return int(timings["cache_n"])
    return None


def assemble_stream(result: ChatResult, chunks: list[tuple[int, bytes]],
                    tool_deltas: ToolDeltaRule = "openai") -> ChatResult:
    """Fill ``result`` from the timed chunks; mark it malformed/disconnected when needed.
    ``tool_deltas``: how streamed tool-call deltas merge (:class:`~.request.RequestContext`)."""
    mlperf = tool_deltas == "mlperf"
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
            message = str(event["error"])[:300]
            result.fail(http_error_type(message), f"error event in stream: {message}")
            break
        result.model = result.model or event.get("model")
        usage = event.get("usage")
        timings = event.get("timings")
        if isinstance(usage, dict):
            result.input_tokens = usage.get("prompt_tokens", result.input_tokens)
            result.output_tokens = usage.get("completion_tokens", result.output_tokens)
        if usage is not None or timings is not None:  # the final chunk(s) only
            cached = cached_prompt_tokens(usage, timings)
            if cached is not None:
                result.cached_tokens = cached
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
                _merge_tool_delta(calls, delta["tool_calls"], mlperf)
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
