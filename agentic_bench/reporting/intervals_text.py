"""The confidence intervals of a summary as text lines (summary.txt) and as table rows
(report.html): ``p99 412.00 [398.10, 431.55]`` — each figure beside its 95 % interval."""

from __future__ import annotations

from typing import Any

from agentic_bench.metrics.intervals import STATS, shown
from agentic_bench.metrics.summary_model import Summary

RATES = (("requests_per_s", "requests/s"), ("output_tokens_per_s", "output tok/s"),
         ("sessions_per_s", "sessions/s"), ("goodput_sessions_per_s", "goodput sessions/s"))


def _rate_value(summary: Summary, key: str) -> Any:
    if key == "goodput_sessions_per_s":
        return summary.goodput.given("sessions_per_s")
    return summary.throughput.given(key)


def _goodput_fraction(summary: Summary) -> float | None:
    """Sessions that met every SLO over sessions issued (the figure the Wilson interval of
    ``intervals.goodput_fraction`` is about); None without sessions."""
    sessions = int(summary.counts.sessions or 0)
    met = int(summary.goodput.sessions or 0)
    return met / sessions if sessions else None


def interval_rows(given: Summary | dict[str, Any]) -> list[list[str]]:
    """[figure, statistic, value [lo, hi]] for every figure that has an interval."""
    summary = Summary.of(given)
    block = summary.intervals
    if block is None:
        return []
    rows: list[list[str]] = []
    for name, bounds in block.latency_ms.items():
        stats = summary.latency_ms.get(name)
        rows += [[f"{name} (ms)", stat, shown(stats.given(stat) if stats else None,
                                               bounds.get(stat))]
                 for stat in STATS if stat in bounds]
    for key, label in RATES:
        rate = block.throughput.get(key)
        if rate:
            rows.append([label, "rate", shown(_rate_value(summary, key), rate, 3)])
    fraction = _goodput_fraction(summary)
    if block.goodput_fraction and fraction is not None:
        rows.append(["goodput fraction", "fraction", shown(fraction, block.goodput_fraction, 4)])
    if block.accuracy:
        acc = (summary.accuracy or {}).get("headline")
        rows.append(["accuracy", "headline", shown(acc, block.accuracy, 4)])
    return rows


def interval_lines(given: Summary | dict[str, Any]) -> list[str]:
    """The summary.txt block: one line per figure, its four statistics with intervals."""
    summary = Summary.of(given)
    block = summary.intervals
    if block is None or not block.model_fields_set:
        return []
    if block.error:
        return ["", f"Intervals : {block.error}"]
    if block.note:
        return ["", f"Intervals : {block.note}"]
    left = block.sessions_left_out
    head = (f"95% intervals (sessions resampled: {block.sessions_used:,} sessions"
            + (f", a seeded subset; {left:,} left out by the value budget" if left else "")
            + f", {block.resamples} resamples, seed {block.seed})")
    lines = ["", head]
    by: dict[str, list[str]] = {}
    for figure, stat, text in interval_rows(summary):
        by.setdefault(figure, []).append(text if stat in ("rate", "headline", "fraction")
                                         else f"{stat} {text}")
    lines += [f"  {figure:<20}" + "   ".join(parts) for figure, parts in by.items()]
    return lines


__all__ = ["interval_lines", "interval_rows"]
