"""#44 item 2: the combined view of repeated runs flags a figure whose runs' intervals do not
overlap (they disagree beyond their own noise)."""

from __future__ import annotations

from typing import Any

from agentic_bench.run.repeat import combine


def _summary(p99: float, bounds: list[float]) -> dict[str, Any]:
    return {"result": "VALID", "latency_ms": {"ttft": {"mean": p99 / 2, "p50": p99 / 2,
                                                       "p90": p99, "p99": p99}},
            "intervals": {"latency_ms": {"ttft": {"p99": bounds}}}}


def test_disagreeing_runs_are_unstable_agreeing_ones_are_not() -> None:
    agree = combine([_summary(100, [95, 105]), _summary(102, [97, 107])])
    figure = agree["figures"]["ttft_p99_ms"]
    assert not figure["unstable"] and figure["values"] == [100.0, 102.0]
    assert figure["within_run_half_width"] == 5.0 and figure["mean"] == 101.0
    apart = combine([_summary(100, [95, 105]), _summary(130, [125, 135])])
    assert apart["figures"]["ttft_p99_ms"]["unstable"]
    assert apart["unstable"] == ["ttft_p99_ms"]
    assert apart["figures"]["ttft_p99_ms"]["between_run_sd"] > 20
