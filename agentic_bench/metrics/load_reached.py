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

from collections.abc import Sequence
from typing import Any

SHORT_FRACTION = 0.9


def in_flight(intervals: Sequence[tuple[int, int]]) -> dict[str, float | int | None]:
    """Time-weighted mean and max of how many intervals overlap."""
    spans = [(a, b) for a, b in intervals if b >= a]
    if not spans:
        return {"mean": None, "max": 0}
    start = min(a for a, _ in spans)
    end = max(b for _, b in spans)
    events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans],
                    key=lambda e: (e[0], e[1]))
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    total = sum(b - a for a, b in spans)
    return {"mean": total / (end - start) if end > start else float(len(spans)), "max": peak}


def load_reached(sessions: Sequence[dict[str, Any]], llm: Sequence[dict[str, Any]],
                 scenario: dict[str, Any], lanes: int | None = None) -> dict[str, Any]:
    """The ``load`` block of summary.json."""
    sess = in_flight([(int(s["t_scheduled_ns"]), int(s["t_end_ns"])) for s in sessions
                      if "t_scheduled_ns" in s and "t_end_ns" in s])
    reqs = in_flight([(int(r["t_sent_ns"]), int(r["t_end_ns"])) for r in llm
                      if "t_sent_ns" in r and "t_end_ns" in r])
    out: dict[str, Any] = {"sessions_in_flight": sess, "requests_in_flight": reqs}
    kind = scenario.get("scenario")
    named = lanes if lanes is not None else (
        scenario.get("concurrency") if kind in ("concurrency", "multi-stream") else None)
    if named:
        out["named_streams"] = named
        peak = int(sess["max"] or 0)
        if peak < named:
            out["short"] = f"at most {peak} sessions were ever in flight of the {named} named"
    elif kind == "server" and scenario.get("rate"):
        starts = sorted(int(s["t_scheduled_ns"]) for s in sessions if "t_scheduled_ns" in s)
        if len(starts) > 1:
            achieved = (len(starts) - 1) / ((starts[-1] - starts[0]) / 1e9 or 1e-9)
            out["arrival_rate"] = achieved
            out["named_rate"] = scenario["rate"]
            if achieved < SHORT_FRACTION * scenario["rate"]:
                out["short"] = (f"sessions arrived at {achieved:.3g}/s of the "
                                f"{scenario['rate']:g}/s named")
    return out


__all__ = ["SHORT_FRACTION", "in_flight", "load_reached"]
