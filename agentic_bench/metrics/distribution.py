"""A metric's values as an exact value→count map: what a run keeps instead of its records.

A :class:`Distribution` counts each value at the metric's resolution — 1 µs for latencies
(:data:`MICROSECOND_MS`, values in ms), or the value itself (``resolution=None``) for counts
and ratios of integers. Its :meth:`describe` gives what :func:`~agentic_bench.metrics.
percentiles.describe` gives over the same values, rounded to the resolution: count, mean,
min, max and the percentiles by linear interpolation between closest ranks, all exact at that
resolution (no sampling, no bins). Memory follows the range of the values, not their number:
8 bytes per µs up to the largest latency under a second, about 100 bytes per distinct value
beyond it (at most 8 MB and 100 bytes per distinct slow value, per metric).
"""

from __future__ import annotations

import bisect
import itertools
import math
from array import array
from collections.abc import Callable, Iterable

from agentic_bench.metrics.percentiles import PERCENTILES, STAT_KEYS

MICROSECOND_MS = 0.001  # 1 µs, in the ms unit latencies are recorded in
_PER_MS = 1000  # µs per ms: a latency's key is its value in whole µs
DENSE_US = 1 << 20  # latencies under ~1.05 s are counted in an array slot per µs


class Distribution:
    """Values counted at a resolution: ``MICROSECOND_MS`` (ms values kept in whole µs) or
    ``None`` (each value as it is).

    A latency from 0 to :data:`DENSE_US` µs is counted in an array slot (8 bytes per µs of
    the range the run reached, grown as it is reached); other values in a dict (about 100
    bytes per distinct value), so memory follows the range of the values, not their number.
    """

    __slots__ = ("_dense", "_micro", "_sparse", "count")

    def __init__(self, resolution: float | None = MICROSECOND_MS) -> None:
        if resolution not in (MICROSECOND_MS, None):
            raise ValueError(f"resolution {resolution!r}: 1 µs (0.001 ms) or None (exact)")
        self._micro = resolution is not None
        self._dense = array("Q")  # µs → count, for 0 <= µs < DENSE_US
        self._sparse: dict[float, int] = {}
        self.count = 0

    def add(self, value: float, n: int = 1) -> None:
        self.count += n
        if self._micro:
            key = round(value * _PER_MS)
            if 0 <= key < DENSE_US:
                dense = self._dense
                if key >= len(dense):
                    grown = min(DENSE_US, max(key + 1, 2 * len(dense), 1024))
                    dense.frombytes(bytes(dense.itemsize * (grown - len(dense))))
                dense[key] += n
                return
            self._sparse[key] = self._sparse.get(key, 0) + n
            return
        self._sparse[value] = self._sparse.get(value, 0) + n

    def add_all(self, values: Iterable[float]) -> None:
        """Each of ``values`` once (the per-token gaps of a reply: the dense path inlined)."""
        if not self._micro:
            for value in values:
                self.add(value)
            return
        if isinstance(values, list) and values and values.count(values[0]) == len(values):
            self.add(values[0], len(values))  # one value throughout (one read: gaps of 0)
            return
        dense = self._dense
        for value in values:
            key = round(value * _PER_MS)
            if 0 <= key < len(dense):
                dense[key] += 1
                self.count += 1
            else:
                self.add(value)

    def distinct(self) -> int:
        """How many distinct values are held."""
        return sum(1 for n in self._dense if n) + len(self._sparse)

    def _items(self) -> list[tuple[float, int]]:
        """(key, count) in ascending order of value."""
        sparse = sorted(self._sparse.items())
        if not self._dense:
            return sparse
        dense = [(key, n) for key, n in enumerate(self._dense) if n]
        return [kv for kv in sparse if kv[0] < 0] + dense + [kv for kv in sparse if kv[0] >= 0]

    def counts(self) -> list[tuple[float, int]]:
        """(value at the resolution, how many times) in ascending order of value."""
        return [(self._value(key), n) for key, n in self._items()]

    def _value(self, key: float) -> float:
        return key / _PER_MS if self._micro else key

    def total(self) -> float:
        """The sum of the values at the resolution, exact and then rounded once (as
        ``math.fsum`` of them all): every value is a binary fraction, summed as integers over
        their common power-of-two denominator."""
        ratios = [(self._value(key).as_integer_ratio(), n) for key, n in self._items()]
        if not ratios:
            return 0.0
        den = max(d for (_, d), _ in ratios)
        return sum(num * (den // d) * n for (num, d), n in ratios) / den

    def _ranked(self) -> Callable[[int], float]:
        """The value at a 0-based rank of the sorted values."""
        items = self._items()
        keys = [key for key, _ in items]
        ends = list(itertools.accumulate(n for _, n in items))  # rank after each key

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


__all__ = ["DENSE_US", "MICROSECOND_MS", "Distribution"]
