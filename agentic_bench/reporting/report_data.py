"""Pure functions from run records (and summary.json) to the data series the report plots.

Latency values follow the definitions of :mod:`agentic_bench.metrics.aggregate` (successful
requests, turns and sessions only), so the plots agree with the summary's percentiles.
Large data sets are reduced here (quantile-sampled CDFs, strided scatter, max-envelope
in-flight) so report.html stays small for a million records.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from agentic_bench.metrics.declarations import field_of, in_latency_population, latency_metrics
from agentic_bench.metrics.percentiles import percentile
from agentic_bench.reporting.svg_axes import nice_step

Point = tuple[float, float]
Record = dict[str, Any]
CDF_POINTS = 400
SCATTER_POINTS = 4000
INFLIGHT_BINS = 800


def _steps(records: Iterable[Record]) -> list[Record]:
    return [r for r in records if r.get("type") == "step"]


def llm_steps(records: Iterable[Record]) -> list[Record]:
    return [r for r in _steps(records) if r.get("kind") == "llm"]


def latency_values(records: Iterable[Record]) -> dict[str, list[float]]:
    """Values behind each declared latency metric of summary.json, in milliseconds (ok LLM
    steps, turns and sessions), in one pass: a stream of records is read once, and only the
    values are kept."""
    decls = latency_metrics()
    out: dict[str, list[float]] = {d.name: [] for d in decls}
    fields = {src: [(d.field, out[d.name]) for d in decls if d.source == src]
              for src in ("step", "turn", "session")}
    for r in records:
        rtype = r.get("type")
        if not in_latency_population(r) or (rtype == "step" and r.get("kind") != "llm"):
            continue
        for name, values in fields.get(str(rtype), ()):
            value = r.get(name)
            if isinstance(value, list | tuple):
                values.extend(value)
            elif value is not None:
                values.append(value)
    return out


def cdf_points(values: Iterable[float], max_points: int = CDF_POINTS) -> list[Point]:
    """Empirical CDF as (value, fraction ≤ value); an exact step curve for small data,
    ``max_points`` quantiles (always including min and max) for large data."""
    data = sorted(values)
    n = len(data)
    if n == 0:
        return []
    if n <= max_points:
        pts: list[Point] = [(data[0], 0.0)]
        for i, v in enumerate(data):
            pts.append((v, i / n))
            pts.append((v, (i + 1) / n))
        return pts
    idx = sorted({round(k * (n - 1) / (max_points - 1)) for k in range(max_points)})
    return [(data[0], 0.0)] + [(data[i], (i + 1) / n) for i in idx]


def ttft_vs_input(records: Sequence[Record],
                  limit: int = SCATTER_POINTS) -> tuple[list[Point], int]:
    """(input tokens, TTFT ms) of successful requests; strided down to ``limit`` points.
    Returns the points and how many requests qualified."""
    ttft = field_of("ttft")
    pts = [(float(r["input_tokens"]), float(r[ttft])) for r in llm_steps(records)
           if r.get("status") == "ok" and r.get(ttft) is not None
           and r.get("input_tokens") is not None]
    total = len(pts)
    if total > limit:
        stride = total / limit
        pts = [pts[int(k * stride)] for k in range(limit)]
    return pts, total


def per_turn(records: Sequence[Record]) -> list[tuple[int, int, float, float]]:
    """(turn index, count, p50 ms, p90 ms) of successful turns, by turn index."""
    by: dict[int, list[float]] = defaultdict(list)
    for r in records:
        if (r.get("type") == "turn" and in_latency_population(r)
                and r.get("latency_ms") is not None):
            by[int(r.get("turn", 0))].append(r["latency_ms"])
    out = []
    for idx in sorted(by):
        vals = sorted(by[idx])
        out.append((idx, len(vals), percentile(vals, 50), percentile(vals, 90)))
    return out


def _step_ms(r: Record) -> float | None:
    value = r.get("request_ms") if r.get("kind") == "llm" else r.get("duration_ms")
    return float(value) if value is not None else None


def stage_breakdown(records: Sequence[Record]) -> tuple[list[str], list[str], list[list[float]]]:
    """Mean ms per successful step of each stage (``stage`` label, else the step kind), overall
    and per session category when there are several. Returns (rows, stages, values)."""
    category = {r.get("session_id"): str(r.get("category") or "-") for r in records
                if r.get("type") == "session"}
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    stages: dict[str, None] = {}
    for r in _steps(records):
        ms = _step_ms(r)
        if r.get("status") != "ok" or ms is None:
            continue
        stage = str(r.get("stage") or r.get("kind") or "?")
        stages.setdefault(stage, None)
        cat = category.get(r.get("session_id"), "-")
        for row in ("all", cat):
            acc = sums[(row, stage)]
            acc[0] += ms
            acc[1] += 1
    cats = sorted({row for row, _ in sums} - {"all"})
    rows = ["all", *cats] if len(cats) > 1 else (["all"] if sums else [])
    names = list(stages)
    values = [[sums[(row, s)][0] / sums[(row, s)][1] if (row, s) in sums else 0.0
               for s in names] for row in rows]
    return rows, names, values


def kind_breakdown(records: Sequence[Record]) -> list[dict[str, Any]]:
    """Per step kind: count, errors, mean/p50/p90 ms of successful steps, total seconds."""
    by: dict[str, list[float]] = defaultdict(list)
    errors: Counter[str] = Counter()
    for r in _steps(records):
        kind = str(r.get("kind") or "?")
        ms = _step_ms(r)
        if r.get("status") != "ok":
            errors[kind] += 1
            by.setdefault(kind, [])
        elif ms is not None:
            by[kind].append(ms)
    out = []
    for kind in sorted(by):
        vals = sorted(by[kind])
        stats = {"p50": percentile(vals, 50), "p90": percentile(vals, 90),
                 "mean": math.fsum(vals) / len(vals)} if vals else {}
        out.append({"kind": kind, "count": len(vals), "errors": errors[kind],
                    "mean": stats.get("mean"), "p50": stats.get("p50"),
                    "p90": stats.get("p90"), "total_s": math.fsum(vals) / 1000})
    return out


def error_rows(records: Iterable[Record], limit: int = 160) -> list[tuple[str, str, int, str]]:
    """Failed steps grouped by (error type, step kind): count and the first error message."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for r in _steps(records):
        if r.get("status") == "ok":
            continue
        key = (str(r.get("error_type") or "error"), str(r.get("kind") or "?"))
        entry = groups.setdefault(key, [0, str(r.get("error") or "")[:limit]])
        entry[0] += 1
    return sorted(((t, k, n, msg) for (t, k), (n, msg) in groups.items()),
                  key=lambda row: (-row[2], row[0], row[1]))


