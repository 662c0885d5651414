"""Sweeps: one curve of throughput vs latency (and goodput) over a list of load points.

The knee is where latency starts to rise faster than throughput: on the (throughput, p99
request latency) curve with both axes normalised to [0, 1], the inner point farthest below the
chord between the first and last points, when at least 0.1 below it (the "Kneedle" idea, for a
curve that bends upward). A straight line, a flattening curve or fewer than 3 points: no knee.
"""

from __future__ import annotations

import math
from typing import Any


def sweep_point(key: str, value: float, summary: dict[str, Any]) -> dict[str, Any]:
    lat = summary["latency_ms"]
    return {
        key: value,
        "result": summary["result"],
        "requests_per_s": summary["throughput"]["requests_per_s"],
        "output_tokens_per_s": summary["throughput"]["output_tokens_per_s"],
        "sessions_per_s": summary["throughput"]["sessions_per_s"],
        "goodput_sessions_per_s": summary["goodput"]["sessions_per_s"],
        "ttft_p50_ms": lat["ttft"]["p50"], "ttft_p99_ms": lat["ttft"]["p99"],
        "tpot_p50_ms": lat["tpot"]["p50"], "tpot_p99_ms": lat["tpot"]["p99"],
        "request_p50_ms": lat["request"]["p50"], "request_p99_ms": lat["request"]["p99"],
        "errors": summary["counts"]["errors"], "out_dir": summary.get("out_dir"),
        # where and when: the sweep page names the endpoint, the model and the date
        "endpoint": (summary.get("endpoint") or {}).get("url"),
        "model": (summary.get("endpoint") or {}).get("model"),
        "started_at": summary.get("started_at"),
        "in_flight_mean": ((summary.get("load") or {}).get("sessions_in_flight") or {})
        .get("mean"),
        "in_flight_max": ((summary.get("load") or {}).get("sessions_in_flight") or {})
        .get("max"),
        **({"short": summary["load"]["short"]} if (summary.get("load") or {}).get("short")
           else {}),
        **_tree_figures(summary),
    }


def _tree_figures(summary: dict[str, Any]) -> dict[str, Any]:
    """A run over agent trees adds what InferenceX AgentX charts (metrics/trees.py)."""
    trees = summary.get("trees")
    if not trees:
        return {}
    per_gpu = trees["throughput"]["per_gpu"]
    lanes = (trees.get("trees") or {}).get("lanes") or {}
    return {"p90_interactivity": trees["interactivity"].get("p90"),
            "output_tokens_per_s_per_gpu": per_gpu.get("output_tokens_per_s"),
            "total_tokens_per_s_per_gpu": per_gpu.get("total_tokens_per_s"),
            "lane_occupancy": lanes.get("occupancy"),
            "lanes_short": bool(lanes.get("starved") or lanes.get("unfilled"))}


KNEE_MIN_DISTANCE = 0.1  # of the normalised [0, 1] x [0, 1] plot


def knee_index(xs: list[float], ys: list[float]) -> int | None:
    """The point where latency starts to rise faster than throughput, or None.

    Both axes are normalised to [0, 1]; the knee is the inner point farthest *below* the chord
    from the first to the last point (the curve bends upward after it), and only when that
    distance is at least :data:`KNEE_MIN_DISTANCE`. A straight line, a curve that flattens
    (above the chord) or fewer than 3 points has no knee.
    """
    if len(xs) < 3:
        return None

    def norm(v: list[float]) -> list[float]:
        lo, hi = min(v), max(v)
        return [0.0 if hi == lo else (x - lo) / (hi - lo) for x in v]

    nx, ny = norm(xs), norm(ys)
    (x0, y0), (x1, y1) = (nx[0], ny[0]), (nx[-1], ny[-1])
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    # signed: > 0 when the point lies below the chord (for a chord going up and right)
    below = [((y1 - y0) * x - (x1 - x0) * y + x1 * y0 - y1 * x0) / length
             for x, y in zip(nx, ny, strict=True)]
    best = max(range(1, len(xs) - 1), key=below.__getitem__)
    return best if below[best] >= KNEE_MIN_DISTANCE else None


def sweep_summary(key: str, points: list[dict[str, Any]]) -> dict[str, Any]:
    ys = [p["request_p99_ms"] or 0.0 for p in points]
    xs = [p["requests_per_s"] for p in points]
    knee = knee_index(xs, ys)
    if knee is not None and (points[knee].get("result") == "INVALID" or points[knee].get("short")):
        knee = None  # a point whose run is INVALID (or fell short) is no knee to read off
    return {"schema": "agentic-bench/sweep", "version": 1, "key": key, "points": points,
            "knee": None if knee is None else {"index": knee, key: points[knee][key]}}
