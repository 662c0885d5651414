"""The executor of a trace's sessions: each ticket by the replayer its session needs.

A session a lane runs, or one with agent-tree steps or prompts given as blocks
(:func:`~agentic_bench.replay.tree.is_tree`), is replayed by
:class:`~agentic_bench.replay.tree_replayer.TreeReplayer`; any other by the plain
:class:`~agentic_bench.replay.session.SessionReplayer`.
"""

from __future__ import annotations

from agentic_bench.contracts import RecordSink, SessionOutcome, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.replay.session import SessionReplayer
from agentic_bench.replay.tree import Synthesis, is_tree
from agentic_bench.replay.tree_replayer import TreeReplayer
from agentic_bench.transport.base import ChatTransport


class TraceReplayer:
    """``run(ticket)``: the session replayed by :class:`SessionReplayer` or, for a tree, by
    :class:`TreeReplayer` (``synthesis``: the run's prompt-writing resources, for prompts
    given as blocks)."""

    def __init__(self, transport: ChatTransport, sink: RecordSink, options: ReplayOptions,
                 t0_ns: int, synthesis: Synthesis | None = None) -> None:
        self.sessions = SessionReplayer(transport, sink, options, t0_ns)
        self.trees = TreeReplayer(transport, sink, options, t0_ns, synthesis)

    async def run(self, ticket: SessionTicket) -> SessionOutcome:
        if ticket.lane is not None or is_tree(ticket.session):
            return await self.trees.run(ticket)
        return await self.sessions.run(ticket)


__all__ = ["TraceReplayer"]
