"""Lanes: the load of agent trees as InferenceX AgentX applies it (AIPerf 0.13
``timing/strategies/agentic_replay.py`` and ``timing/trajectory_source.py``).

``--concurrency N`` is N lanes. A lane holds one session tree until the tree drains — its
subagents take no lane — then draws the next tree, in trace order. Each tree is drawn once per
run unless ``--allow-dataset-wrap`` (then a drained trace is replayed from its first request
with a new cache-bust marker: one marker per tree, run and pass); a lane that finds no tree
left stays empty, and the run says how long its lanes sat empty (``lanes`` record,
``starved``). With ``--trajectory-start LO:HI`` each lane's first tree starts mid-way
(:mod:`agentic_bench.trace.trajectory`): the warm-up sends each live conversation's last
requests before t* (``--warmup-requests-per-lane``, recorded as ``warmup``, never counted),
every lane's warm-up is awaited, and the measured phase begins for all lanes at once.
``--duration S`` bounds it: with ``--agentx`` every tree stops sending when it ends (requests
in flight finish within ``--grace``), otherwise no new tree is drawn and trees in flight run
to their end. Waits go through :class:`~agentic_bench.load.clock.LaneClock` (the idle-gap
cap), each measured tree's through its own :class:`~agentic_bench.load.clock.TreeClock` (the
per-tree idle cap, ``--trace-idle-gap-cap``). A tree that cannot be read, or whose replay
raises, is an ``internal`` error session record (counted, and the run cannot read VALID) and
its lane draws the next tree: a failure never stops a lane or shrinks the plan silently.

Before the measured phase's clock starts, each lane's first tree's first request is written
(the executor's ``ahead`` ticket, one request kept per lane; replay/prompt_ahead.py), as the
floor client builds its bodies before its clock (``write_ahead``, set where the executor is the
trace replayer's): the trees and bodies are those of a run without it, the request is recorded
``prompt_ahead``. A later tree is drawn ahead when a lane's tree has its first reply, in the
same order, and its first request written meanwhile (:mod:`agentic_bench.load.next_trees`; not
with wrap over fewer than twice as many trees as lanes), with a placeholder where the
cache-bust marker goes, as which lane sends it is known only when a tree ends: the lane that
takes it puts its marker there. The draw waits for the tree's first reply
(``LaneStart.answered``, called by the executor): at the measured phase's first instant every
lane sends at once, and drawing and writing then took the CPU the server on the same host
needed to read those bodies. A tree drawn ahead that cannot be read is recorded when it is
drawn.

Across worker processes or Ray actors (``--workers N``, ``--ray-address``;
:mod:`agentic_bench.load.lane_shards`) a runner holds a ``share=(k, N)``: lanes ``l`` with
``l mod N == k`` and the trees ``t`` with ``t mod N == k``, drawn in the one-process order (a
tree never splits across workers); a run that draws every tree once draws, over the workers,
exactly the trees one process draws, and with wrap each worker cycles its own share. Lane
numbers, seeds and cache-bust markers (the run's ``run_id``, shared) are the one-process ones.
``t_start_ns`` is a start barrier (wall clock turned into this machine's clock) the runner
waits at before its first tree, and ``gate`` is awaited between the warm-up and the measured
phase (the workers' warm-ups all done); :attr:`LaneStats.measured_wall_ns` is when the
measured phase began, by the wall clock, so the spread over workers can be reported.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import (
    Execute,
    LaneStart,
    RecordSink,
    SessionSource,
    SessionTicket,
)
from agentic_bench.load.clock import LaneClock, TreeClock, sleep_or_stop, sleep_until
from agentic_bench.load.next_trees import NextTrees
from agentic_bench.load.scheduler import RunStats, settle
from agentic_bench.load.tree_reader import TreeReader
from agentic_bench.options.load import LaneSpec
from agentic_bench.records.types import session_record
from agentic_bench.synthesis.marker import MARKER_PLACEHOLDER, cache_bust_marker
from agentic_bench.trace.conversations import timed
from agentic_bench.trace.model import Session
from agentic_bench.trace.trajectory import draw_start_s, plan


@dataclass
class LaneStats(RunStats):
    """A lane run's counts (:class:`RunStats`) and what only lanes have."""

    warmup_s: float = 0.0
    warmup_requests: int = 0
    busy_ns: list[int] = field(default_factory=list)
    starved: int = 0  # lanes that asked for a tree and found none before the end
    unfilled: int = 0  # lanes that never held a tree
    passes: Counter[int] = field(default_factory=Counter)
    measured_wall_ns: int = 0  # the measured phase's start, time.time_ns()


