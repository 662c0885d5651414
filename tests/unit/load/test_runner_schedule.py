"""The open loop starts every session at its scheduled instant, never before it."""

from __future__ import annotations

import asyncio
from time import perf_counter_ns

from agentic_bench.contracts import SessionOutcome, SessionSource, SessionTicket
from agentic_bench.load.runner import LoadRunner
from agentic_bench.options.load import LoadSpec
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


def test_a_resumed_open_loop_starts_at_its_first_unfinished_arrival() -> None:
    """Sessions finished in an earlier segment are skipped without waiting out their arrival
    times: the remaining schedule is re-based, keeping the gaps between the remaining ones."""
    from agentic_bench.load.arrivals import poisson_arrivals

    scheduled: list[tuple[int, int]] = []

    async def execute(ticket: SessionTicket) -> SessionOutcome:
        scheduled.append((ticket.index, ticket.scheduled_ns))
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)

    spec = LoadSpec(scenario="server", rate=20.0, sessions=6, seed=3)
    runner = LoadRunner(spec, SessionSource(1, lambda i: SESSION), execute, skip={0, 1, 2})
    asyncio.run(runner.run())
    offsets = list(poisson_arrivals(20.0, 3, 6))
    assert [i for i, _ in scheduled] == [3, 4, 5]
    t0 = runner.stats.t_start_ns
    assert scheduled[0][1] == t0  # not t0 + offsets[3]
    for (_, t), offset in zip(scheduled, offsets[3:], strict=True):
        assert t - t0 == int((offset - offsets[3]) * 1e9)


def test_an_arrival_inside_the_duration_is_sent_however_late_the_loop_reaches_it() -> None:
    """--duration ends issuing at the arrivals scheduled after it, not at the wall clock: a
    loop held up past the end (a loaded machine; here the first session blocks the loop)
    still sends every planned arrival, late, so the planned set never depends on load."""
    import time

    from agentic_bench.load import poisson_arrivals

    rate, duration = 50.0, 0.2
    planned = max(1, round(rate * duration))
    inside = sum(1 for t in poisson_arrivals(rate, 3, count=planned) if t < duration)

    async def execute(ticket: SessionTicket) -> SessionOutcome:
        if ticket.index == 0:
            time.sleep(duration + 0.1)  # blocks the event loop past the duration's end
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)

    spec = LoadSpec(scenario="server", rate=rate, duration_s=duration, seed=3)
    runner = LoadRunner(spec, SessionSource(1, lambda i: SESSION), execute)
    asyncio.run(runner.run())
    assert inside > 1 and runner.stats.issued == inside
