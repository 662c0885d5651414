"""Lanes (load/lanes.py): a lane holds a whole tree and draws the next in trace order; each tree
once unless wrap; warm-ups before the measured phase; the measured phase's end; the idle-gap
cap (AIPerf 0.13 timing/strategies/agentic_replay.py enforce_system_idle_cap,
common/loop_scheduler.py cap_pending_delay)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from time import perf_counter_ns

import pytest

from agentic_bench.contracts import SessionOutcome, SessionSource, SessionTicket
from agentic_bench.load.clock import LaneClock
from agentic_bench.load.lanes import LaneRunner
from agentic_bench.options.load import LaneSpec
from agentic_bench.trace.weka import WekaCorpus, weka_session

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"
TREES = [weka_session(t) for t in WekaCorpus(DATA / "corpus.jsonl")]


def source(n: int) -> SessionSource:
    return SessionSource(n, lambda i: TREES[i % 2])


class Executor:
    def __init__(self, seconds: float = 0.01) -> None:
        self.seconds = seconds
        self.tickets: list[SessionTicket] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.events: list[tuple[str, int, int]] = []

    async def __call__(self, ticket: SessionTicket) -> SessionOutcome:
        self.tickets.append(ticket)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        assert ticket.lane is not None
        kind = "warm" if ticket.lane.warmup else "run"
        self.events.append((kind + "-start", ticket.worker, perf_counter_ns()))
        stop = ticket.lane.stop
        try:
            if ticket.lane.cut and stop is not None and not ticket.lane.warmup:
                try:
                    await asyncio.wait_for(stop.wait(), self.seconds)
                except TimeoutError:
                    pass
            else:
                await asyncio.sleep(self.seconds)
        finally:
            self.in_flight -= 1
        self.events.append((kind + "-end", ticket.worker, perf_counter_ns()))
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)


def run(spec: LaneSpec, n: int, ex: Executor) -> LaneRunner:
    runner = LaneRunner(spec, source(n), ex)
    asyncio.run(runner.run())
    return runner


def test_lanes_hold_trees_and_draw_in_order() -> None:
    ex = Executor()
    runner = run(LaneSpec(lanes=2), 5, ex)
    assert sorted(t.index for t in ex.tickets) == [0, 1, 2, 3, 4]
    assert ex.max_in_flight == 2 and runner.stats.starved == 2 and runner.stats.unfilled == 0
    record = runner.lanes_record()
    assert record["trees_started"] == 5 and record["wrapped"] == 0
    assert {t.lane.recycle_pass for t in ex.tickets} == {0}


def test_more_lanes_than_trees_without_wrap_leaves_lanes_empty() -> None:
    ex = Executor()
    runner = run(LaneSpec(lanes=4), 2, ex)
    assert len(ex.tickets) == 2 and runner.stats.unfilled == 2
    assert runner.lanes_record()["unfilled"] == 2


def test_wrap_replays_with_a_new_marker_until_the_duration() -> None:
    ex = Executor(0.02)
    runner = run(LaneSpec(lanes=2, allow_wrap=True, duration_s=0.3, cut=True), 2, ex)
    assert len(ex.tickets) > 4 and runner.stats.stop_reason == "duration"
    markers = [(t.index % 2, t.lane.recycle_pass, t.lane.marker) for t in ex.tickets]
    assert len({m for _, _, m in markers}) == len(markers)  # one marker per tree and pass
    assert {p for _, p, _ in markers} >= {0, 1, 2}
    assert runner.lanes_record()["wrapped"] == len(ex.tickets) - 2


def test_warm_up_comes_first_and_shares_the_measured_marker() -> None:
    ex = Executor()
    run(LaneSpec(lanes=2, trajectory=(0.4, 0.6), warmup_requests=1), 2, ex)
    warm = [t for t in ex.tickets if t.lane.warmup]
    measured = [t for t in ex.tickets if not t.lane.warmup]
    assert len(warm) == 2 and len(measured) == 2
    last_warm_end = max(ts for kind, _, ts in ex.events if kind == "warm-end")
    first_run = min(ts for kind, _, ts in ex.events if kind == "run-start")
    assert first_run >= last_warm_end  # every lane reaches t* together
    for w in warm:
        twin = next(t for t in measured if t.worker == w.worker)
        assert twin.lane.marker == w.lane.marker and twin.lane.start_s == w.lane.start_s > 0
        assert twin.lane.clock is not None and w.lane.clock is None


def test_the_duration_cuts_trees_with_agentx_and_not_without() -> None:
    long = Executor(5.0)
    runner = run(LaneSpec(lanes=1, duration_s=0.1, cut=True), 2, long)
    assert runner.stats.stop_reason == "duration" and len(long.tickets) == 1
    assert runner.lanes_record()["measured_s"] < 2.0
    short = Executor(0.3)
    runner = run(LaneSpec(lanes=1, duration_s=0.1, cut=False), 2, short)
    assert len(short.tickets) == 1 and runner.stats.completed == 1  # ran to its end


def test_idle_gap_cap_moves_every_pending_wait() -> None:
    async def scenario() -> tuple[float, float, LaneClock]:
        clock = LaneClock(0.05)
        t0 = perf_counter_ns()
        ends: list[float] = []

        async def sleeper(seconds: float) -> None:
            await clock.sleep_until(t0 + int(seconds * 1e9), None)
            ends.append((perf_counter_ns() - t0) / 1e9)

        await asyncio.gather(sleeper(3.0), sleeper(3.2))
        return ends[0], ends[1], clock

    first, second, clock = asyncio.run(scenario())
    assert first < 1.0  # 3 s of nothing in flight: moved to ~the cap
    assert second - first == pytest.approx(0.2, abs=0.1)  # relative spacing kept
    assert clock.jumps >= 1 and clock.skipped_s > 2.0


def test_no_jump_while_a_request_is_in_flight() -> None:
    async def scenario() -> float:
        clock = LaneClock(0.01)
        clock.request_started()
        t0 = perf_counter_ns()
        await clock.sleep_until(t0 + int(0.3 * 1e9), None)
        clock.request_done()
        return (perf_counter_ns() - t0) / 1e9

    assert asyncio.run(scenario()) >= 0.29


def test_a_failing_tree_is_an_error_record_and_the_lane_goes_on() -> None:
    """#42.1: a tree that cannot be read and a replay that raises are error session records;
    the lane draws the next tree (nothing dropped, the plan does not shrink)."""
    records: list[dict[str, object]] = []

    def load(i: int) -> object:
        if i == 1:
            raise FileNotFoundError("tree file removed")
        return TREES[i % 2]

    class Raising(Executor):
        async def __call__(self, ticket: SessionTicket) -> SessionOutcome:
            if ticket.index == 2:
                raise MemoryError("absurd prompt")
            return await super().__call__(ticket)

    ex = Raising()
    runner = LaneRunner(LaneSpec(lanes=1), SessionSource(4, load), ex, records.append)
    asyncio.run(runner.run())
    assert [t.index for t in ex.tickets] == [0, 3]  # the lane went on past both failures
    failed = {r["session_index"]: r for r in records if r["type"] == "session"}
    assert set(failed) == {1, 2}
    assert all(r["status"] == "error" and r["error_type"] == "internal" for r in failed.values())
    assert "FileNotFoundError: tree file removed" in str(failed[1]["error"])
    assert "MemoryError: absurd prompt" in str(failed[2]["error"])
    assert runner.stats.issued == 4 and runner.stats.errors == 2


def test_trees_are_read_on_one_reader_thread_started_before_the_clock() -> None:
    """load/tree_reader.py: every tree is read on the runner's one reader thread, started
    before the lanes' clock, so no thread is started while requests are in flight (the
    default pool started one per concurrent read, blocking the loop as it did)."""
    import threading

    readers: list[str] = []

    def read(i: int) -> object:
        readers.append(threading.current_thread().name)
        return TREES[i % 2]

    started: list[str] = []
    real_start = threading.Thread.start

    def start(self: threading.Thread) -> None:
        started.append(self.name)
        real_start(self)

    runner = LaneRunner(LaneSpec(lanes=4), SessionSource(12, read), Executor(), None)
    threading.Thread.start = start  # type: ignore[method-assign]
    try:
        asyncio.run(runner.run())
    finally:
        threading.Thread.start = real_start  # type: ignore[method-assign]
    assert len(readers) == 12 and set(readers) == {readers[0]}
    assert readers[0].startswith("tree-reader")
    assert [n for n in started if n.startswith("tree-reader")] == [readers[0]]
    assert not [n for n in started if n.startswith("asyncio")]  # (the default pool's)
