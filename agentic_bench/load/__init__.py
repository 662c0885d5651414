"""Load scenarios (pure arrival generators) and the async runner."""

from agentic_bench.contracts import SessionSource
from agentic_bench.load.arrivals import (
    burst_arrivals,
    constant_arrivals,
    poisson_arrivals,
    trace_arrivals,
)
from agentic_bench.load.runner import LoadRunner, RunStats
from agentic_bench.options.load import SCENARIOS, LoadSpec

__all__ = [
    "SCENARIOS",
    "LoadRunner",
    "LoadSpec",
    "RunStats",
    "SessionSource",
    "burst_arrivals",
    "constant_arrivals",
    "poisson_arrivals",
    "trace_arrivals",
]
