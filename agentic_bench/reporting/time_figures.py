"""Latency over time and latency histograms (interactive, :mod:`.interactive`).

Over time: every measured LLM request at the moment it was sent (seconds since the run
started) — TTFT, mean ITL and end-to-end latency — with rolling p50 and p99 lines and failed
requests as red marks. The dots are **downsampled for drawing** (per time bucket the fastest
and the slowest request are kept, so spikes survive; at most :data:`MAX_DOTS` dots); the
percentile lines are computed from **every** request (every chunk gap for ITL) in each time
window, with the summary's percentile method. Histograms bin every value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentic_bench.metrics.percentiles import percentile
from agentic_bench.reporting.html_template import figure
from agentic_bench.reporting.interactive import Axis, Chart, Trace, chart_html
from agentic_bench.reporting.plots import no_data
from agentic_bench.reporting.svg_axes import fmt_num

Record = dict[str, Any]
MAX_DOTS = 4000
WINDOWS = 60
BINS = 40
DOT, P50, P99, ERR = "#5b8fc7", "#2e7d32", "#e65100", "#c62828"
MIN_PER_WINDOW = 20  # values a window needs for its p99 to mean something
METRICS = (("ttft", "TTFT", "time to first token"),
           ("itl", "ITL", "mean inter-token latency of the request"),
           ("request", "end-to-end", "request latency, send to last byte"))


def _requests(records: Sequence[Record]) -> list[Record]:
    return [r for r in records if r.get("type") == "step" and r.get("kind") == "llm"
            and not r.get("warmup") and r.get("status") != "retried"
            and isinstance(r.get("t_sent_ns"), int)]


def _value(rec: Record, metric: str) -> float | None:
    if metric == "itl":
        gaps = rec.get("itl_ms")
        if isinstance(gaps, list) and gaps:
            return sum(gaps) / len(gaps)
        return rec.get("tpot_ms")
    return rec.get(f"{metric}_ms")


def _window_values(rec: Record, metric: str) -> list[float]:
    """What a window's percentiles are computed from: every chunk gap for ITL."""
    if metric == "itl" and isinstance(rec.get("itl_ms"), list):
        return [float(g) for g in rec["itl_ms"]]
    v = _value(rec, metric)
    return [] if v is None else [float(v)]


