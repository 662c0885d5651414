"""Replay: turn recorded sessions into timed requests (history policy, think time, scoring).

:class:`TraceReplayer` runs one :class:`SessionTicket` (a session as issued) under
:class:`ReplayOptions` (with its :class:`ThinkPolicy`) and returns its
:class:`SessionOutcome`: a plain session by :class:`SessionReplayer`, an agent tree (or a
lane's session) by :class:`TreeReplayer`. Its pure parts: :func:`request_body` and
:func:`messages_before` build each request from the recording; :func:`calls_match`
compares the model's tool calls with the recorded ones and :func:`recorded_tool_result`
answers them (:data:`NO_RECORDED_RESULT` when the recording has none).
"""

from agentic_bench.contracts import SessionOutcome, SessionTicket
from agentic_bench.options.replay import ReplayOptions, ThinkPolicy
from agentic_bench.replay.history import messages_before, request_body
from agentic_bench.replay.matching import calls_match, recorded_tool_result
from agentic_bench.replay.session import NO_RECORDED_RESULT, SessionReplayer
from agentic_bench.replay.trace_replayer import TraceReplayer
from agentic_bench.replay.tree_replayer import TreeReplayer

__all__ = [
    "NO_RECORDED_RESULT",
    "ReplayOptions",
    "SessionOutcome",
    "SessionReplayer",
    "SessionTicket",
    "ThinkPolicy",
    "TraceReplayer",
    "TreeReplayer",
    "calls_match",
    "messages_before",
    "recorded_tool_result",
    "request_body",
]
