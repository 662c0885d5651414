"""The figures of report.html: each function returns one ``<figure id="plot-...">`` (or a few),
with a visible "no data" note when its data set is empty."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from agentic_bench.metrics.declarations import latency_metrics
from agentic_bench.metrics.percentiles import percentile
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.reporting import report_data as rd
from agentic_bench.reporting.html_template import figure, table
from agentic_bench.reporting.plots import (
    Bars,
    Series,
    hbar_chart,
    line_chart,
    no_data,
    scatter_chart,
    stacked_hbar_chart,
    vbar_chart,
)
from agentic_bench.reporting.svg_axes import fmt_num, fmt_pct

Record = dict[str, Any]
CDF_REFS = (0.5, 0.9, 0.99)


def stats_note(values: Sequence[float]) -> str:
    data = sorted(values)
    if not data:
        return ""
    parts = [f"n={len(data):,}"] + [f"p{p} {fmt_num(percentile(data, p))}" for p in (50, 90, 99)]
    return "  ".join([*parts, f"max {fmt_num(data[-1])} ms"]) + "  (dashed: p50, p90, p99)"


def cdf_titles() -> dict[str, str]:
    """Each declared latency metric's plot title (metrics/declarations.py)."""
    return {d.name: d.heading for d in latency_metrics()}


def cdf_figure(metric: str, values: Sequence[float]) -> str:
    title = f"{cdf_titles().get(metric, metric)} CDF"
    fig_id = f"plot-{metric}-cdf"
    if not values:
        return figure(fig_id, title, no_data(f"no data: no successful {metric} measurements"))
    svg = line_chart([Series(metric, rd.cdf_points(values))], label=title,
                     x_label=f"{metric} (ms)", y_label="fraction ≤ x", y_range=(0.0, 1.0),
                     percent_y=True, hlines=CDF_REFS)
    return figure(fig_id, title, svg, stats_note(values))


def cdf_figures(records: Sequence[Record]) -> str:
    values = rd.latency_values(records)
    return "".join(cdf_figure(m, values[m]) for m in cdf_titles())


def ttft_scatter_figure(records: Sequence[Record]) -> str:
    title = "TTFT against input tokens"
    pts, total = rd.ttft_vs_input(records)
    if not pts:
        return figure("plot-ttft-vs-input", title,
                      no_data("no data: no successful request reported input tokens and TTFT"))
    note = f"{total:,} requests" + (f" (every {total / len(pts):.1f}th shown)"
                                     if total > len(pts) else "")
    svg = scatter_chart(pts, label=title, x_label="input tokens", y_label="TTFT (ms)")
    return figure("plot-ttft-vs-input", title, svg, note)


def per_turn_figure(records: Sequence[Record]) -> str:
    title = "Turn latency by turn index"
    rows = rd.per_turn(records)
    if not rows:
        return figure("plot-turn-by-index", title, no_data("no data: no successful turns"))
    cats = [str(r[0]) for r in rows]
    svg = vbar_chart(cats, [Bars("p50", [r[2] for r in rows]), Bars("p90", [r[3] for r in rows])],
                     label=title, x_label="turn index", y_label="turn latency (ms)")
    note = "turns per index: " + ", ".join(f"{r[0]}: {r[1]}" for r in rows[:30])
    return figure("plot-turn-by-index", title, svg, note + (" …" if len(rows) > 30 else ""))



