"""What one chat request carries besides its body: :class:`RequestContext`.

Passed explicitly to :meth:`~agentic_bench.transport.base.ChatTransport.chat` (as httpx passes
per-request options such as ``headers`` and ``extensions``), never through context variables:
a session builds its context once (:mod:`.session_headers` renders the affinity headers) and
hands it to every request it makes, so two sessions running in the same event loop can never
see each other's headers, ``user`` or chunk hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

ChunkHook = Callable[[int, bytes], bool]
"""Fed ``(perf_counter_ns, raw bytes)`` for each chunk of the reply, in the transport's read
path, until it returns True (then it is not called again for that reply)."""
ToolDeltaRule = Literal["openai", "mlperf"]


@dataclass(frozen=True, slots=True)
class RequestContext:
    """Per-request options of a chat call.

    ``headers``: extra HTTP header ``(name, value)`` pairs (session affinity; names checked and
    values encoded by :func:`~agentic_bench.transport.session_headers.render`); ``user``: the
    OpenAI ``user`` field to set in the body (``--session-user``), None: the body's own;
    ``on_chunk``: a :data:`ChunkHook` (the LoadGen adapter's first-token watch), None: none.
    ``tool_deltas``: how the reply's streamed tool-call deltas are merged — ``openai`` (a name
    sent in pieces is joined; a delta without ``index`` takes its position) or ``mlperf``
    (mlcommons/endpoints ea332753 core/types.py merge_tool_calls 87-110: a later name
    overwrites, a missing index is 0; Agentic Edge's MLPerf phases — which also drops an
    error event inside an HTTP 200 stream, the request completing with what arrived:
    tasks/agentic_edge/stream_errors.py). ``header_lines`` is
    ``headers`` as HTTP/1.1 header lines, rendered once here so the raw client adds no
    per-request formatting.
    """

    headers: tuple[tuple[str, str], ...] = ()
    user: str | None = None
    on_chunk: ChunkHook | None = None
    tool_deltas: ToolDeltaRule = "openai"
    header_lines: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lines = "".join(f"{name}: {value}\r\n" for name, value in self.headers)
        object.__setattr__(self, "header_lines", lines)


NO_CONTEXT = RequestContext()
"""The context of a request that carries nothing extra (the default everywhere)."""

__all__ = ["NO_CONTEXT", "ChunkHook", "RequestContext", "ToolDeltaRule"]
