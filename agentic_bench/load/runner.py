"""The async load runner: issues sessions by scenario, enforces stop conditions.

It knows nothing about HTTP or traces: it hands :class:`SessionTicket` objects to an
``execute`` coroutine and counts what comes back. Stop conditions: ``--sessions``,
``--duration`` (stop issuing), ``--max-errors`` (stop issuing), and an external stop event
(SIGINT/SIGTERM): stop issuing, let in-flight sessions finish within the grace period, then
cancel the rest (they record themselves as cancelled).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import Execute, SessionOutcome, SessionSource, SessionTicket
from agentic_bench.load.arrivals import burst_arrivals, poisson_arrivals, trace_arrivals
from agentic_bench.load.clock import sleep_until
from agentic_bench.load.scheduler import RunStats, settle
from agentic_bench.options.load import OPEN_LOOP, LoadSpec

SPIN_NS = 1_000_000  # how early the arrival timer fires; the rest is a cooperative wait


class LoadRunner:
    """Issues the sessions of ``source`` under ``spec`` (arrivals, concurrency, stop
    conditions, interrupts) through ``execute``; knows nothing about HTTP. A
    :class:`~agentic_bench.load.scheduler.Scheduler`; ``shard=(k, n)``: shard ``k`` of ``n``
    of the one global schedule (load/shard_worker.py)."""
    def __init__(self, spec: LoadSpec, source: SessionSource, execute: Execute,
                 on_done: Callable[[SessionOutcome, RunStats], None] | None = None,
                 skip: set[int] | None = None, shard: tuple[int, int] = (0, 1),
                 t_start_ns: int | None = None) -> None:
        self.spec = spec  # validated once, where the options became a LoadSpec
        self.skip = skip or set()
        self.shard, self.shards = shard
        self.t_start_ns = t_start_ns
        self.source = source
        self.execute = execute
        self.on_done = on_done
        self.stats = RunStats()
        self.grace_s = self.spec.grace_s  # 0 after cancel_all(); the spec is never changed
        self.stop_event = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._issuing: asyncio.Future[None] | None = None

    @property
    def streams(self) -> int | None:
        """The in-flight cap of this runner (its shard's): a closed loop's streams, split over
        the shards (shard ``k`` of ``n`` runs ``S // n``, one more while ``k < S mod n``); an
        open loop's ``--concurrency``, held by each shard, or None (no cap)."""
        spec = self.spec
        if spec.scenario in OPEN_LOOP:
            return spec.concurrency or None
        total = spec.streams
        return total // self.shards + (1 if self.shard < total % self.shards else 0)

    def planned_sessions(self) -> int | None:
        spec = self.spec
        if spec.sessions:
            return spec.sessions
        if spec.scenario == "server" and spec.duration_s and spec.rate:
            return max(1, round(spec.rate * spec.duration_s))
        if spec.duration_s:
            return None
        return self.source.size

    def offsets(self) -> Iterator[float]:
        spec, count = self.spec, self.planned_sessions()
        if spec.scenario == "server":
            assert spec.rate
            return poisson_arrivals(spec.rate, spec.seed, count)
        if spec.scenario == "trace-timed":
            return trace_arrivals(self.source.offsets or [0.0] * self.source.size, count=count)
        return burst_arrivals(count)

    def _should_stop(self, t_start: int, at_ns: int | None = None) -> str | None:
        """Why issuing ends now, if it does; ``at_ns`` is an open loop's arrival time, so an
        arrival scheduled inside ``--duration`` is sent however late the loop reaches it (its
        lateness is its schedule lag), and the planned set never depends on the machine's load."""
        spec = self.spec
        if self.stop_event.is_set():
            return "interrupted"
        if spec.max_errors and self.stats.errors >= spec.max_errors:
            return "max_errors"
        now = perf_counter_ns() if at_ns is None else at_ns
        if spec.duration_s and now - t_start >= spec.duration_s * 1e9:
            return "duration"
        return None

    async def _one(self, ticket: SessionTicket, slot: asyncio.Semaphore | None) -> None:
        try:
            outcome = await settle(self.stats, self.execute, ticket)
        finally:
            if slot is not None:
                slot.release()
        if self.on_done:
            self.on_done(outcome, self.stats)

    def _spawn(self, ticket: SessionTicket, slot: asyncio.Semaphore | None) -> None:
        task = asyncio.ensure_future(self._one(ticket, slot))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self.stats.issued += 1

    def stop(self) -> None:
        """No new session; the ones in flight finish within the grace (first Ctrl-C)."""
        self.stop_event.set()

    def final_records(self) -> list[dict[str, Any]]:
        """Nothing: every record of a sessions run is its sessions' own."""
        return []

    def cancel(self) -> None:
        """Stop issuing and cancel every in-flight session now: no grace left."""
        self.stop_event.set()
        self.cancel_all()

    def cancel_all(self) -> None:
        """Cancel every in-flight session now (second Ctrl-C): no grace left."""
        self.grace_s = 0.0
        for task in list(self._tasks):
            task.cancel()
        if self._issuing is not None:
            self._issuing.cancel()

    async def _wait_stop(self, deadline_ns: int) -> bool:
        """Sleep until ``deadline_ns`` unless the stop event fires first (True = stopped).

        Event-loop timers fire on millisecond ticks (epoll/libuv), so a plain sleep sends
        up to ~1 ms late. The timer is set :data:`SPIN_NS` early and the rest is spent
        yielding to the loop (``sleep(0)``: other streams' I/O keeps being served) until the
        exact time: at most ~1 ms of CPU per arrival, none while idle between arrivals.
        """
        delay = (deadline_ns - SPIN_NS - perf_counter_ns()) / 1e9
        if delay > 0:
            try:
                await asyncio.wait_for(self.stop_event.wait(), delay)
                return True
            except TimeoutError:
                pass
        while perf_counter_ns() < deadline_ns:
            await asyncio.sleep(0)
        return self.stop_event.is_set()

    async def _open_loop(self, t_start: int) -> None:
        cap = self.streams
        slot = asyncio.Semaphore(cap) if cap else None
        base: float | None = None  # a resumed run starts at its first unfinished arrival
        for index, offset in enumerate(self.offsets()):
            if index in self.skip:  # finished in an earlier segment: no wait for it
                continue
            if base is None:
                base = offset if self.skip else 0.0
            if index % self.shards != self.shard:
                continue
            arrival = t_start + int((offset - base) * 1e9)
            if arrival > perf_counter_ns() and await self._wait_stop(arrival):
                self.stats.stop_reason = "interrupted"
                return
            if (reason := self._should_stop(t_start, arrival)) is not None:
                self.stats.stop_reason = reason
                return
            scheduled = arrival
            if slot is not None:
                await slot.acquire()
                scheduled = max(arrival, perf_counter_ns())  # a client-side cap, not load
                if self.stop_event.is_set():
                    slot.release()
                    self.stats.stop_reason = "interrupted"
                    return
            self._spawn(SessionTicket(index, self.source(index), scheduled), slot)

    async def _closed_loop(self, t_start: int, streams: int, lockstep: bool) -> None:
        counter = itertools.count(self.shard, self.shards)
        limit = self.planned_sessions()

        def take() -> int | None:
            if (reason := self._should_stop(t_start)) is not None:
                self.stats.stop_reason = reason
                return None
            index = next(counter)
            while index in self.skip:
                index = next(counter)
            return None if limit is not None and index >= limit else index

        async def worker(w: int) -> None:
            while (index := take()) is not None:
                ticket = SessionTicket(index, self.source(index), perf_counter_ns(), worker=w)
                self.stats.issued += 1
                await self._one(ticket, None)

        if not lockstep:
            await asyncio.gather(*(worker(w) for w in range(streams)))
            return
        while True:
            batch = [i for i in (take() for _ in range(streams)) if i is not None]
            if not batch:
                return
            now = perf_counter_ns()
            self.stats.issued += len(batch)
            await asyncio.gather(*(
                self._one(SessionTicket(i, self.source(i), now, worker=w), None)
                for w, i in enumerate(batch)))

    async def run(self) -> RunStats:
        if self.t_start_ns is not None:  # a start barrier shared with other workers
            await sleep_until(self.t_start_ns)
            self.stats.start_skew_ns = perf_counter_ns() - self.t_start_ns
        t_start = self.t_start_ns or perf_counter_ns()
        self.stats.t_start_ns = t_start
        scenario = self.spec.scenario
        try:
            if scenario in OPEN_LOOP:
                issuing = asyncio.ensure_future(self._open_loop(t_start))
            else:
                issuing = asyncio.ensure_future(self._closed_loop(
                    t_start, self.streams or 0, lockstep=scenario == "multi-stream"))
            self._issuing = issuing
            stopper = asyncio.ensure_future(self.stop_event.wait())
            await asyncio.wait({issuing, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if not issuing.done() or issuing.cancelled():  # interrupted while issuing
                stopper.cancel()
                self.stats.stop_reason = "interrupted"
                await self._drain_closed(issuing)
            else:
                issuing.result()
                stopper.cancel()
            await self._drain()
        finally:
            self.stats.t_end_ns = perf_counter_ns()
        return self.stats

    async def _drain_closed(self, issuing: asyncio.Future[None]) -> None:
        done, _ = await asyncio.wait({issuing}, timeout=self.grace_s)
        if not done:
            issuing.cancel()
            await asyncio.gather(issuing, return_exceptions=True)

    async def _drain(self) -> None:
        if not self._tasks:
            return
        pending: set[asyncio.Future[Any]] = set(self._tasks)
        grace = self.grace_s if self.stop_event.is_set() else None
        if grace is None:
            stopper = asyncio.ensure_future(self.stop_event.wait())
            while pending and not self.stop_event.is_set():
                _, pending = await asyncio.wait(pending | {stopper},
                                                return_when=asyncio.FIRST_COMPLETED)
                pending.discard(stopper)
            stopper.cancel()
            if not pending:
                return
            self.stats.stop_reason = "interrupted"
            grace = self.grace_s
        _, pending = await asyncio.wait(pending, timeout=grace)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
