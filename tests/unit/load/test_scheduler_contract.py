"""#45 item 2: one scheduler contract (load/scheduler.py), run by every scheduler that
``run/segments.py``'s ``make_scheduler`` makes — the load runner's scenarios and the lanes —
on :class:`~agentic_bench.testing.FakeTransport`, each session replayed by the real executor:
in flight never above the scheduler's streams (and reaching them), planned equals issued,
and ``stop`` (no new session; the ones in flight finish within the grace, then are cancelled)
and ``cancel`` (at once) end a run within the grace."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.contracts import ExecContext, Execute, SessionOutcome, SessionTicket
from agentic_bench.load.runner import LoadRunner
from agentic_bench.load.scheduler import RunStats, Scheduler
from agentic_bench.options.load import LaneSpec, LoadShape, LoadSpec
from agentic_bench.options.replay import ReplayOptions, ThinkPolicy
from agentic_bench.run.segments import make_scheduler
from agentic_bench.tasks.trace_replay import trace_workload
from agentic_bench.testing import FakeTransport
from agentic_bench.workload import session_executor

SAMPLE = Path(__file__).resolve().parents[3] / "traces" / "sample.jsonl"

LOADS: dict[str, LoadShape] = {
    "single-stream": LoadSpec(scenario="single-stream", sessions=4),
    "concurrency": LoadSpec(scenario="concurrency", concurrency=3, sessions=9),
    "multi-stream": LoadSpec(scenario="multi-stream", concurrency=2, sessions=6),
    "offline": LoadSpec(scenario="offline", concurrency=2, sessions=6),
    "server": LoadSpec(scenario="server", rate=500.0, concurrency=2, sessions=6),
    "trace-timed": LoadSpec(scenario="trace-timed", concurrency=2, sessions=6),
    "lanes": LaneSpec(lanes=2),  # one pass over the trace's 3 sessions
    "lanes-wrapped": LaneSpec(lanes=2, allow_wrap=True, sessions=5),
}
STREAMS = {name: 1 if name == "single-stream" else 3 if name == "concurrency" else 2
           for name in LOADS}
SAMPLE_SOURCE = trace_workload(SAMPLE).source


class Held:
    """The real session executor on a fake transport, each session held ``hold_s`` first (so
    sessions overlap); counts the sessions in flight and the most at once."""

    def __init__(self, execute: Execute, hold_s: float) -> None:
        self.execute = execute
        self.hold_s = hold_s
        self.in_flight = 0
        self.most = 0
        self.started = asyncio.Event()

    async def __call__(self, ticket: SessionTicket) -> SessionOutcome:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        self.started.set()
        try:
            await asyncio.sleep(self.hold_s)
            return await self.execute(ticket)
        finally:
            self.in_flight -= 1


def scheduler(load: LoadShape, hold_s: float) -> tuple[Scheduler, Held, list[dict[str, Any]]]:
    """``make_scheduler``'s scheduler of ``load`` over the sample trace (think time none)."""
    workload = trace_workload(SAMPLE)
    records: list[dict[str, Any]] = []
    ctx = ExecContext(FakeTransport(lambda body: "ok"), records.append, time.perf_counter_ns(),
                      ReplayOptions(model="fake", think=ThinkPolicy(0.0)))
    held = Held(session_executor(workload, ctx), hold_s)
    return make_scheduler(load, workload.source, held, sink=records.append), held, records


def with_grace(load: LoadShape, grace_s: float) -> LoadShape:
    return replace(load, grace_s=grace_s)


async def _never(ticket: SessionTicket) -> SessionOutcome:  # pragma: no cover
    raise AssertionError


@pytest.mark.parametrize("name", list(LOADS))
def test_in_flight_never_above_streams_and_planned_equals_issued(name: str) -> None:
    sched, held, records = scheduler(LOADS[name], hold_s=0.02)
    planned = sched.planned_sessions()
    stats: RunStats = asyncio.run(sched.run())
    assert sched.streams == STREAMS[name]
    assert held.most == sched.streams  # reached, never above
    assert planned is not None and stats.issued == planned
    assert stats.completed == planned and stats.cancelled == 0 and stats.errors == 0
    assert stats.stop_reason == "done"
    sessions = [r for r in records if r["type"] == "session"]
    assert len(sessions) == planned and all(r["status"] == "ok" for r in sessions)


def test_the_in_flight_cap_is_the_schedulers_own() -> None:
    assert make_scheduler(LoadSpec(), SAMPLE_SOURCE).streams == 1  # single-stream
    assert make_scheduler(LoadSpec(scenario="server", rate=1.0), SAMPLE_SOURCE).streams is None
    assert make_scheduler(LaneSpec(lanes=5), SAMPLE_SOURCE).streams == 5
    closed = LoadSpec(scenario="concurrency", concurrency=5)
    shares = [LoadRunner(closed, SAMPLE_SOURCE, Held(_never, 0), shard=(k, 3)).streams
              for k in range(3)]
    assert shares == [2, 2, 1]  # the streams split over the shards, none lost


async def _run_then(sched: Scheduler, held: Held, action: str) -> tuple[RunStats, int, float]:
    """Start the run, ``stop`` or ``cancel`` it once a session is in flight; what it did, how
    many were in flight then and how long it took to end after."""
    run = asyncio.ensure_future(sched.run())
    await asyncio.wait_for(held.started.wait(), 5)
    await asyncio.sleep(0.01)
    in_flight = held.in_flight
    t0 = time.perf_counter()
    if action == "stop":
        sched.stop()
    else:
        sched.cancel()
    stats = await asyncio.wait_for(run, 10)
    return stats, in_flight, time.perf_counter() - t0


@pytest.mark.parametrize("name", list(LOADS))
def test_stop_lets_sessions_in_flight_finish_within_the_grace(name: str) -> None:
    sched, held, _ = scheduler(with_grace(LOADS[name], 5.0), hold_s=0.2)
    stats, in_flight, took = asyncio.run(_run_then(sched, held, "stop"))
    assert in_flight >= 1
    assert took < 2.0  # the sessions' own 0.2 s, not the 5 s grace
    assert stats.stop_reason == "interrupted" and stats.cancelled == 0
    assert stats.issued == stats.completed == in_flight  # none issued after the stop
    planned = sched.planned_sessions()
    assert planned is not None and stats.issued < planned


@pytest.mark.parametrize("name", list(LOADS))
def test_stop_cancels_what_outlasts_the_grace(name: str) -> None:
    sched, held, _ = scheduler(with_grace(LOADS[name], 0.3), hold_s=60.0)
    stats, in_flight, took = asyncio.run(_run_then(sched, held, "stop"))
    assert in_flight >= 1
    assert 0.25 < took < 2.0  # the grace, not the 60 s sessions
    assert stats.stop_reason == "interrupted"
    assert stats.cancelled == stats.issued == in_flight and stats.completed == 0


@pytest.mark.parametrize("name", list(LOADS))
def test_cancel_ends_the_run_at_once(name: str) -> None:
    sched, held, _ = scheduler(with_grace(LOADS[name], 30.0), hold_s=60.0)
    stats, in_flight, took = asyncio.run(_run_then(sched, held, "cancel"))
    assert in_flight >= 1
    assert took < 2.0  # neither the 30 s grace nor the 60 s sessions
    assert stats.stop_reason == "interrupted"
    assert stats.cancelled == stats.issued == in_flight and stats.completed == 0
