"""The scheduler contract: what every scheduler of a measured segment offers the run, and the
one place a ticket's fate is counted.

A :class:`Scheduler` (:class:`~agentic_bench.load.runner.LoadRunner`, the sessions of a
scenario; :class:`~agentic_bench.load.lanes.LaneRunner`, agent trees in lanes) says how many
sessions it holds in flight at most (:attr:`Scheduler.streams`, the in-flight cap: it owns
it, and the run's connections and slots are sized from it), how many it will issue when it
knows in advance (:meth:`Scheduler.planned_sessions`), runs (:meth:`Scheduler.run`), stops
gracefully (:meth:`Scheduler.stop`: no new session; the ones in flight finish within the
load's grace, then are cancelled) or at once (:meth:`Scheduler.cancel`), and hands the records
its segment ends with (:meth:`Scheduler.final_records`). ``run/segments.py`` makes one, in one
place, from the run's load (:data:`~agentic_bench.options.load.LoadShape`).

:func:`settle` is the ticket accounting both schedulers share: a ticket handed to the executor
ends completed (its errors added) or cancelled; :attr:`RunStats.issued` is counted where a
scheduler issues it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from agentic_bench.contracts import Execute, SessionOutcome, SessionTicket


@dataclass
class RunStats:
    """What a scheduler's run did: sessions issued, completed, failed and cancelled, why it
    stopped, its start and end times and how late it started after a shared barrier."""

    issued: int = 0
    completed: int = 0
    errors: int = 0
    cancelled: int = 0
    stop_reason: str = "done"
    t_start_ns: int = 0
    t_end_ns: int = 0
    start_skew_ns: int = 0


class Scheduler(Protocol):
    """What ``run/segments.py`` needs of a scheduler (see the module's text)."""

    @property
    def streams(self) -> int | None:
        """The most sessions in flight at once (None: no cap, an open loop without
        ``--concurrency``)."""
        ...

    def planned_sessions(self) -> int | None:
        """The sessions the run will issue, when known in advance (None: it decides as it
        goes, e.g. until ``--duration``)."""
        ...

    async def run(self) -> RunStats:
        """Issue the load; returns what was done once every issued session has ended."""
        ...

    def stop(self) -> None:
        """Stop issuing (the first Ctrl-C); sessions in flight finish within the grace."""
        ...

    def cancel(self) -> None:
        """Cancel every session in flight now (the second Ctrl-C): no grace left."""
        ...

    def final_records(self) -> list[dict[str, Any]]:
        """The records the segment ends with, written after :meth:`run` (e.g. ``lanes``)."""
        ...


async def settle(stats: RunStats, execute: Execute, ticket: SessionTicket) -> SessionOutcome:
    """Run ``ticket`` through ``execute`` and count how it ended: completed (its errors added
    to ``stats.errors``) or cancelled (re-raised). An exception the executor let out is the
    caller's to record (it is neither completed nor cancelled here)."""
    try:
        outcome = await execute(ticket)
    except asyncio.CancelledError:
        stats.cancelled += 1
        raise
    stats.completed += 1
    stats.errors += outcome.errors
    return outcome


__all__ = ["RunStats", "Scheduler", "settle"]
