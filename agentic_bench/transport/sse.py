"""Turn the raw byte chunks of an SSE chat stream into a :class:`ChatResult`.

The hot loop in the client only appends ``(perf_counter_ns, bytes)`` pairs; all parsing
happens here, after the stream ends, so JSON decoding never delays a timestamp. An event
that spans two network chunks is dated by the chunk that completes it.

An error event inside a 200 stream (``data: {"error": ...}``, no ``choices``) fails the request
(``http_status``, or ``context_overflow`` by its message) — except under the ``mlperf`` rule
(the Agentic Edge MLPerf phases, ``RequestContext.tool_deltas``): mlcommons/endpoints ea332753
keeps only the ``data:`` frames that decode to a message with choices
(``endpoint_client/adapter_protocol.py`` 47, 128-135; ``openai/types.py`` 69-74;
``openai/openai_msgspec_adapter.py`` 125-130), so the frame is dropped and the request completes
with what arrived. The result stays ``ok`` and its ``error`` keeps the dropped frame's text
(:data:`STREAM_ERROR` first; :func:`dropped_stream_error` reads it back). Under the same rule a
``data:`` frame whose ``{...}`` is no JSON skips only itself and the frames after it in the
same network read (``adapter_protocol.py`` 128-138, ``endpoint_client/worker.py`` 507-526; ours:
the frames dated by the same chunk), and a payload that is no ``{...}`` is ignored (pattern 47).
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
STREAM_ERROR = "error event in stream"
_DROPPED = f"{STREAM_ERROR} (dropped, as MLPerf drops a frame without choices)"
SKIPPED_READ = "malformed SSE frame skipped with the rest of its network read, as MLPerf does"


def dropped_note(message: str) -> str:
    """What an ``ok`` result's ``error`` says when the ``mlperf`` rule dropped an error frame."""
    return f"{_DROPPED}: {message}"


def dropped_stream_error(result: ChatResult) -> str | None:
    """The text of the error frame the ``mlperf`` rule dropped from this completed stream; None
    when it dropped none (or the request failed)."""
    if result.status == "ok" and result.error and result.error.startswith(_DROPPED):
        return result.error
    return None


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
    """Decode every event payload; one ``json.loads`` over the whole stream when each payload
    is one JSON value (several times faster than one call per event), per event otherwise."""
    body = [p for _, p in events if p and p != b"[DONE]"]
    try:  # each payload in its own brackets: `1,2`, or an object cut in two, breaks the parse
        values = [value for (value,) in _loads(b"[[" + b"],[".join(body) + b"]]")]
        if len(values) != len(body):
            raise ValueError("payload count mismatch")
        decoded = iter(values)
        return [(t, p, None if p == b"[DONE]" else next(decoded))
                for t, p in events if p]
    except (ValueError, TypeError, UnicodeDecodeError):
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


_DONE_TAIL = b"\n\ndata: [DONE]\n\n"
_SEPARATOR = b"\n\ndata: "


def _whole_events(chunks: list[tuple[int, bytes]]
                  ) -> tuple[list[tuple[int, bytes, Any]], bytes] | None:
    """The common stream, decoded in one pass: every event one ``data: `` line of a JSON
    object, events separated by one blank line, ``[DONE]`` last. Each event sits in its own
    brackets, so one that is not exactly one JSON value breaks the parse; each is dated as
    :func:`_events` dates it (the chunk holding the line's newline). ``None``: any other
    stream (comments, other fields, CRLF, an event split at its newline, a payload that is
    not an object), for the line-by-line path. With the events: the stream's bytes."""
    whole = chunks[0][1] if len(chunks) == 1 else b"".join(data for _, data in chunks)
    if not whole.startswith(b"data: ") or not whole.endswith(_DONE_TAIL):
        return None
    try:
        wrapped = _loads(b"[[" + whole[6:-16].replace(_SEPARATOR, b"],[") + b"]]")
        events = [event for (event,) in wrapped]
    except (ValueError, TypeError, UnicodeDecodeError):
        return None
    n = len(events) + 1  # and [DONE]
    if whole.count(b"\n") != 2 * n or set(map(type, events)) != {dict}:
        return None
    if len(chunks) == 1:
        times = [chunks[0][0]] * n
    else:  # an event's blank line lies whole in the chunk that dates it (else counts differ)
        times = [t for t, data in chunks for _ in range(data.count(b"\n\n"))]
        if len(times) != n:
            return None
    out = list(zip(times, itertools.repeat(b""), events))
    out.append((times[-1], b"[DONE]", None))
    return out, whole