def prefix_cache_figure(given: Summary | dict[str, Any]) -> str:
    """Server-reported prefix-cache hit rate by the request's position in its session, with
    the trace's reuse ceiling as a dashed line when known."""
    title = "Prefix-cache hit rate by request position"
    summary = Summary.of(given)
    block = summary.prefix_cache or {}
    rows = [r for r in block.get("by_request_position") or [] if r.get("hit_rate") is not None]
    if not rows:
        return figure("plot-prefix-cache", title,
                      no_data("no data: the server reported no cached prompt tokens"))
    ceiling = (summary.workload.get("prefix_ceiling") or {}).get("ratio")
    series = [Series("hit rate", [(float(r["position"]), r["hit_rate"]) for r in rows])]
    bound = [(float(r["position"]), r["ceiling"]) for r in rows if r.get("ceiling") is not None]
    if bound:  # the trace's within-session ceiling of each position
        series.append(Series("ceiling (within session)", bound))
    svg = line_chart(series,
                     label=title, x_label="request position in its session (0 = first)",
                     y_label="cached / prompt tokens", y_range=(0.0, 1.0), percent_y=True,
                     x_from_zero=True, markers=True,
                     hlines=[ceiling] if ceiling is not None else [])
    note = (f"run hit rate {fmt_pct(block.get('hit_rate'))}; "
            + (f"dashed: the trace's reuse ceiling {fmt_pct(ceiling)} (characters)"
               if ceiling is not None else "no ceiling (not a trace replay)"))
    return figure("plot-prefix-cache", title, svg, note)


def stage_figure(records: Sequence[Record]) -> str:
    title = "Per-stage breakdown (mean ms per step)"
    rows, stages, values = rd.stage_breakdown(records)
    if not rows:
        return figure("plot-stage-breakdown", title, no_data("no data: no successful steps"))
    svg = stacked_hbar_chart(rows, stages, values, label=title, x_label="mean ms per step, stacked")
    return figure("plot-stage-breakdown", title, svg,
                  "stage = the step's stage label, else its kind ('llm' = LLM calls without a "
                  "stage); rows: all sessions, then per session category")


def kind_figure(records: Sequence[Record]) -> str:
    title = "Per-step-kind breakdown"
    kinds = rd.kind_breakdown(records)
    timed = [k for k in kinds if k["count"]]
    if not timed:
        return figure("plot-kind-breakdown", title, no_data("no data: no successful steps"))
    svg = hbar_chart([k["kind"] for k in timed],
                     [Bars("mean", [k["mean"] for k in timed]),
                      Bars("p90", [k["p90"] for k in timed])],
                     label=title, x_label="step duration (ms)")
    tbl = table(["kind", "ok", "errors", "mean ms", "p50 ms", "p90 ms", "total s"],
                [[k["kind"], k["count"], k["errors"], k["mean"], k["p50"], k["p90"],
                  k["total_s"]] for k in kinds], table_id="table-kinds")
    return figure("plot-kind-breakdown", title, svg + tbl)


def throughput_figure(records: Sequence[Record]) -> str:
    title = "Throughput over time"
    width, series = rd.throughput_series(records)
    if not series:
        return figure("plot-throughput", title, no_data("no data: no completed requests"))
    names = {"ok": "completed requests/s", "failed": "failed requests/s"}
    svg = line_chart([Series(names[k], v) for k, v in series.items()], label=title,
                     x_label="run time (s)", y_label="requests per second", x_from_zero=True)
    return figure("plot-throughput", title, svg,
                  f"LLM requests completing per {fmt_num(width)} s bin, by end time")


def inflight_figure(records: Sequence[Record]) -> str:
    title = "In-flight requests over time"
    pts = rd.inflight_series(records)
    if not pts:
        return figure("plot-inflight", title, no_data("no data: no timed requests"))
    svg = line_chart([Series("in flight", pts)], label=title, x_label="run time (s)",
                     y_label="requests in flight", x_from_zero=True)
    peak = max(p[1] for p in pts)
    return figure("plot-inflight", title, svg,
                  f"LLM requests sent and not yet finished; peak {fmt_num(peak)}")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "group"


