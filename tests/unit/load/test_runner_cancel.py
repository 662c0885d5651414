"""A second Ctrl-C cancels in-flight sessions at once without changing the validated options
(#32: bench.py, now run/, set ``runner.spec.grace_s = 0`` on the run's LoadSpec)."""

from __future__ import annotations

import asyncio

from agentic_bench.contracts import SessionOutcome, SessionSource, SessionTicket
from agentic_bench.load.runner import LoadRunner
from agentic_bench.options.load import LoadSpec
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn

SESSION = Session(schema_version=SCHEMA_VERSION, session_id="s", turns=[Turn(user="hi")])


def test_cancel_all_leaves_the_spec_alone_and_ends_the_run_now() -> None:
    started = asyncio.Event()

    async def execute(ticket: SessionTicket) -> SessionOutcome:
        started.set()
        await asyncio.sleep(60)  # a session that would outlast any grace
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)

    spec = LoadSpec(scenario="concurrency", concurrency=2, sessions=4, grace_s=30.0)
    runner = LoadRunner(spec, SessionSource(4, lambda i: SESSION), execute)

    async def go() -> float:
        loop = asyncio.get_running_loop()
        run = asyncio.ensure_future(runner.run())
        await started.wait()
        t0 = loop.time()
        runner.stop_event.set()  # the first Ctrl-C: no new sessions, in-flight ones may finish
        await asyncio.sleep(0.05)
        runner.cancel_all()  # the second: cancel them, no grace left
        await run
        return loop.time() - t0

    elapsed = asyncio.run(go())
    assert elapsed < 5  # not the 30 s grace, not the 60 s sessions
    assert runner.grace_s == 0 and spec.grace_s == 30.0 and runner.spec.grace_s == 30.0