def _mlperf_frame(payload: bytes) -> Any:
    """What MLPerf's frame pattern (``adapter_protocol.py`` 47: ``data:\\s*(\\{[^\\n]+\\})``)
    takes from a payload that is no JSON as a whole: ``{`` up to the line's last ``}``, decoded;
    None when it matches nothing (ignored), :data:`_BAD` when that does not decode."""
    end = payload.rfind(b"}")
    if not payload.startswith(b"{") or end < 1:
        return None
    try:
        return json.loads(payload[:end + 1])
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _BAD


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
    ``tool_deltas``: how streamed tool-call deltas merge (:class:`~.request.RequestContext`);
    ``mlperf`` also drops an error event instead of failing on it (the module docstring): a
    stream that ends after it without a ``finish_reason`` is then not ``incomplete`` (the error
    ended it), and one that ends without ``[DONE]`` is still a ``disconnect``."""
    mlperf = tool_deltas == "mlperf"
    dropped: str | None = None  # the first error frame the mlperf rule dropped
    skipped: bytes | None = None  # the first malformed frame the mlperf rule skipped
    skip_read: int | None = None  # the time of the network read being skipped
    result.chunks = len(chunks)
    content: list[str] = []
    reasoning: list[str] = []
    reasoning_content: list[str] = []  # what came under that key alone
    calls: dict[int, dict[str, Any]] = {}
    done = False
    model = result.model
    stamp = result.token_times_ns.append  # (locals: this loop runs once per event)
    reasoning_keys = tool_keys = True  # whether a delta may hold these keys at all
    fast = _whole_events(chunks)
    if fast is None:
        items = _decoded(_events(chunks))
    else:  # a key no byte spells (none written with escapes) is not looked up per event
        items, whole = fast
        escaped = b"\\u" in whole
        reasoning_keys = escaped or b'"reasoning' in whole
        tool_keys = escaped or b'"tool_calls"' in whole
    for t, payload, event in items:
        if payload == b"[DONE]":
            done = True
            break
        if mlperf and event is _BAD and t != skip_read:
            event = _mlperf_frame(payload)
            if event is _BAD:
                skipped, skip_read = skipped or payload, t
        if mlperf and (not isinstance(event, dict) or t == skip_read):
            continue
        if event is _BAD:
            result.fail("malformed", f"chunk is not JSON: {payload[:120]!r}")
            break
        if not isinstance(event, dict):
            result.fail("malformed", f"chunk is not a JSON object: {payload[:120]!r}")
            break
        choices = event.get("choices")
        if not choices and "error" in event:
            message = str(event["error"])[:300]
            if mlperf:  # a frame without choices: dropped, the stream goes on
                dropped = dropped or message
                continue
            result.fail(http_error_type(message), f"{STREAM_ERROR}: {message}")
            break
        if not model:
            model = event.get("model")
        usage = event.get("usage")
        timings = event.get("timings")
        if usage is not None or timings is not None:  # the final chunk(s) only
            if isinstance(usage, dict):
                result.input_tokens = usage.get("prompt_tokens", result.input_tokens)
                result.output_tokens = usage.get("completion_tokens", result.output_tokens)
            cached = cached_prompt_tokens(usage, timings)
            if cached is not None:
                result.cached_tokens = cached
            stamps = event.get("server_timing_ns")
            if isinstance(stamps, dict):
                result.server_timing_ns = {k: v for k, v in stamps.items() if isinstance(v, int)}
        for choice in choices or ():
            delta = choice.get("delta") or {}
            carried = False
            text = delta.get("content")
            if text:
                content.append(text)
                carried = True
            if reasoning_keys:
                named = delta.get("reasoning_content")
                think = named or delta.get("reasoning")
                if think:
                    reasoning.append(think)
                    carried = True
                    if named:
                        reasoning_content.append(named)
            if tool_keys and delta.get("tool_calls"):
                _merge_tool_delta(calls, delta["tool_calls"], mlperf)
                carried = True
            if carried:
                stamp(t)
            if choice.get("finish_reason"):
                result.finish_reason = choice["finish_reason"]
    result.model = model
    result.content = "".join(content)
    result.reasoning = "".join(reasoning)
    result.reasoning_content = "".join(reasoning_content)
    result.tool_calls = [calls[i] for i in sorted(calls)]
    if result.token_times_ns:
        result.t_first_token_ns = result.token_times_ns[0]
    if dropped is not None and result.status == "ok":
        result.error = dropped_note(dropped)
    elif skipped is not None and result.status == "ok":
        result.error = f"{SKIPPED_READ}: {skipped[:120]!r}"
    if result.status == "ok" and not done:
        after = "" if dropped is None else f" (after a dropped {STREAM_ERROR}: {dropped})"
        result.fail("disconnect",
                    f"stream ended without [DONE] after {len(chunks)} chunks{after}")
    elif result.status == "ok" and result.finish_reason is None and dropped is None \
            and skipped is None:
        got = len(result.token_times_ns)
        result.fail("incomplete", f"stream ended with [DONE] but no finish_reason after {got} "
                    "tokens (the server cut the reply short)")
    return result