def inline_iou_figure(acc: dict[str, Any] | None) -> str:
    """How MLPerf's per-turn inline IoU scores spread (Agentic Edge performance phase)."""
    inline = (acc or {}).get("inline") if isinstance(acc, dict) else None
    hist = ((inline or {}).get("distribution") or {}).get("histogram") or {}
    edges, counts = hist.get("edges") or [], hist.get("counts") or []
    if not counts or len(edges) != len(counts) + 1:
        return ""
    names = [f"{lo:.1f}–{hi:.1f}" for lo, hi in pairwise(edges)]
    title = "Inline IoU per MLPerf turn (request)"
    svg = hbar_chart(names, [Bars("turns", [float(c) for c in counts])], label=title,
                     x_label="turns")
    score = inline.get("score") if inline else None
    note = f"<p>mean {score:.4f} over {sum(counts)} scored turns</p>" if score is not None else ""
    return figure("plot-inline-iou", title, svg + note)


METRIC_NAMES = {"accuracy": "accuracy", "score": "score", "value": "value",
                "headline": "headline", "f1": "F1", "exact_match": "exact match"}


def accuracy_figures(acc: dict[str, Any] | None) -> str:
    groups, prf = rd.accuracy_groups(acc), rd.prf_groups(acc)
    spreads = rd.accuracy_spreads(acc)
    if not groups and not prf and not spreads:
        msg = ("no data: this run has no accuracy scoring" if not acc
               else "no per-category or per-subset breakdown in this run's accuracy")
        return figure("plot-accuracy", "Accuracy breakdown", no_data(msg))
    out = [inline_iou_figure(acc)]
    for path, rows in groups:
        percent = all(0.0 <= v <= 1.0 for _, v in rows)
        metric = METRIC_NAMES[rd.group_metric(acc, path)]
        title = f"{path.replace('.', ' / ').replace('_', ' ')}: {metric}"
        svg = hbar_chart([r[0] for r in rows], [Bars(metric, [r[1] for r in rows])],
                         label=title, x_label=metric if percent or metric != "value"
                         else "value", percent=percent)
        out.append(figure(f"plot-accuracy-{_slug(path)}", title, svg + _group_table(acc, path)))
    for path, prf_rows in prf:  # retrieval at k: three labelled bars per row
        title = f"{path.replace('.', ' / ').replace('_', ' ')}: precision, recall, F1"
        svg = hbar_chart([r[0] for r in prf_rows],
                         [Bars(name, [r[1][i] for r in prf_rows])
                          for i, name in enumerate(("precision", "recall", "F1"))],
                         label=title, x_label="fraction", percent=True)
        out.append(figure(f"plot-accuracy-{_slug(path)}", title, svg))
    if spreads:  # distributions (LLM calls per question, ...): numbers, not bars
        spread_rows: list[list[Any]] = [
            [path.replace(".", " / ").replace("_", " "), st.get("count"), st.get("mean"),
             st.get("min"), st.get("p50"), st.get("p90"), st.get("max")]
            for path, st in spreads]
        out.append('<div class="spreads"><h3>Per question</h3>' + table(
            ["", "questions", "mean", "min", "p50", "p90", "max"], spread_rows,
            table_id="table-accuracy-spreads") + "</div>")
    return "".join(out)


def _group_table(acc: dict[str, Any] | None, path: str) -> str:
    """The numeric fields of a group's dict entries (correct, total, ...) as a table."""
    node: Any = acc
    for key in path.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict) or not all(isinstance(e, dict) for e in node.values()):
        return ""
    cols: dict[str, None] = {}
    for entry in node.values():
        cols.update((k, None) for k, v in entry.items() if rd.is_number(v) or v is None)
    names = list(cols)
    return table(["name", *names], [[k, *(e.get(c) for c in names)] for k, e in node.items()])


def error_figure(summary: Summary | dict[str, Any], records: Sequence[Record]) -> str:
    title = "Errors by type"
    by_type = Summary.of(summary).counts.errors_by_type
    if not by_type:
        return figure("plot-errors", title, no_data("no errors: every request and step succeeded"))
    items = sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))
    svg = hbar_chart([k for k, _ in items], [Bars("errors", [float(v) for _, v in items])],
                     label=title, x_label="count")
    rows = rd.error_rows(records)
    tbl = table(["error type", "step kind", "count", "first message"], rows,
                table_id="table-errors") if rows else ""
    return figure("plot-errors", title, svg + tbl)
