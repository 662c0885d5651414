"""Arrival schedules as pure, seeded generators of send offsets (seconds from run start).

``server`` arrivals are a Poisson process. When the number of arrivals is known (``--sessions``
or ``rate × --duration``) the process is *conditioned on that count*: the arrival times are
sorted independent uniform draws over ``[0, count / rate)``, which is exactly a Poisson
process given its count — the achieved rate equals the target and inter-arrival times stay
exponential-like (coefficient of variation ≈ 1). Without a known count the gaps are plain
exponential draws. The same seed always gives the same schedule.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator

from agentic_bench.errors import ConfigError


def poisson_arrivals(rate: float, seed: int, count: int | None = None) -> Iterator[float]:
    """Start offsets (seconds) of a Poisson process at ``rate`` per second, reproducible by
    ``seed``; ``count`` of them, or without end."""
    if rate <= 0:
        raise ConfigError(f"--rate {rate}: must be > 0 sessions/s")
    rng = random.Random(seed)
    if count is not None:
        span = count / rate
        yield from sorted(rng.random() * span for _ in range(count))
        return
    t = 0.0
    while True:
        t += rng.expovariate(rate)
        yield t


def constant_arrivals(rate: float, count: int | None = None) -> Iterator[float]:
    """Evenly spaced start offsets (seconds) at ``rate`` per second; ``count`` of them, or
    without end."""
    if rate <= 0:
        raise ConfigError(f"--rate {rate}: must be > 0 sessions/s")
    counter = itertools.count() if count is None else range(count)
    for i in counter:
        yield i / rate


def burst_arrivals(count: int | None = None) -> Iterator[float]:
    """Everything at t=0 (the ``offline`` scenario)."""
    counter = itertools.count() if count is None else range(count)
    for _ in counter:
        yield 0.0


def trace_arrivals(offsets: Iterable[float | None], cycle_span_s: float | None = None,
                   count: int | None = None) -> Iterator[float]:
    """Recorded start offsets; cycling through the trace shifts each pass by its span."""
    base = [o or 0.0 for o in offsets]
    if not base:
        return
    span = cycle_span_s if cycle_span_s is not None else (max(base) + 1.0)
    for i in itertools.count() if count is None else range(count):
        yield base[i % len(base)] + (i // len(base)) * span
