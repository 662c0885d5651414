"""Lanes split over workers (load/lane_shards.py): worker k of N owns lanes l mod N == k and the
trees t mod N == k; over the workers a run draws exactly the trees one process draws (every
tree once, a --sessions count, a resume's skips), each lane's first tree is the one-process
one, the gate holds the measured phase until every worker's warm-up is done, and the merged
``lanes`` record has the one-process record's keys."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.contracts import SessionOutcome, SessionSource, SessionTicket
from agentic_bench.load.lane_shards import (
    LocalGate,
    lane_gate,
    merged_lanes_record,
    open_when_all,
    shard_lanes_record,
)
from agentic_bench.load.lanes import LaneRunner
from agentic_bench.options.load import LaneSpec
from agentic_bench.trace.weka import WekaCorpus, weka_session

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"
TREES = [weka_session(t) for t in WekaCorpus(DATA / "corpus.jsonl")]


def source(n: int) -> SessionSource:
    return SessionSource(n, lambda i: TREES[i % 2])


class Drawn:
    """An executor that records (lane, tree index, warm-up) and takes a time that depends on
    the tree, so lanes finish out of order."""

    def __init__(self) -> None:
        self.tickets: list[tuple[int, int, bool]] = []

    async def __call__(self, ticket: SessionTicket) -> SessionOutcome:
        assert ticket.lane is not None
        self.tickets.append((ticket.worker, ticket.index, ticket.lane.warmup))
        await asyncio.sleep(0.001 * (ticket.index % 7))
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)


def run_shares(spec: LaneSpec, trees: int, workers: int,
               skip: set[int] | None = None) -> tuple[list[LaneRunner], list[Drawn]]:
    """Every share's runner, run at once in one loop (their gate shared)."""
    gate = LocalGate()
    stop = asyncio.Event()
    executors = [Drawn() for _ in range(workers)]
    runners = [LaneRunner(spec, source(trees), executors[k], skip=skip, share=(k, workers),
                          run_id="feedc0ffee00",
                          gate=lane_gate(gate, stop) if workers > 1 else None)
               for k in range(workers)]

    async def opener() -> None:
        while not open_when_all(gate, workers, lead_s=0.01):
            await asyncio.sleep(0.001)

    async def main() -> None:
        await asyncio.gather(*([opener()] if workers > 1 else []), *(r.run() for r in runners))

    asyncio.run(main())
    return runners, executors


def measured(executors: list[Drawn]) -> Counter[int]:
    return Counter(index for ex in executors for _, index, warm in ex.tickets if not warm)


@pytest.mark.parametrize("workers", [2, 3])
def test_every_tree_once_over_the_workers_as_in_one_process(workers: int) -> None:
    spec = LaneSpec(lanes=8)
    _, one = run_shares(spec, 29, 1)
    runners, many = run_shares(spec, 29, workers)
    assert measured(many) == measured(one) == Counter(range(29))
    for k, ex in enumerate(many):  # whole lanes and whole trees per worker
        assert {lane % workers for lane, _, _ in ex.tickets} == {k}
        assert {index % workers for _, index, _ in ex.tickets} == {k}
    # each lane's first tree is the one-process one: lane l starts tree l
    firsts = {lane: index for ex in many for lane, index, _ in reversed(ex.tickets)}
    assert firsts == {lane: lane for lane in range(8)}
    assert sum(r.streams for r in runners) == 8


def test_a_session_count_and_a_resume_skip_draw_the_one_process_set() -> None:
    spec = LaneSpec(lanes=6, sessions=40, allow_wrap=True)
    skip = {1, 4, 5, 22}
    _, one = run_shares(spec, 13, 1, skip)
    _, two = run_shares(spec, 13, 2, skip)
    assert measured(two) == measured(one)
    assert sum(measured(one).values()) == 40 and not set(measured(one)) & skip


def test_wrap_cycles_each_workers_own_share() -> None:
    spec = LaneSpec(lanes=4, sessions=30, allow_wrap=True)
    runners, two = run_shares(spec, 5, 2)
    for k, ex in enumerate(two):
        assert {index % 5 % 2 for _, index, _ in ex.tickets} == {k}
    assert sum(measured(two).values()) == 30
    assert sum(r.stats.passes.total() for r in runners) == 30


def test_a_share_without_trees_leaves_its_lanes_unfilled_and_ends() -> None:
    spec = LaneSpec(lanes=4, allow_wrap=True, duration_s=0.2)
    runners, _ = run_shares(spec, 1, 2)  # one tree: worker 1's share is empty
    assert runners[1].stats.unfilled == 2 and runners[1].stats.issued == 0
    assert runners[0].stats.issued > 0


def test_the_gate_holds_the_measured_phase_until_every_warmup_is_done() -> None:
    spec = LaneSpec(lanes=4, trajectory=(0.5, 0.5), warmup_requests=1)
    runners, executors = run_shares(spec, 4, 2)
    starts = [r.stats.measured_wall_ns for r in runners]
    assert all(starts) and max(starts) - min(starts) < 50e6  # the gate's instant, give or take
    assert any(warm for ex in executors for _, _, warm in ex.tickets)


def test_the_merged_record_has_the_one_process_keys_and_the_spread() -> None:
    spec = LaneSpec(lanes=6)
    (one,), _ = run_shares(spec, 20, 1)
    runners, _ = run_shares(spec, 20, 2)
    parts = [shard_lanes_record(r) for r in runners]
    merged: dict[str, Any] = merged_lanes_record(spec, parts, "done")
    assert set(one.lanes_record()) <= set(merged)
    assert merged["trees_started"] == one.lanes_record()["trees_started"] == 20
    assert merged["workers"] == 2 and [p["worker"] for p in merged["per_worker"]] == [0, 1]
    assert merged["run_id"] == "feedc0ffee00" and 0.0 < merged["occupancy"] <= 1.0
    walls = [p["measured_start_wall_ns"] for p in parts]
    assert merged["measured_start_spread_ms"] == (max(walls) - min(walls)) / 1e6


def test_the_gate_opens_at_once_when_a_worker_fails() -> None:
    gate = LocalGate()
    gate.arrive()
    assert not open_when_all(gate, 2)
    before = time.time()
    assert open_when_all(gate, 2, force=True) and before <= gate.opens <= time.time()