class LaneRunner:
    """Agent trees in lanes (see the module's text): a
    :class:`~agentic_bench.load.scheduler.Scheduler` whose in-flight cap is its lanes."""

    def __init__(self, spec: LaneSpec, source: SessionSource, execute: Execute,
                 sink: RecordSink | None = None, skip: set[int] | None = None,
                 t0_ns: int = 0, *, share: tuple[int, int] = (0, 1),
                 run_id: str | None = None, t_start_ns: int | None = None,
                 gate: Callable[[], Awaitable[None]] | None = None,
                 write_ahead: bool = False) -> None:
        self.spec = spec
        self.share, self.shares = share
        self.owned = [lane for lane in range(spec.lanes) if lane % self.shares == self.share]
        self.t_start_ns = t_start_ns  # a start barrier shared with other workers
        self.gate = gate
        self.t0_ns = t0_ns  # the run's zero (records' times are offsets from it)
        self.source = source
        self.execute = execute
        self.sink = sink
        self.skip = skip or set()
        self.stats = LaneStats(busy_ns=[0] * spec.lanes)
        self.stop_event = asyncio.Event()  # Ctrl-C
        self.measured_over = asyncio.Event()  # --duration reached (or Ctrl-C)
        self.run_id = run_id or secrets.token_hex(6)
        self.clock = LaneClock(spec.idle_gap_cap_s, spec.trace_idle_gap_cap_s)
        self.grace_s = spec.grace_s  # 0 after cancel(); the spec is never changed
        self._next = 0
        self._drawn = 0
        self._ordinal = 0  # trees drawn over every share, in the one-process order
        self._misses = 0  # indices passed over since this share's last tree
        self._running: set[asyncio.Future[Any]] = set()  # the warm-up, then the lanes
        # each lane's first tree's first request written before the clock (an executor that
        # knows LaneStart.ahead: the trace replayer's)
        self.write_ahead = write_ahead
        self._written: dict[int, object] = {}  # lane → that request (one at most per lane)
        self._next_trees: NextTrees | None = None  # trees drawn ahead (load/next_trees.py)
        self._reader: TreeReader | None = None  # reads trees off the loop (while it runs)

    @property
    def streams(self) -> int:
        """The in-flight cap: one tree per lane it owns (its subagents take no lane)."""
        return len(self.owned)

    def planned_sessions(self) -> int | None:
        spec = self.spec
        if spec.sessions:
            return spec.sessions if spec.allow_wrap else min(spec.sessions, self.source.size)
        if spec.duration_s and spec.allow_wrap:
            return None
        return self.source.size - len(self.skip)

    def _draw(self) -> int | None:
        """The next tree index of this share: the one-process order (``--sessions`` counts
        over every share), keeping the trees ``t`` with ``t mod N == k``."""
        spec, size = self.spec, self.source.size
        last_skipped = max(self.skip, default=-1)
        while True:
            if spec.sessions is not None and self._ordinal >= spec.sessions:
                return None
            if self._next >= size and not spec.allow_wrap:
                return None
            if self._misses > size and self._next > last_skipped:
                return None  # a wrapped pass held no tree of this share
            index = self._next
            self._next += 1
            if index in self.skip:
                continue
            self._ordinal += 1
            if index % size % self.shares != self.share:
                self._misses += 1
                continue
            self._misses = 0
            self._drawn += 1
            return index

    def _lane_start(self, lane: int, index: int, session: Session, start_s: float,
                    warmup: bool, *, ahead: bool = False) -> LaneStart:
        tree = index % self.source.size
        recycle = self.stats.passes[tree] - 1  # the warm-up and measured run share it
        marker = (cache_bust_marker(self.run_id, recycle, lane, session.session_id)
                  if self.spec.cache_bust else None)
        shift = plan(session, start_s).shift_s(self.spec.idle_gap_cap_s) if start_s else 0.0
        return LaneStart(lane=lane, start_s=start_s, shift_s=shift, warmup=warmup,
                         warmup_requests=self.spec.warmup_requests, recycle_pass=recycle,
                         marker=marker, stop=self.measured_over, cut=self.spec.cut,
                         clock=None if warmup or ahead else self.clock.tree(),
                         ahead=ahead, written=self._written.pop(lane, None) if not (
                             warmup or ahead) else None)

    async def _load(self, index: int) -> Session:
        """A tree from the source, read off the event loop (a long tree is megabytes), on the
        runner's one reader thread (:class:`~agentic_bench.load.tree_reader.TreeReader`:
        started before the clock, so no thread is started while requests are in flight)."""
        if self._reader is None:  # (only run() draws; a caller outside it gets its own)
            self._reader = TreeReader()
        return await self._reader.read(self.source, index)

    def _failed(self, index: int, source_session: str, lane: int, scheduled_ns: int,
                exc: BaseException) -> None:
        """A tree the lane could not read or run: an ``internal`` error session record."""
        self.stats.errors += 1
        if self.sink is not None:
            self.sink(session_record(
                session_id=f"{source_session}#{index}", source_session=source_session,
                session_index=index, worker=lane, category=None, status="error", turns=1,
                turns_ok=0, requests=0, errors=1, scheduled_ns=scheduled_ns,
                start_ns=scheduled_ns, end_ns=perf_counter_ns(), t0_ns=self.t0_ns, lane=lane,
                error_type="internal", error=f"{type(exc).__name__}: {exc}"[:500]))

    async def _next_tree(self, lane: int) -> tuple[int, Session] | None:
        """The next tree drawn and read; one that cannot be read is an error record (and
        counts as issued) and the next is drawn. None: nothing left to draw."""
        while True:
            index = self._draw()
            if index is None:
                return None
            self.stats.passes[index % self.source.size] += 1
            try:
                return index, await self._load(index)
            except Exception as exc:
                self.stats.issued += 1
                self._failed(index, f"tree-{index % self.source.size}", lane,
                             perf_counter_ns(), exc)

    async def _run_ticket(self, ticket: SessionTicket) -> None:
        lane = ticket.worker
        began = perf_counter_ns()
        try:
            await settle(self.stats, self.execute, ticket)
        except Exception as exc:  # an executor that let its failure out: recorded here
            self._failed(ticket.index, ticket.session.session_id, lane, ticket.scheduled_ns,
                         exc)
        finally:
            self.stats.busy_ns[lane] += perf_counter_ns() - began
            if ticket.lane is not None and isinstance(ticket.lane.clock, TreeClock):
                ticket.lane.clock.close()

    async def _lane(self, lane: int, first: tuple[int, Session, float] | None) -> None:
        current = first
        while current is not None and not self.measured_over.is_set():
            index, session, start_s = current
            ticket = SessionTicket(index, session, perf_counter_ns(), worker=lane,
                                   lane=self._lane_start(lane, index, session, start_s, False))
            if current is first:
                ticket.scheduled_ns = self.stats.t_start_ns
            self.stats.issued += 1
            if self._next_trees is not None and ticket.lane is not None:
                ticket.lane.answered = partial(self._next_trees.draw_ahead, lane)
            await self._run_ticket(ticket)
            if self.measured_over.is_set():
                return
            nxt = await self._take_next(lane)
            if nxt is None:
                self.stats.starved += 1
                return
            current = (*nxt, 0.0)

    async def _take_next(self, lane: int) -> tuple[int, Session] | None:
        """The lane's next tree: the earliest drawn ahead (load/next_trees.py), with what was
        written of it kept for its ticket, or drawn now."""
        taken = await self._next_trees.take() if self._next_trees is not None else None
        if taken is None:
            return await self._next_tree(lane)
        drawn, written = taken
        if written is not None:
            self._written[lane] = written
        return drawn

    async def _discard_ahead(self) -> None:
        """The trees drawn ahead and never run: not counted as drawn (``wrapped``)."""
        if self._next_trees is not None:
            for index, _ in await self._next_trees.discard():
                self.stats.passes[index % self.source.size] -= 1

    async def _warmup(self, firsts: dict[int, tuple[int, Session, float] | None]) -> None:
        tickets = []
        for lane, first in firsts.items():
            if first is None or first[2] <= 0:
                continue
            index, session, start_s = first
            if not plan(session, start_s).warmup_requests(self.spec.warmup_requests):
                continue
            tickets.append(SessionTicket(index, session, perf_counter_ns(), worker=lane,
                                         lane=self._lane_start(lane, index, session, start_s,
                                                               True)))
        if not tickets:
            return
        began = perf_counter_ns()
        results = await asyncio.gather(*(self.execute(t) for t in tickets))
        self.stats.warmup_s = (perf_counter_ns() - began) / 1e9
        self.stats.warmup_requests = sum(r.requests for r in results)

    async def _write_firsts(self, firsts: dict[int, tuple[int, Session, float] | None]) -> None:
        """Each lane's first tree's first request written before the measured phase's clock
        starts (as the floor client builds its bodies before its clock), lane by lane: the
        executor's ``ahead`` ticket (replay/prompt_ahead.py ``write_first``) keeps it on its
        :class:`LaneStart`, and the lane's measured ticket carries it (one per lane). A write
        that fails is left to the measured run, which writes the request again and records
        what fails there."""
        for lane, first in firsts.items():
            if first is None or first[2] > 0 or self.stop_event.is_set():
                continue
            index, session, start_s = first
            start = self._lane_start(lane, index, session, start_s, False, ahead=True)
            try:
                await self.execute(SessionTicket(index, session, perf_counter_ns(),
                                                 worker=lane, lane=start))
            except Exception:  # recorded by the measured run (the docstring)
                continue
            if start.written is not None:
                self._written[lane] = start.written

    async def run(self) -> LaneStats:
        self._reader = TreeReader()  # its thread started here, before any request
        try:
            return await self._run()
        finally:
            self._reader.close()
            self._reader = None

    async def _run(self) -> LaneStats:
        spec = self.spec
        lo, hi = spec.trajectory
        if self.t_start_ns is not None:
            await sleep_until(self.t_start_ns)
            self.stats.start_skew_ns = perf_counter_ns() - self.t_start_ns
        self.stats.t_start_ns = perf_counter_ns()
        firsts: dict[int, tuple[int, Session, float] | None] = {}
        for lane in self.owned:
            drawn = await self._next_tree(lane)
            if drawn is None:
                firsts[lane] = None
                self.stats.unfilled += 1
                continue
            index, session = drawn
            start = (draw_start_s(session, lo, hi, spec.seed, lane)
                     if (lo, hi) != (0.0, 0.0) and timed(session) else 0.0)
            firsts[lane] = (index, session, start)
        try:
            warm = asyncio.ensure_future(self._warmup(firsts))
            self._running = {warm}
            stopper = asyncio.ensure_future(self.stop_event.wait())
            await asyncio.wait({warm, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if not warm.done() or warm.cancelled():  # Ctrl-C, or cancel(), in the warm-up
                stopper.cancel()
                warm.cancel()
                await asyncio.gather(warm, return_exceptions=True)
                self.stats.stop_reason = "interrupted"
                return self.stats
            stopper.cancel()
            warm.result()
            if self.write_ahead:
                await self._write_firsts(firsts)
                if self.stop_event.is_set():
                    self.stats.stop_reason = "interrupted"
                    return self.stats
            if self.gate is not None:  # every worker's warm-up done
                await self.gate()
            self.stats.t_start_ns = perf_counter_ns()
            self.stats.measured_wall_ns = time.time_ns()
            self.clock = LaneClock(spec.idle_gap_cap_s, spec.trace_idle_gap_cap_s)
            if self.write_ahead and (not spec.allow_wrap or self.source.size >= 2 * spec.lanes):
                # (with wrap and few trees one tree could be drawn again while drawn ahead,
                # and its recycle pass, read when its ticket is made, would move)
                self._next_trees = NextTrees(
                    self._next_tree, self.execute, self.measured_over,
                    MARKER_PLACEHOLDER if spec.cache_bust else None)
            await self._measured(firsts)
            await self._discard_ahead()
        finally:
            self.stats.t_end_ns = perf_counter_ns()
        return self.stats

    async def _measured(self, firsts: dict[int, tuple[int, Session, float] | None]) -> None:
        spec = self.spec
        lanes = [asyncio.ensure_future(self._lane(lane, first))
                 for lane, first in firsts.items() if first is not None]
        self._running = set(lanes)
        all_lanes = asyncio.ensure_future(asyncio.wait(lanes)) if lanes else None

        async def timer() -> str:
            stop = asyncio.ensure_future(self.stop_event.wait())
            if spec.duration_s is None:
                await stop
                return "interrupted"
            stopped = await sleep_or_stop(spec.duration_s, self.stop_event)
            stop.cancel()
            return "interrupted" if stopped else "duration"

        ending = asyncio.ensure_future(timer())
        waiting = {ending} | ({all_lanes} if all_lanes is not None else set())
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if ending.done():
            self.stats.stop_reason = ending.result()
            self.measured_over.set()
            if lanes and self.stats.stop_reason == "duration" and not spec.cut:
                # no new tree; the ones in flight run to their end (unless Ctrl-C)
                stop = asyncio.ensure_future(self.stop_event.wait())
                assert all_lanes is not None
                await asyncio.wait({all_lanes, stop}, return_when=asyncio.FIRST_COMPLETED)
                stop.cancel()
                if self.stop_event.is_set():
                    self.stats.stop_reason = "interrupted"
            if lanes:
                _, pending = await asyncio.wait(lanes, timeout=self.grace_s)
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
        else:
            ending.cancel()
            await asyncio.gather(ending, return_exceptions=True)
            self.measured_over.set()
            if self.stop_event.is_set():  # cancel() ended the lanes before the timer saw it
                self.stats.stop_reason = "interrupted"

    def lanes_record(self) -> dict[str, Any]:
        """The ``lanes`` record: how full the lanes were over the measured phase."""
        stats, spec = self.stats, self.spec
        span = max(stats.t_end_ns - stats.t_start_ns, 1)
        return {"type": "lanes", "lanes": spec.lanes, "run_id": self.run_id,
                "trees_started": stats.issued, "trees_completed": stats.completed,
                "unfilled": stats.unfilled, "starved": stats.starved,
                "wrapped": sum(max(0, n - 1) for n in stats.passes.values()),
                "occupancy": sum(min(b, span) for b in stats.busy_ns)
                / (span * max(len(self.owned), 1)),
                "warmup_s": stats.warmup_s, "warmup_requests": stats.warmup_requests,
                "measured_s": span / 1e9, "measured_start_ns": stats.t_start_ns - self.t0_ns,
                "trajectory": list(spec.trajectory),
                "duration_s": spec.duration_s, "stop_reason": stats.stop_reason,
                **self.clock.stats()}

    def final_records(self) -> list[dict[str, Any]]:
        """The ``lanes`` record (:meth:`lanes_record`)."""
        return [self.lanes_record()]

    def stop(self) -> None:
        """No new tree; the trees in flight finish within the grace (first Ctrl-C)."""
        self.stop_event.set()

    def cancel(self) -> None:
        """End the run now (second Ctrl-C): the warm-up or the lanes in flight are cancelled,
        no grace left."""
        self.grace_s = 0.0
        self.measured_over.set()
        self.stop_event.set()
        for task in list(self._running):
            task.cancel()


__all__ = ["LaneRunner", "LaneStats"]
