"""The trees lanes will draw next, drawn before a lane asks (#46 item 2).

A lane draws its next tree when its tree ends, and that tree's first request has no wait
before it to be written in. :class:`NextTrees` draws one tree ahead each time a lane's tree
has its first reply (``LaneStart.answered``; not as the tree starts: at the measured phase's
first instant, with every lane sending, drawing and writing 64 trees took the CPU the
simulator on the same 2-core host needed to read the lanes' first bodies, whose client share
then reached 56-82 ms against 21-23 ms with the draws 0.2 s later; docs/performance.md), in
the runner's own draw order, and has the trace replayer write that tree's first
request meanwhile (the executor's ``ahead`` ticket with ``ahead_blocks``), at the
:class:`~agentic_bench.replay.prompt_desk.PromptDesk`'s last place: every request due sooner
writes first. Which lane sends a tree drawn ahead is known only when a tree ends, and the
cache-bust marker depends on it, so the request is written with
:data:`~agentic_bench.synthesis.marker.MARKER_PLACEHOLDER` in the marker's place
(``placeholder``, when the run busts caches), and the lane that takes it puts its marker there,
in the messages and the encoded bytes (replay/prompt_ahead.py ``BuiltPrompt.with_marker``).
The first lane whose tree ends takes the earliest tree drawn, as it would have drawn it then:
every lane draws the same trees, and sends the same bytes, as without it. One tree per lane is
held at most; a tree still being written when taken stops there (its blocks written so far
kept, its body then written when due: ``prompt_late`` when ready after it), and one never
taken is handed back at the run's end (:meth:`NextTrees.discard`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import Execute, LaneStart, SessionTicket
from agentic_bench.trace.model import Session

Drawn = tuple[int, Session] | None


@dataclass(slots=True)
class DrawnAhead:
    """A tree drawn ahead: its draw (and read), and its first request's blocks being
    written (the ``ahead`` ticket's lane start, where the replayer keeps them)."""

    drawn: asyncio.Task[Drawn]
    start: LaneStart | None = None
    writing: asyncio.Task[Any] | None = None


class NextTrees:
    """One tree drawn ahead per lane that starts a tree, taken in draw order (module text)."""

    def __init__(self, draw: Callable[[int], Awaitable[Drawn]], execute: Execute,
                 stop: asyncio.Event, placeholder: str | None = None) -> None:
        self._draw = draw
        self._execute = execute
        self._stop = stop  # the measured phase is over: nothing more is written
        self._placeholder = placeholder  # where the taking lane's marker goes (None: none)
        self._queue: deque[DrawnAhead] = deque()

    def draw_ahead(self, lane: int) -> None:
        """Draw the next tree now (lane ``lane``'s tree has its first reply) and write its
        first request."""
        entry = DrawnAhead(asyncio.ensure_future(self._draw(lane)))
        entry.drawn.add_done_callback(lambda _: self._write(entry, lane))
        self._queue.append(entry)

    def _write(self, entry: DrawnAhead, lane: int) -> None:
        task = entry.drawn
        if task.cancelled() or task.exception() is not None or self._stop.is_set():
            return
        drawn = task.result()
        if drawn is None:
            return
        index, session = drawn
        entry.start = LaneStart(lane=lane, ahead=True, ahead_blocks=True,
                                marker=self._placeholder)
        entry.writing = asyncio.ensure_future(self._execute(
            SessionTicket(index, session, perf_counter_ns(), worker=lane, lane=entry.start)))

    async def take(self) -> tuple[Drawn, object | None] | None:
        """The earliest tree drawn ahead and what was written of it (the writing stopped
        where it is); None when none is held (the lane draws now)."""
        if not self._queue:
            return None
        entry = self._queue.popleft()
        drawn = await entry.drawn
        return drawn, await _stop_writing(entry)

    async def discard(self) -> list[tuple[int, Session]]:
        """Every tree drawn ahead and never taken (the run is over): their writing stopped;
        the trees, for the runner to un-count."""
        out: list[tuple[int, Session]] = []
        while self._queue:
            entry = self._queue.popleft()
            (drawn,) = await asyncio.gather(entry.drawn, return_exceptions=True)
            await _stop_writing(entry)
            if isinstance(drawn, tuple):
                out.append(drawn)
        return out


async def _stop_writing(entry: DrawnAhead) -> object | None:
    if entry.writing is not None:
        entry.writing.cancel()
        await asyncio.gather(entry.writing, return_exceptions=True)
    return entry.start.written if entry.start is not None else None


__all__ = ["DrawnAhead", "NextTrees"]
