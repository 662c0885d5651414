"""Mid-trajectory starts of a timed session tree (AgentX lanes): which requests are history,
which are warmed, when the first measured ones go.

A lane's tree starts at an instant t* of its recorded timeline (AIPerf 0.13
``timing/trajectory_source.py``): t* is drawn uniformly between ``first + lo × span`` and
``first + hi × span`` of the tree's request starts, with a generator seeded by
``sha256("<seed>:<tree id>:<lane>")`` (the same inputs as AIPerf's ``_seed_for_trace_lane``;
the draw itself is Python's ``random``, not numpy's). Requests that started before t* are
history: not measured; each conversation alive at t* (history before it, a request at or
after it) warms the server with its last requests before t* (the warm-up); the first request
at or after t* of every conversation alive at t* goes at ``start − t*`` after the measured
phase begins, minus one shift common to the lane that caps the lane's leading idle time
(AIPerf ``agentic_replay.py`` ``_leading_idle_shift_ms``).
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass, field

from agentic_bench.trace.conversations import ROOT, conversation_steps, span_s
from agentic_bench.trace.model import Session


def draw_start_s(session: Session, lo: float, hi: float, seed: int, lane: int) -> float:
    """t* for ``session`` on ``lane`` (``lo``/``hi``: fractions of the tree's span)."""
    first, last = span_s(session)
    low, high = first + lo * (last - first), first + hi * (last - first)
    if high <= low:
        return low
    digest = hashlib.sha256(f"{seed}:{session.session_id}:{lane}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    return rng.uniform(low, high)


@dataclass
class StreamStart:
    """One conversation at t*."""

    history: int = 0  # its requests that started before t*
    history_starts: list[float] = field(default_factory=list)
    next_s: float | None = None  # its first request at or after t*
    spawn_s: float | None = None

    @property
    def alive(self) -> bool:
        """Spawned by t* and with a request still to send."""
        return self.next_s is not None and (self.spawn_s is None or self.spawn_s <= self.next_s)


@dataclass(frozen=True)
class TrajectoryPlan:
    start_s: float
    streams: dict[str, StreamStart]

    def warmed(self, key: str) -> bool:
        stream = self.streams.get(key)
        return stream is not None and stream.history > 0 and stream.next_s is not None

    def warmup_requests(self, per_stream: int) -> int:
        """How many requests the warm-up sends (the last ``per_stream`` of each warmed one)."""
        return sum(min(per_stream, s.history) for k, s in self.streams.items() if self.warmed(k))

    def shift_s(self, cap_s: float | None) -> float:
        """How much earlier than recorded every first measured request goes, so the lane's
        first one waits at most ``cap_s`` after the measured phase begins."""
        if cap_s is None:
            return 0.0
        offsets = [s.next_s - self.start_s for k, s in self.streams.items()
                   if s.next_s is not None and (k == ROOT or (s.spawn_s is not None
                                                              and s.spawn_s <= self.start_s))]
        return max(0.0, min(offsets, default=0.0) - cap_s)


def plan(session: Session, start_s: float) -> TrajectoryPlan:
    streams: dict[str, StreamStart] = defaultdict(StreamStart)
    for cs in conversation_steps(session):
        stream = streams[cs.key]
        stream.spawn_s = cs.spawn_s
        t = cs.step.start_s if cs.step.start_s is not None else 0.0
        if t < start_s:
            stream.history += 1
            stream.history_starts.append(t)
        elif stream.next_s is None:
            stream.next_s = t
    return TrajectoryPlan(start_s, dict(streams))


__all__ = ["StreamStart", "TrajectoryPlan", "draw_start_s", "plan"]