def _span_s(reqs: Sequence[Record]) -> float:
    return max((r["t_end_ns"] for r in reqs), default=0) / 1e9


def throughput_series(records: Sequence[Record]) -> tuple[float, dict[str, list[Point]]]:
    """Completions per second in fixed bins of run time (step curves), split ok / failed.
    Returns the bin width (s) and the series; empty when no request has an end time."""
    reqs = [r for r in llm_steps(records) if r.get("t_end_ns") is not None]
    span = _span_s(reqs)
    if not reqs or span <= 0:
        return 0.0, {}
    width = nice_step(span, max(10, min(60, len(reqs) // 10)))  # ~10+ completions per bin
    nbins = max(1, math.ceil(span / width))
    counts = {"ok": [0] * nbins, "failed": [0] * nbins}
    for r in reqs:
        b = min(int(r["t_end_ns"] / 1e9 / width), nbins - 1)
        counts["ok" if r.get("status") == "ok" else "failed"][b] += 1
    out: dict[str, list[Point]] = {}
    for name, bins in counts.items():
        if name == "failed" and not any(bins):
            continue
        pts: list[Point] = []
        for b, n in enumerate(bins):
            pts += [(b * width, n / width), ((b + 1) * width, n / width)]
        out[name] = pts
    return width, out


def inflight_series(records: Sequence[Record], bins: int = INFLIGHT_BINS) -> list[Point]:
    """Requests in flight (sent, not yet ended) over run time, as a step curve; with many
    events, the maximum within each of ``bins`` time bins."""
    events: list[tuple[int, int]] = []
    for r in llm_steps(records):
        if r.get("t_sent_ns") is not None and r.get("t_end_ns") is not None:
            events += [(r["t_sent_ns"], 1), (r["t_end_ns"], -1)]
    if not events:
        return []
    events.sort(key=lambda e: (e[0], e[1]))  # an end before a start at the same instant
    level, pts = 0, [(0.0, 0.0)]
    for t, d in events:
        level += d
        x = t / 1e9
        pts += [(x, pts[-1][1]), (x, float(level))]
    if len(pts) <= 2 * bins:
        return pts
    span = pts[-1][0] or 1.0
    peak = [0.0] * bins
    for x, y in pts:
        b = min(int(x / span * bins), bins - 1)
        peak[b] = max(peak[b], y)
    out: list[Point] = []
    for b, y in enumerate(peak):
        out += [(b * span / bins, y), ((b + 1) * span / bins, y)]
    return out


VALUE_KEYS = ("accuracy", "score", "value", "headline", "f1", "exact_match")
SPREAD_KEYS = frozenset(("count", "mean", "min", "max", "p50", "p90", "p95", "p99"))
PRF_KEYS = frozenset(("precision", "recall", "f1"))


def accuracy_groups(acc: dict[str, Any] | None) -> list[tuple[str, list[tuple[str, float]]]]:
    """Every nested ``{name: number | {..fields..}}`` dict inside the accuracy block, as
    (dotted path, [(name, value)]). A dict entry contributes its ``accuracy`` (else ``score``,
    ``value``, ``headline``, ``f1`` or ``exact_match``: :func:`group_metric` names which);
    entries without one are left out (a question count is no accuracy). Distributions
    (count/mean/p50… dicts: :func:`accuracy_spreads`) and precision/recall/F1 groups
    (:func:`prf_groups`) are not groups of one value: they are shown their own way."""
    return [(path, [(str(k), v) for k, e in child.items() if (v := _entry_value(e)) is not None])
            for path, kind, child in _groups(acc) if kind == "values"]


def group_metric(acc: dict[str, Any] | None, path: str) -> str:
    """Which field :func:`accuracy_groups` drew for ``path`` ("value" for plain numbers)."""
    node: Any = acc
    for key in path.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    for entry in (node or {}).values() if isinstance(node, dict) else ():
        if isinstance(entry, dict):
            return next((k for k in VALUE_KEYS if is_number(entry.get(k))), "value")
    return "value"


PrfRows = list[tuple[str, list[float | None]]]


def prf_groups(acc: dict[str, Any] | None) -> list[tuple[str, PrfRows]]:
    """Groups whose entries are precision/recall/F1 (retrieval at k): (path, [(name, [p, r,
    f1])])."""
    return [(path, [(str(k), [e.get(m) for m in ("precision", "recall", "f1")])
                    for k, e in child.items()])
            for path, kind, child in _groups(acc) if kind == "prf"]


def accuracy_spreads(acc: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    """Distributions in the accuracy block (LLM calls per question, …): (path, stats)."""
    return [(path, child) for path, kind, child in _groups(acc) if kind == "spread"]


def _groups(acc: dict[str, Any] | None) -> list[tuple[str, str, dict[str, Any]]]:
    """(dotted path, kind, dict) of every group in the accuracy block: ``spread`` (a
    distribution), ``prf`` (precision/recall/F1 entries) or ``values`` (entries with a value);
    any other dict is walked into."""
    found: list[tuple[str, str, dict[str, Any]]] = []

    def walk(path: str, node: dict[str, Any]) -> None:
        for key, child in node.items():
            if not isinstance(child, dict) or not child:
                continue
            entries = list(child.values())
            flat = (all(isinstance(e, dict) for e in entries)
                    or all(is_number(e) or e is None for e in entries))
            kind = ("spread" if _is_spread(child) else "prf" if _is_prf_group(child)
                    else "values" if flat and any(_entry_value(e) is not None for e in entries)
                    else "")
            if kind:
                found.append((f"{path}{key}", kind, child))
            else:
                walk(f"{path}{key}.", child)

    if isinstance(acc, dict):
        walk("", acc)
    return found


def _is_spread(node: dict[str, Any]) -> bool:
    return "count" in node and set(node) <= SPREAD_KEYS


def _is_prf_group(node: dict[str, Any]) -> bool:
    return all(isinstance(e, dict) and e and set(e) <= PRF_KEYS and len(e) > 1
               for e in node.values())


def _entry_value(entry: Any) -> float | None:
    if is_number(entry):
        return float(entry)
    if not isinstance(entry, dict):
        return None
    for key in VALUE_KEYS:
        if key in entry:
            return float(entry[key]) if is_number(entry[key]) else None
    return None


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
