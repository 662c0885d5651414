"""One global seeded schedule, whatever the number of shards."""

from __future__ import annotations

import asyncio
from time import perf_counter_ns

import pytest

from agentic_bench.contracts import SessionOutcome, SessionTicket
from agentic_bench.load import LoadRunner, LoadSpec, SessionSource
from agentic_bench.trace import Session, Turn


def source(n: int) -> SessionSource:
    sessions = [Session(schema_version="1", session_id=f"s{i}", turns=[Turn(user="u")])
                for i in range(n)]
    return SessionSource(n, sessions.__getitem__)


def issued(spec: LoadSpec, shards: int) -> list[tuple[int, int]]:
    seen: list[tuple[int, int]] = []
    t_start = perf_counter_ns() + 20_000_000

    async def execute(ticket: SessionTicket) -> SessionOutcome:
        seen.append((ticket.index, ticket.scheduled_ns - t_start))
        await asyncio.sleep(0.001)
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)

    async def main() -> None:
        runners = [LoadRunner(spec, source(7), execute, shard=(k, shards), t_start_ns=t_start)
                   for k in range(shards)]
        await asyncio.gather(*(r.run() for r in runners))

    asyncio.run(main())
    return sorted(seen)


@pytest.mark.parametrize("shards", [2, 4])
def test_open_loop_schedule_is_identical(shards: int) -> None:
    spec = LoadSpec(scenario="server", rate=200.0, sessions=40, seed=9)
    one = issued(spec, 1)
    many = issued(spec, shards)
    assert [i for i, _ in one] == [i for i, _ in many] == list(range(40))
    assert [t for _, t in one] == [t for _, t in many]  # same scheduled offsets, to the ns


@pytest.mark.parametrize("shards", [2, 4])
def test_closed_loop_issues_every_session_once(shards: int) -> None:
    spec = LoadSpec(scenario="concurrency", concurrency=4, sessions=30)
    assert [i for i, _ in issued(spec, shards)] == list(range(30))
