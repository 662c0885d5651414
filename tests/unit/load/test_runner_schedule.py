"""The open loop starts every session at its scheduled instant, never before it."""

from __future__ import annotations

import asyncio
from time import perf_counter_ns

from agentic_bench.load.runner import LoadRunner, SessionSource
from agentic_bench.load.spec import LoadSpec
from agentic_bench.replay.session import SessionOutcome, SessionTicket
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn

SESSION = Session(schema_version=SCHEMA_VERSION, session_id="s", turns=[Turn(user="hi")])


def run_server(rate: float, sessions: int) -> tuple[list[int], LoadRunner]:
    lags: list[int] = []

    async def execute(ticket: SessionTicket) -> SessionOutcome:
        lags.append(perf_counter_ns() - ticket.scheduled_ns)
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)

    spec = LoadSpec(scenario="server", rate=rate, sessions=sessions, seed=7)
    runner = LoadRunner(spec, SessionSource(1, lambda i: SESSION), execute)

    async def go() -> None:
        await runner.run()

    asyncio.run(go())
    return lags, runner


def test_sessions_never_start_before_their_arrival() -> None:
    lags, runner = run_server(rate=400, sessions=200)
    assert runner.stats.completed == 200
    # the arrival timer fires early on purpose; the cooperative wait must make up the rest
    assert min(lags) >= 0


def test_stop_event_interrupts_a_long_wait() -> None:
    async def go() -> tuple[float, str]:
        async def execute(ticket: SessionTicket) -> SessionOutcome:
            return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)

        spec = LoadSpec(scenario="server", rate=0.01, sessions=3, seed=1)
        runner = LoadRunner(spec, SessionSource(1, lambda i: SESSION), execute)
        task = asyncio.ensure_future(runner.run())
        await asyncio.sleep(0.05)
        t = perf_counter_ns()
        runner.stop_event.set()
        await asyncio.wait_for(task, 5)
        return (perf_counter_ns() - t) / 1e9, runner.stats.stop_reason

    took, reason = asyncio.run(go())
    assert took < 1.0 and reason == "interrupted"
