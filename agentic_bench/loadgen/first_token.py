"""Spot the first content-carrying SSE event of a stream as its bytes arrive.

LoadGen stamps ``FirstTokenComplete`` when it is called, so a real-time report needs the
moment the first token arrives, not the step record written after the stream ends. A
:class:`FirstTokenWatch` is the ``on_chunk`` hook of the session's
:class:`~agentic_bench.transport.request.RequestContext` (fed ``(perf_counter_ns, raw bytes)``
for each chunk until it returns True); a transport that does not see chunks arrive (the
in-process endpoint) never calls it, and the adapter falls back to the session's first LLM
step record (see docs/loadgen.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable

_HINTS = (b'"content"', b'"tool_calls"', b'"reasoning')


def carries_token(payload: bytes) -> bool:
    """True when one SSE ``data:`` payload has content, reasoning or a tool-call delta
    (the same rule as :func:`agentic_bench.transport.sse.assemble_stream`)."""
    if not any(h in payload for h in _HINTS):
        return False
    try:
        event = json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    if not isinstance(event, dict):
        return False
    for choice in event.get("choices") or ():
        if not isinstance(choice, dict):
            continue
        delta = choice.get("delta") or {}
        if (delta.get("content") or delta.get("reasoning_content") or delta.get("reasoning")
                or delta.get("tool_calls")):
            return True
    return False


class FirstTokenWatch:
    """Fed raw chunks of a session's streams; calls ``on_first`` once, at the first token."""

    def __init__(self, on_first: Callable[[], None]) -> None:
        self._on_first = on_first
        self._buf = b""
        self.done = False

    def __call__(self, _t_ns: int, data: bytes) -> bool:
        if self.done:
            return True
        self._buf += data
        if b"\n" not in data:
            return False
        lines = self._buf.split(b"\n")
        self._buf = lines.pop()
        for line in lines:
            line = line.strip()
            if line.startswith(b"data:") and carries_token(line[5:].strip()):
                self.done = True
                self._buf = b""
                self._on_first()
                return True
        return False
