"""A metric's values as an exact value→count map: what a run keeps instead of its records.

A :class:`Distribution` counts each value at the metric's resolution — 1 µs for latencies
(:data:`MICROSECOND_MS`, values in ms), or the value itself (``resolution=None``) for counts
and ratios of integers. Its :meth:`describe` gives what :func:`~agentic_bench.metrics.
percentiles.describe` gives over the same values, rounded to the resolution: count, mean,
min, max and the percentiles by linear interpolation between closest ranks, all exact at that
resolution (no sampling, no bins). Memory is one entry per distinct value: a latency range of
a minute holds at most 60 million µs values, and a run's latencies cluster far tighter, so a
run of any length keeps a few thousand to a few hundred thousand entries.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Iterable
from fractions import Fraction

from agentic_bench.metrics.percentiles import PERCENTILES, STAT_KEYS

MICROSECOND_MS = 0.001  # 1 µs, in the ms unit latencies are recorded in
_PER_MS = 1000  # µs per ms: a latency's key is its value in whole µs


class Distribution:
    """Values counted at a resolution: ``MICROSECOND_MS`` (ms values kept in whole µs) or
    ``None`` (each value as it is)."""

    __slots__ = ("_counts", "_micro", "count")

    def __init__(self, resolution: float | None = MICROSECOND_MS) -> None:
        if resolution not in (MICROSECOND_MS, None):
            raise ValueError(f"resolution {resolution!r}: 1 µs (0.001 ms) or None (exact)")
        self._micro = resolution is not None
        self._counts: dict[float, int] = {}
        self.count = 0

    def add(self, value: float, n: int = 1) -> None:
        key: float = round(value * _PER_MS) if self._micro else value
        self._counts[key] = self._counts.get(key, 0) + n
        self.count += n

    def add_all(self, values: Iterable[float]) -> None:
        for value in values:
            self.add(value)

    def merge(self, other: Distribution) -> None:
        for key, n in other._counts.items():
            self._counts[key] = self._counts.get(key, 0) + n
        self.count += other.count

    def __len__(self) -> int:
        """Distinct values kept (the memory it holds), not the count of values."""
        return len(self._counts)

    def _value(self, key: float) -> float:
        return key / _PER_MS if self._micro else key

    def total(self) -> float:
        """The sum of the values at the resolution, exact and then rounded once (as
        ``math.fsum`` of them all)."""
        return float(sum((Fraction(self._value(k)) * n for k, n in self._counts.items()),
                         Fraction(0)))

    def _ranked(self) -> Callable[[int], float]:
        """The value at a 0-based rank of the sorted values."""
        keys = sorted(self._counts)
        ends = list(itertools.accumulate(self._counts[k] for k in keys))  # rank after each key

        def at(rank: int) -> float:
            return self._value(keys[bisect.bisect_right(ends, rank)])

        return at

    def describe(self) -> dict[str, float | int | None]:
        """count, mean, min, p50, p90, p95, p99, max (None when empty), as
        :func:`~agentic_bench.metrics.percentiles.describe` of the values at the resolution."""
        if not self.count:
            return {"count": 0, **{k: None for k in STAT_KEYS[1:]}}
        at = self._ranked()
        stats: dict[str, float | int | None] = {
            "count": self.count, "mean": self.total() / self.count, "min": at(0)}
        for p in PERCENTILES:
            stats[f"p{p}"] = _interpolate(at, self.count, p)
        stats["max"] = at(self.count - 1)
        return stats

    def percentile(self, p: float) -> float:
        """The ``p`` th percentile (linear interpolation between closest ranks)."""
        if not self.count:
            raise ValueError("percentile of no values")
        return _interpolate(self._ranked(), self.count, p)


def _interpolate(at: Callable[[int], float], count: int, p: float) -> float:
    """:func:`~agentic_bench.metrics.percentiles.percentile` over ranked values."""
    h = (count - 1) * p / 100.0
    lo = math.floor(h)
    hi = min(lo + 1, count - 1)
    low = at(lo)
    return low + (h - lo) * (at(hi) - low)


__all__ = ["MICROSECOND_MS", "Distribution"]
