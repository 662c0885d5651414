"""Where a replay stands in its trace, as small typed objects that do no I/O.

A :class:`SessionTally` counts one issued session's requests, errors and turns. A
:class:`TurnCursor` walks one conversation's steps of one turn — the session itself, a fan-out
branch or a spawned subagent, each as a session of its own (``view``) — and holds what that
walk has done so far: its schedule cursor (when its next request is due), its LLM calls, tool
calls scored and matched, and whether every request of it went well. The replayers
(:mod:`agentic_bench.replay.session`, :mod:`agentic_bench.replay.tree_replayer`) step the
cursor: they do the requests and waits, the cursor only keeps the state.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentic_bench.contracts import SessionTicket
from agentic_bench.trace.model import Session


@dataclass(slots=True)
class SessionTally:
    """One session's counts: requests and errors (over all its conversations), turns
    recorded and turns that went well, and requests sent but never counted (a warm-up's)."""

    requests: int = 0
    errors: int = 0
    turns: int = 0
    turns_ok: int = 0
    uncounted: int = 0


@dataclass(slots=True)
class TurnCursor:
    """One conversation's walk of turn ``view_turn`` of ``view``, recorded as turn ``turn`` of
    the ticket's session (branch ``branch``; ``""``: the session's own conversation).
    ``cursor_ns``: when the next request is scheduled (the end of the last step); ``start_ns``:
    when the turn began."""

    ticket: SessionTicket
    turn: int
    view: Session
    view_turn: int
    branch: str
    salt: str | None
    tally: SessionTally
    start_ns: int
    cursor_ns: int
    ok: bool = True
    llm: int = 0
    scored: int = 0
    matched: int = 0
    unmatched_tool_calls: int = 0

    def branch_cursor(self, view: Session, branch: str) -> TurnCursor:
        """A fan-out branch's walk: turn 0 of ``view``, from this walk's schedule cursor."""
        return TurnCursor(self.ticket, self.turn, view, 0, branch, self.salt, self.tally,
                          self.cursor_ns, self.cursor_ns)

    def add(self, child: TurnCursor) -> None:
        """Take a finished branch's calls into this walk."""
        self.llm += child.llm
        self.matched += child.matched
        self.scored += child.scored
        self.unmatched_tool_calls += child.unmatched_tool_calls

    def score(self, match: bool | None) -> None:
        """A reply's tool calls compared with the recorded ones (None: neither called)."""
        if match is not None:
            self.scored += 1
            self.matched += int(match)


__all__ = ["SessionTally", "TurnCursor"]
