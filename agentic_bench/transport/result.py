"""What one chat-completion call produced, with its nanosecond timestamps.

All ``t_*`` fields are ``time.perf_counter_ns()`` readings (monotonic; never compared across
processes). ``token_times_ns`` holds the arrival time of every content-carrying chunk
(content or tool-call delta), in order; ``t_first_token_ns`` is its first element.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agentic_bench.transport.context_overflow import says_context_overflow

Status = Literal["ok", "error", "cancelled"]
ERROR_TYPES = (
    "connect",  # could not connect / connection refused / DNS
    "timeout",  # request or turn timeout
    "http_status",  # non-2xx response
    "context_overflow",  # the server refused the prompt: longer than the model's context
    "disconnect",  # stream ended early (no [DONE], or the socket closed mid-stream)
    "malformed",  # a chunk that is not valid JSON / not a chat chunk
    "incomplete",  # [DONE] arrived but no choice ever carried a finish_reason
    "cancelled",  # cancelled by the harness (interrupt past the grace period)
    "internal",  # a bug or an unexpected exception in the harness
)


def http_error_type(message: str) -> str:
    """``context_overflow`` when an error body says the prompt does not fit (the phrase list
    of :mod:`agentic_bench.transport.context_overflow`), else ``http_status`` (the message is
    kept either way)."""
    return "context_overflow" if says_context_overflow(message) else "http_status"


@dataclass(slots=True)
class ChatResult:
    """One chat call's outcome: its status (``ok``, ``error`` with an ``error_type`` of
    :data:`ERROR_TYPES`, or ``cancelled``), its ``perf_counter_ns`` timestamps (sent, first
    byte, first token, every token, end), the assembled reply (content, reasoning, tool calls,
    finish reason) and the server's usage counts."""

    status: Status = "ok"
    error_type: str | None = None
    error: str | None = None
    http_status: int | None = None
    retry_after: str | None = None  # the Retry-After header of a 429 reply, as sent
    restart_wait_ms: float | None = None  # waited for the embedded server's restart first
    t_sent_ns: int = 0
    t_first_byte_ns: int | None = None
    t_first_token_ns: int | None = None
    t_end_ns: int = 0
    token_times_ns: list[int] = field(default_factory=list)
    content: str = ""
    reasoning: str = ""
    # the part of ``reasoning`` sent under ``reasoning_content`` (what MLPerf's E2E-RAG loop
    # reads, msr 359-367; ``reasoning`` also holds a ``reasoning`` key's text)
    reasoning_content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {id, name, arguments(str)}
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None  # prompt tokens the server served from its prefix cache
    chunks: int = 0
    model: str | None = None
    # a timestamping server's own perf_counter_ns readings (``agentic-bench sim --timestamps``:
    # body_first, body_last, head, first_token), as it sent them; None: it sent none
    server_timing_ns: dict[str, int] | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def fail(self, error_type: str, message: str, status: Status = "error") -> ChatResult:
        self.status = status
        self.error_type = error_type
        self.error = message[:500]
        return self
