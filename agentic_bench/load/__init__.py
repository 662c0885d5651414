"""Load: when sessions are issued (pure arrival generators) and the async runner that issues them.

:class:`LoadSpec` is a run's load (scenario, rate, concurrency, sessions, duration; the names
of :data:`SCENARIOS`); :func:`constant_arrivals`, :func:`poisson_arrivals`,
:func:`burst_arrivals` and :func:`trace_arrivals` are the scenarios' schedules;
:class:`LoadRunner` issues :class:`SessionSource` sessions on them and returns its
:class:`RunStats`; it and ``load.lanes.LaneRunner`` (agent trees in lanes) are the two
:class:`Scheduler` implementations (``load/scheduler.py``: the contract, and the ticket
accounting they share). The scheduler's own wait is ``load.clock.sleep_until``.
"""

from agentic_bench.contracts import SessionSource
from agentic_bench.load.arrivals import (
    burst_arrivals,
    constant_arrivals,
    poisson_arrivals,
    trace_arrivals,
)
from agentic_bench.load.runner import LoadRunner
from agentic_bench.load.scheduler import RunStats, Scheduler
from agentic_bench.options.load import SCENARIOS, LoadSpec

__all__ = [
    "SCENARIOS",
    "LoadRunner",
    "LoadSpec",
    "RunStats",
    "Scheduler",
    "SessionSource",
    "burst_arrivals",
    "constant_arrivals",
    "poisson_arrivals",
    "trace_arrivals",
]
