"""Exact percentiles (no sampling): sort, then linear interpolation between closest ranks.

``p`` of n sorted values is ``v[floor(h)] + (h - floor(h)) * (v[floor(h)+1] - v[floor(h)])``
with ``h = (n - 1) * p / 100`` — the same as numpy's default ("linear") method.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

PERCENTILES = (50, 90, 95, 99)
STAT_KEYS = ("count", "mean", "min", "p50", "p90", "p95", "p99", "max")


def percentile(sorted_values: list[float], p: float) -> float:
    """The exact ``p``-th percentile (0-100) of already sorted values."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    h = (len(sorted_values) - 1) * p / 100.0
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def describe(values: Iterable[float]) -> dict[str, float | int | None]:
    """count, mean, min, p50, p90, p95, p99, max of ``values`` (None when empty)."""
    data = sorted(values)
    if not data:
        return {"count": 0, **{k: None for k in STAT_KEYS[1:]}}
    stats: dict[str, float | int | None] = {
        "count": len(data),
        "mean": math.fsum(data) / len(data),
        "min": data[0],
    }
    for p in PERCENTILES:
        stats[f"p{p}"] = percentile(data, p)
    stats["max"] = data[-1]
    return stats
