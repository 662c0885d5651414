"""Turn recorded sessions into timed requests (history policy, think time, scoring)."""

from agentic_bench.contracts import SessionOutcome, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.replay.history import messages_before, request_body
from agentic_bench.replay.matching import calls_match, recorded_tool_result
from agentic_bench.replay.session import NO_RECORDED_RESULT, SessionReplayer
from agentic_bench.replay.think import ThinkPolicy

__all__ = [
    "NO_RECORDED_RESULT",
    "ReplayOptions",
    "SessionOutcome",
    "SessionReplayer",
    "SessionTicket",
    "ThinkPolicy",
    "calls_match",
    "messages_before",
    "recorded_tool_result",
    "request_body",
]
