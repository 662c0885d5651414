"""summary.txt and report.html show the goodput fraction (SLO attainment) with its Wilson
interval beside the latency and rate intervals (#44)."""

from __future__ import annotations

from typing import Any

from agentic_bench.metrics.intervals import goodput_fraction_interval
from agentic_bench.reporting.intervals_text import interval_lines, interval_rows


def _summary(met: int, sessions: int) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "counts": {"sessions": sessions}, "goodput": {"sessions": met, "sessions_per_s": 1.0},
        "latency_ms": {}, "throughput": {}}
    summary["intervals"] = {"confidence": 0.95, "method": "bootstrap", "resamples": 1000,
                            "seed": 0, "sessions_used": sessions, "sessions_left_out": 0,
                            "latency_ms": {}, "throughput": {},
                            "goodput_fraction": goodput_fraction_interval(summary)}
    return summary


def test_goodput_fraction_is_shown_with_its_wilson_interval() -> None:
    summary = _summary(met=45, sessions=50)
    lo, hi = summary["intervals"]["goodput_fraction"]
    assert lo < 0.9 < hi
    row = [r for r in interval_rows(summary) if r[0] == "goodput fraction"]
    assert row == [["goodput fraction", "fraction", f"0.9000 [{lo:.4f}, {hi:.4f}]"]]
    line = [ln for ln in interval_lines(summary) if "goodput fraction" in ln]
    assert len(line) == 1 and line[0].strip().endswith(f"0.9000 [{lo:.4f}, {hi:.4f}]")


def test_no_goodput_fraction_row_without_sessions() -> None:
    summary = _summary(met=0, sessions=0)
    assert summary["intervals"]["goodput_fraction"] is None
    assert not [r for r in interval_rows(summary) if r[0] == "goodput fraction"]