def downsample(points: Sequence[tuple[float, float]], limit: int = MAX_DOTS,
               ) -> list[tuple[float, float]]:
    """At most ``limit`` of ``points`` (time-sorted): the lowest and highest per time bucket."""
    if len(points) <= limit:
        return list(points)
    buckets = max(1, limit // 2)
    lo_t, hi_t = points[0][0], points[-1][0]
    span = (hi_t - lo_t) or 1.0
    keep: dict[int, tuple[int, int]] = {}
    for i, (t, v) in enumerate(points):
        b = min(int((t - lo_t) / span * buckets), buckets - 1)
        if b not in keep:
            keep[b] = (i, i)
        else:
            lo, hi = keep[b]
            keep[b] = (i if v < points[lo][1] else lo, i if v > points[hi][1] else hi)
    chosen = sorted({i for pair in keep.values() for i in pair})
    return [points[i] for i in chosen]


def rolling(requests: Sequence[Record], metric: str, t_lo: float, t_hi: float,
            windows: int = WINDOWS) -> list[tuple[float, float, float]]:
    """(window centre s, p50, p99) over equal time windows, from every value in each."""
    span = (t_hi - t_lo) or 1.0
    values: list[list[float]] = [[] for _ in range(windows)]
    for r in requests:
        t = r["t_sent_ns"] / 1e9
        values[min(int((t - t_lo) / span * windows), windows - 1)] += _window_values(r, metric)
    out = []
    for w, vals in enumerate(values):
        if vals:
            vals.sort()
            out.append((t_lo + (w + 0.5) * span / windows, percentile(vals, 50),
                        percentile(vals, 99)))
    return out


def over_time_figure(records: Sequence[Record], metric: str) -> str:
    _, short, what = next(m for m in METRICS if m[0] == metric)
    fig_id, title = f"plot-time-{metric}", f"{short} over the run"
    reqs = sorted(_requests(records), key=lambda r: r["t_sent_ns"])
    ok = [r for r in reqs if r.get("status") == "ok" and _value(r, metric) is not None]
    failed = [r for r in reqs if r.get("status") != "ok"] if metric == "request" else []
    if not ok and not failed:
        return figure(fig_id, title, no_data(f"no data: no request has a {short}"))
    times = [r["t_sent_ns"] / 1e9 for r in reqs]
    t_lo, t_hi = min(times), max(times)
    dots = downsample([(r["t_sent_ns"] / 1e9, float(_value(r, metric) or 0.0)) for r in ok])
    windows = max(1, min(WINDOWS, len(ok) // MIN_PER_WINDOW))
    lines = rolling(ok, metric, t_lo, t_hi, windows)
    marks = [(r["t_sent_ns"] / 1e9, float(r.get("request_ms") or 0.0)) for r in failed]
    rows: list[tuple[float, int, float]] = (
        [(t, 0, v) for t, v in dots] + [(t, 1, v) for t, v, _ in lines]
        + [(t, 2, v) for t, _, v in lines] + [(t, 3, v) for t, v in marks[:MAX_DOTS]])
    rows.sort(key=lambda row: row[0])
    names = [(f"{short} per request", "points", DOT), (f"{short} p50 (window)", "line", P50),
             (f"{short} p99 (window)", "line", P99), ("failed request", "marks", ERR)]
    used = sorted({row[1] for row in rows})
    traces = [Trace(names[k][0], [v if s == k else None for _, s, v in rows], "ms",
                    names[k][1], names[k][2]) for k in used]
    note = (f"{what}; {len(ok):,} requests" + (f", {len(dots):,} drawn" if len(dots) < len(ok)
                                              else "")
            + f"; p50/p99 over {len(lines)} windows of {(t_hi - t_lo) / windows:.3g} s from "
              "every value" + (f"; {len(failed):,} failed" if failed else ""))
    return chart_html(Chart(fig_id, title, Axis("time since start", "s"), Axis(short, "ms"),
                            [row[0] for row in rows], traces, note))


def histogram(values: Sequence[float], bins: int = BINS) -> list[tuple[float, int]]:
    """(bin centre, count) over ``bins`` equal bins from the smallest to the largest value."""
    if not values:
        return []
    lo, hi = min(values), max(values)
    width = (hi - lo) / bins or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(int((v - lo) / width), bins - 1)] += 1
    return [(lo + (i + 0.5) * width, n) for i, n in enumerate(counts)]


def histogram_figure(records: Sequence[Record], metric: str) -> str:
    _, short, what = next(m for m in METRICS if m[0] == metric)
    fig_id, title = f"plot-hist-{metric}", f"{short} histogram"
    ok = [r for r in _requests(records) if r.get("status") == "ok"]
    values = ([g for r in ok for g in _window_values(r, metric)] if metric == "itl"
              else [float(v) for r in ok if (v := _value(r, metric)) is not None])
    if not values:
        return figure(fig_id, title, no_data(f"no data: no request has a {short}"))
    bars = histogram(values)
    unit = "gaps" if metric == "itl" else "requests"
    ordered = sorted(values)
    note = (f"{'every chunk gap' if metric == 'itl' else what}; {len(values):,} {unit}; "
            f"p50 {fmt_num(percentile(ordered, 50))} ms, p99 {fmt_num(percentile(ordered, 99))} ms")
    return chart_html(Chart(fig_id, title, Axis(short, "ms"), Axis("count", unit),
                            [b[0] for b in bars],
                            [Trace(unit, [float(b[1]) for b in bars], unit, "bars", DOT)],
                            note, height=240))


def over_time_figures(records: Sequence[Record]) -> str:
    return "".join(over_time_figure(records, m) for m, _, _ in METRICS)


def histogram_figures(records: Sequence[Record]) -> str:
    return "".join(histogram_figure(records, m) for m, _, _ in METRICS)


__all__ = ["downsample", "histogram", "histogram_figures", "over_time_figures", "rolling"]
