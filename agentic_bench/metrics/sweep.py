"""Sweeps: one curve of throughput vs latency (and goodput) over a list of load points.

The knee is where latency starts to rise faster than throughput: on the (throughput, p99
request latency) curve with both axes normalised to [0, 1], the inner point farthest below the
chord between the first and last points, when at least 0.1 below it (the "Kneedle" idea, for a
curve that bends upward). A straight line, a flattening curve or fewer than 3 points: no knee.
"""

from __future__ import annotations

import math
from typing import Any

from agentic_bench.metrics.declarations import shown_in
from agentic_bench.metrics.summary_model import Summary


def sweep_point(key: str, value: float, summary: Summary | dict[str, Any]) -> dict[str, Any]:
    """One point of a sweep: the run's rates, goodput and the p50 and p99 of every metric of
    the ``sweep`` view (metrics/declarations.py), as ``<metric>_p50_ms`` and ``_p99_ms``."""
    run = Summary.of(summary)
    in_flight = run.load.sessions_in_flight if run.load else None
    return {
        key: value,
        "result": run.result,
        "requests_per_s": run.throughput.requests_per_s,
        "output_tokens_per_s": run.throughput.output_tokens_per_s,
        "sessions_per_s": run.throughput.sessions_per_s,
        "goodput_sessions_per_s": run.goodput.sessions_per_s,
        **{f"{decl.name}_{stat}_ms": run.latency(decl.name, stat)
           for decl in shown_in("sweep") for stat in SWEEP_STATS},
        "errors": run.counts.errors, "out_dir": run.out_dir,
        # where and when: the sweep page names the endpoint, the model and the date
        "endpoint": run.endpoint.url,
        "model": run.endpoint.model,
        "started_at": run.started_at,
        "in_flight_mean": in_flight.mean if in_flight else None,
        "in_flight_max": in_flight.max if in_flight else None,
        **({"short": run.load.short} if run.load and run.load.short else {}),
        **_tree_figures(run.trees),
        **_scored_figures(run),
    }


def _scored_figures(run: Summary) -> dict[str, Any]:
    """A scored run adds its accuracy, task goodput, pass^k and why tasks did not count
    (metrics/scored_tasks.py)."""
    tasks = run.tasks
    if tasks is None:
        return {}
    return {"accuracy": tasks.accuracy, "accuracy_interval": tasks.accuracy_interval,
            "correct_tasks": tasks.correct, "correct_within_slo": tasks.correct_within_slo,
            "tasks_scored": tasks.scored, "task_goodput_per_s": tasks.task_goodput_per_s,
            "task_goodput_interval": tasks.task_goodput_interval,
            "pass_hat_k": tasks.pass_hat_k, "trials": tasks.trials,
            "failure_causes": dict(tasks.causes)}


def mark_accuracy_drops(key: str, points: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Mark (``accuracy_outside``) each scored point whose accuracy lies outside the Wilson
    interval of the lowest-load point's; returns that baseline (None: no scored point)."""
    scored = [p for p in points if p.get("accuracy") is not None]
    if not scored:
        return None
    base = min(scored, key=lambda p: p[key])
    bounds = base.get("accuracy_interval")
    for p in scored:
        p["accuracy_outside"] = bool(
            p is not base and bounds and not bounds[0] <= p["accuracy"] <= bounds[1])
    return {key: base[key], "accuracy": base["accuracy"], "accuracy_interval": bounds}


SWEEP_STATS = ("p50", "p99")  # each sweep-view metric's statistics in a point


def _tree_figures(trees: dict[str, Any] | None) -> dict[str, Any]:
    """A run over agent trees adds what InferenceX AgentX charts (metrics/trees.py)."""
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
    baseline = mark_accuracy_drops(key, points)
    return {"schema": "agentic-bench/sweep", "version": 1, "key": key, "points": points,
            "knee": None if knee is None else {"index": knee, key: points[knee][key]},
            **({"accuracy_baseline": baseline} if baseline is not None else {})}
