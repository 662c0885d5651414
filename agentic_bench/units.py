"""Time-unit constants, defined once: every conversion between the harness's nanosecond
timestamps (``time.perf_counter_ns()``) and the milliseconds and seconds of records, reports
and settings uses these names. At the bottom of the house: it imports nothing.

The values are integers, so ``ns / NS_PER_MS`` is Python's correctly rounded true division
and ``int(ms * NS_PER_MS)`` multiplies as a float, as with the literals they replace.
"""

from __future__ import annotations

NS_PER_MS = 1_000_000
"""Nanoseconds per millisecond."""
NS_PER_S = 1_000_000_000
"""Nanoseconds per second."""

__all__ = ["NS_PER_MS", "NS_PER_S"]
