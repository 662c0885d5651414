"""The one decision "the server refused this prompt: longer than the model's context".

Made from one phrase list (:data:`OVERFLOW_PHRASES`, any case): the transport types a failed
request's error by it (``context_overflow`` rather than ``http_status``,
:func:`agentic_bench.transport.result.http_error_type`), and the replay of an agent tree ends
a conversation on it (:func:`is_context_overflow`; AIPerf ``agentic_replay.py``
``handle_credit_return``: later requests would only overflow again). The list is AIPerf 0.13's
``AIPERF_AGENTX_CONTEXT_OVERFLOW_SUBSTRINGS`` (``common/environment.py``) together with the
wordings of the servers the harness is run against; each entry says whose it is.
"""

from __future__ import annotations

import re
from typing import Protocol

OVERFLOW_PHRASES: tuple[str, ...] = (
    # AIPerf's own substrings; "context length" also holds OpenAI / vLLM / llama-cpp-python's
    # "maximum context length" and SGLang / TGI's "longer than the model's context length"
    "context length",
    "maximum context",
    "prompt is too long",
    # OpenAI's error code (AIPerf's "context_length_exceeded"), written with either separator
    r"context[_ ]length[_ ]exceeded",
    # llama.cpp's llama-server: exceed_context_size_error, "exceeds the available context
    # size" (AIPerf's last substring) and the like
    "exceed_context_size",
    r"exceeds? (?:the )?(?:available )?context (?:size|window|length)",
    # SGLang / TGI, and servers that count the window or the prompt
    "longer than the model's context",
    "context window",
    r"too many (?:input|prompt) tokens",
)
_OVERFLOW = re.compile("|".join(OVERFLOW_PHRASES), re.IGNORECASE)


class FailedCall(Protocol):
    """What the decision reads of a chat call's outcome
    (:class:`~agentic_bench.transport.result.ChatResult` is one)."""

    @property
    def ok(self) -> bool: ...

    @property
    def error(self) -> str | None: ...


def says_context_overflow(message: str) -> bool:
    """Does an error message say the prompt does not fit the model's context?"""
    return _OVERFLOW.search(message) is not None


def is_context_overflow(result: FailedCall) -> bool:
    """A failed call whose error says the prompt does not fit the model's context."""
    return not result.ok and says_context_overflow(result.error or "")


__all__ = ["OVERFLOW_PHRASES", "FailedCall", "is_context_overflow", "says_context_overflow"]
