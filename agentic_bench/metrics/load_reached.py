"""The load a run actually reached, beside the load it named: sessions (or agent trees) and
requests in flight over time, from the records' own intervals.

``sessions_in_flight`` — from each session record's scheduled instant to its end; ``mean`` is
time-weighted over the run (Σ session time / the span from the first session's start to the
last one's end), ``max`` the most at any instant. ``requests_in_flight`` the same over LLM
requests (sent → last byte). A closed-loop run named N streams (``--scenario concurrency`` or
``multi-stream``, or N lanes) fell **short** when sessions in flight never reached N (its mean
says how well it held the load; a finite run drains at its end); a ``server`` run at rate R
when its sessions arrived at under 90 % of R. A sweep or search point that fell short is
marked, and a search never counts one as passing.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

SHORT_FRACTION = 0.9


class Intervals:
    """Intervals (start, end in ns) as two arrays of 64-bit integers: 16 bytes each, what the
    peak overlap needs (it is found by sorting them at the end)."""

    __slots__ = ("_ends", "_starts")

    def __init__(self) -> None:
        self._starts = array("q")
        self._ends = array("q")

    def add(self, start: int, end: int) -> None:
        if end >= start:
            self._starts.append(start)
            self._ends.append(end)

    def in_flight(self) -> dict[str, float | int | None]:
        """Time-weighted mean and max of how many intervals overlap (an interval ending at the
        instant another starts does not overlap it)."""
        n = len(self._starts)
        if not n:
            return {"mean": None, "max": 0}
        start, end = min(self._starts), max(self._ends)
        total = sum(self._ends) - sum(self._starts)
        return {"mean": total / (end - start) if end > start else float(n),
                "max": _peak(self._starts, self._ends)}


def _peak(starts: array[int], ends: array[int]) -> int:
    """The most intervals open at once: after the i-th start (sorted), i + 1 have started and
    every one ending at or before that instant has ended."""
    try:
        import numpy as np
    except ImportError:  # pure Python: the same sweep over sorted copies
        s, e = sorted(starts), sorted(ends)
        peak = ended = 0
        for i, t in enumerate(s):
            while ended < len(e) and e[ended] <= t:
                ended += 1
            peak = max(peak, i + 1 - ended)
        return peak
    s_np = np.sort(np.frombuffer(starts, dtype=np.int64))
    e_np = np.sort(np.frombuffer(ends, dtype=np.int64))
    ended_np = np.searchsorted(e_np, s_np, side="right")
    return max(0, int((np.arange(1, len(s_np) + 1) - ended_np).max()))


def in_flight(intervals: Iterable[tuple[int, int]]) -> dict[str, float | int | None]:
    """Time-weighted mean and max of how many intervals overlap."""
    held = Intervals()
    for a, b in intervals:
        held.add(a, b)
    return held.in_flight()


class LoadTally:
    """What the ``load`` block needs, fed session and LLM step records one at a time."""

    def __init__(self) -> None:
        self.sessions = Intervals()
        self.requests = Intervals()
        self.arrivals = 0  # sessions with a scheduled instant: their first and last
        self.first_arrival: int | None = None
        self.last_arrival: int | None = None

    def add_session(self, s: dict[str, Any]) -> None:
        if "t_scheduled_ns" not in s:
            return
        at = int(s["t_scheduled_ns"])
        if "t_end_ns" in s:
            self.sessions.add(at, int(s["t_end_ns"]))
        self.arrivals += 1
        self.first_arrival = at if self.first_arrival is None else min(self.first_arrival, at)
        self.last_arrival = at if self.last_arrival is None else max(self.last_arrival, at)

    def add_llm(self, r: dict[str, Any]) -> None:
        if "t_sent_ns" in r and "t_end_ns" in r:
            self.requests.add(int(r["t_sent_ns"]), int(r["t_end_ns"]))

    def block(self, scenario: dict[str, Any], lanes: int | None = None) -> dict[str, Any]:
        """The ``load`` block of summary.json."""
        sess = self.sessions.in_flight()
        out: dict[str, Any] = {"sessions_in_flight": sess,
                               "requests_in_flight": self.requests.in_flight()}
        kind = scenario.get("scenario")
        named = lanes if lanes is not None else (
            scenario.get("concurrency") if kind in ("concurrency", "multi-stream") else None)
        if named:
            out["named_streams"] = named
            peak = int(sess["max"] or 0)
            if peak < named:
                out["short"] = f"at most {peak} sessions were ever in flight of the {named} named"
        elif kind == "server" and scenario.get("rate") and self.arrivals > 1:
            assert self.first_arrival is not None and self.last_arrival is not None
            achieved = (self.arrivals - 1) / (
                (self.last_arrival - self.first_arrival) / 1e9 or 1e-9)
            out["arrival_rate"] = achieved
            out["named_rate"] = scenario["rate"]
            if achieved < SHORT_FRACTION * scenario["rate"]:
                out["short"] = (f"sessions arrived at {achieved:.3g}/s of the "
                                f"{scenario['rate']:g}/s named")
        return out


def load_reached(sessions: Sequence[dict[str, Any]], llm: Sequence[dict[str, Any]],
                 scenario: dict[str, Any], lanes: int | None = None) -> dict[str, Any]:
    """The ``load`` block of summary.json."""
    tally = LoadTally()
    for s in sessions:
        tally.add_session(s)
    for r in llm:
        tally.add_llm(r)
    return tally.block(scenario, lanes)


__all__ = ["SHORT_FRACTION", "Intervals", "LoadTally", "in_flight", "load_reached"]
