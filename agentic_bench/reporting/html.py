"""``report.html``: one self-contained page per run (inline CSS, SVG and the vendored uPlot for
the interactive charts: reporting/interactive.py; no network).

Sections (stable ids), in order — the figures first, the configuration last:
``section-verdict`` (banner + ``table-constraints``), ``section-cards`` (headline figures),
``section-summary``, ``section-trees``
(runs over agent trees only: reporting/trees_html.py), ``section-accuracy`` (runs that scored
something), ``section-waterfall`` (the slowest and the median session: reporting/waterfall.py),
``section-latency`` (CDFs), ``section-time`` (latency over time, interactive),
``section-histograms`` (interactive), ``section-requests``, ``section-breakdown``, ``section-load``,
``section-server`` (runs with ``--server-metrics``: reporting/server_figures.py),
``section-errors``, ``section-config``; every plot is a
``<figure id="plot-...">`` holding an ``<svg>``, an interactive chart (``figure.interactive``)
or a visible ``.no-data`` note.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentic_bench.metrics.declarations import (
    FIGURE_BY_LABEL,
    FIGURES,
    figure_value,
    shown_figure,
    shown_in,
    shown_latency,
)
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.metrics.verdict import UNCONSTRAINED_NOTE, unconstrained
from agentic_bench.reporting import report_figures as rf
from agentic_bench.reporting import time_figures as tf
from agentic_bench.reporting.html_template import (
    cell,
    flatten,
    kv_table,
    page,
    section,
    table,
)
from agentic_bench.reporting.intervals_text import interval_rows
from agentic_bench.reporting.scored_tasks_view import tasks_section
from agentic_bench.reporting.server_figures import server_figures
from agentic_bench.reporting.svg_axes import esc, fmt_num
from agentic_bench.reporting.trees_html import trees_section
from agentic_bench.reporting.waterfall import waterfall_section

Record = dict[str, Any]
SECTION_IDS = ("section-verdict", "section-cards", "section-summary", "section-accuracy",
               "section-waterfall", "section-latency", "section-time", "section-histograms",
               "section-requests", "section-breakdown", "section-load", "section-errors",
               "section-config")
PLOT_IDS = ("plot-ttft-cdf", "plot-itl-cdf", "plot-tpot-cdf", "plot-request-cdf",
            "plot-turn-cdf", "plot-session-cdf", "plot-ttft-vs-input", "plot-turn-by-index",
            "plot-stage-breakdown", "plot-kind-breakdown", "plot-throughput", "plot-inflight",
            "plot-errors", "plot-time-ttft", "plot-time-itl", "plot-time-request",
            "plot-hist-ttft", "plot-hist-itl", "plot-hist-request")
# plus plot-accuracy (no data) or one plot-accuracy-<group> per group
STAT_COLS = ("count", "mean", "min", "p50", "p90", "p95", "p99", "max")


def write_report(out_dir: Path, summary: dict[str, Any], records: list[dict[str, Any]]) -> Path:
    """Write ``out_dir/report.html`` atomically (tmp + rename); returns its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.html"
    tmp = out_dir / ".report.html.tmp"
    tmp.write_text(render_report(summary, records), encoding="utf-8")
    os.replace(tmp, path)
    return path


def render_report(summary: dict[str, Any], records: Sequence[Record]) -> str:
    """``report.html`` of a run (its summary and the records its plots are drawn from), as
    text."""
    # a lane's warm-up requests are recorded but never counted: the plots leave them out too,
    # so a plot's n is the summary's count
    records = [r for r in records if not r.get("warmup")]
    typed = Summary.of(summary)
    bench = typed.given("benchmark", "?")
    sub = " · ".join(str(x) for x in (
        typed.started_at, typed.endpoint.url, typed.endpoint.model,
        load_label(typed), f"{fmt_num(typed.given('duration_s'))} s") if x)
    body = [
        f"<h1>agentic-bench report: {esc(bench)}</h1><p class=\"sub\">{esc(sub)}</p>",
        verdict_section(typed),
        *([f'<p class="note">{esc(sample.get("note", ""))}</p>']
          if isinstance(sample := typed.report_sample, dict) else []),
        cards_section(typed),
        summary_section(typed),
        trees_section(typed, records),
        accuracy_section(typed.accuracy),
        tasks_section(typed.tasks),
        section("section-latency", "Latency distributions",
                f'<div class="grid">{rf.cdf_figures(records)}</div>'),
        waterfall_section(records, typed.waterfall_session),
        section("section-time", "Latency over time",
                '<p class="note">Hover for values (the legend reads out each series at the '
                "cursor), drag to zoom, double-click to reset, click a legend entry to hide "
                f"it.</p>{tf.over_time_figures(records)}"),
        section("section-histograms", "Latency histograms",
                f'<div class="grid">{tf.histogram_figures(records)}</div>'),
        section("section-requests", "Requests and turns",
                f'<div class="grid">{rf.ttft_scatter_figure(records)}'
                f"{rf.per_turn_figure(records)}</div>"),
        section("section-breakdown", "Where the time goes",
                f'<div class="grid">{rf.stage_figure(records)}{rf.kind_figure(records)}</div>'),
        section("section-load", "Load over time",
                f'<div class="grid">{rf.throughput_figure(records)}'
                f"{rf.inflight_figure(records)}</div>"),
        *([section("section-server", "Server metrics over time",
                   server_figures(typed.server_metrics))]
          if typed.server_metrics else []),
        section("section-cache", "Prefix reuse",
                f'<div class="grid">{rf.prefix_cache_figure(typed)}</div>'),
        section("section-errors", "Errors",
                f'<div class="grid">{rf.error_figure(typed, records)}</div>'),
        config_section(typed),
    ]
    return page(f"agentic-bench {bench}: {typed.given('result', '?')}", "".join(body))


def load_label(summary: Summary | dict[str, Any]) -> str:
    """The load the run was asked for, named (a sweep point's report says which point it is)."""
    load = Summary.of(summary).scenario
    if not load.get("scenario"):
        return ""
    parts = [] if load["scenario"] == "concurrency" else [str(load["scenario"])]
    if load.get("concurrency"):
        parts.append(f"concurrency {load['concurrency']}")
    if load.get("rate"):
        parts.append(f"rate {fmt_num(load['rate'])}/s")
    return ", ".join(parts)


def cards_section(given: Summary | dict[str, Any]) -> str:
    """The figures people look for first, as cards above the plots."""
    summary = Summary.of(given)
    thr = summary.throughput

    def stat(metric: str, key: str) -> Any:
        stats = summary.latency_ms.get(metric)
        return None if stats is None else stats.given(key)

    requests = summary.counts.requests or 0
    errors = summary.counts.errors or 0
    cards = [("requests/s", thr.given("requests_per_s"), ""),
             ("output tokens/s", thr.given("output_tokens_per_s"), ""),
             *((f"{d.label} {s}", stat(d.name, s), d.unit)  # metrics/declarations.py
               for d in shown_in("cards") for s in d.compare),
             ("goodput", summary.goodput.given("sessions_per_s"), "sessions/s"),
             ("errors", f"{errors:,} of {requests:,}", "")]
    html = "".join(
        f'<div class="card{" bad" if label == "errors" and errors else ""}">'
        f'<div class="label">{esc(label)}</div><div class="figure">'
        f'{esc(fmt_num(v) if isinstance(v, int | float) else v if v is not None else "-")}'
        f'<span class="unit">{esc(unit)}</span></div></div>'
        for label, v, unit in cards if v is not None)
    return f'<section class="cards" id="section-cards">{html}</section>'


def _exact(value: Any) -> Any:
    """A compared number as compared (83.6431 must not show as 83.64): up to 4 decimals."""
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".")
    return value


def verdict_section(summary: Summary | dict[str, Any]) -> str:
    typed = Summary.of(summary)
    result = str(typed.given("result", "?"))  # a partial summary shows "?", not the default
    rows = typed.constraints
    tbl = table(["constraint", "value", "op", "limit", "ok", "rule"],
                [[r.name, _exact(r.value), r.op, _exact(r.limit),
                  "ok" if r.ok else "FAIL", r.rule or ""] for r in rows],
                table_id="table-constraints",
                row_classes=["" if r.ok else "fail" for r in rows], right=(1, 3))
    failed = [r.name for r in rows if not r.ok]
    why = f"failed: {', '.join(failed)}" if failed else "every constraint met"
    if typed.failure:  # nothing succeeded: the cause first
        why = f"{typed.failure} · {why}"
    css = "verdict valid" if result == "VALID" else "verdict invalid"
    if result == "VALID" and rows and unconstrained(rows):
        css, why = "verdict unconstrained", UNCONSTRAINED_NOTE
    return (f'<section id="section-verdict" class="{css}"><div class="big" id="verdict">'
            f"{esc(result)}</div><div>complete: {esc(cell(typed.given('complete')))} "
            f"({esc(typed.given('stop_reason', '-'))}) · {esc(why)}</div>{tbl}</section>")


def summary_section(given: Summary | dict[str, Any]) -> str:
    summary = Summary.of(given)
    c = summary.counts
    counts = kv_table([
        ("sessions ok / total", f"{c.sessions_ok:,} / {c.sessions:,}"),
        ("turns ok / planned", f"{c.turns_ok:,} / {c.turns:,}"),
        ("missing turns", c.given("missing_turns")),
        ("requests ok / total", f"{c.requests_ok:,} / {c.requests:,}"),
        ("errors", c.given("errors")),
        ("output tokens", c.given("output_tokens")),
    ], "table-counts")
    rates = kv_table([  # the run-level figures metrics/declarations.py gives a report row
        *((f.report, shown_figure(f, figure_value(summary, f.path))) for f in FIGURES
          if f.report),
        ("interactivity, failed requests excluded",
         (summary.interactivity or {}).get("e2e_avg_interactivity_ok")),
        ("duration (s)", summary.given("duration_s")),
    ], "table-throughput")
    lat = summary.latency_ms
    lat_tbl = table(["latency (ms)", *STAT_COLS],
                    [[name, *(lat[name].given(k) for k in STAT_COLS)]
                     for name in shown_latency(lat)],
                    table_id="table-latency")
    stages = summary.stages_ms
    stage_tbl = table(["stage (ms)", *STAT_COLS],
                      [[name, *(s.given(k) for k in STAT_COLS)] for name, s in stages.items()],
                      table_id="table-stages") if stages else ""
    roles = summary.roles
    role_metrics = shown_in("roles")  # metrics/declarations.py
    role_tbl = table(
        ["LLM role", "calls", "per session",
         *(f"{d.label} {s}" for d in role_metrics for s in ("p50", "p99")), "errors"],
        [[name, r.get("requests"), r.get("requests_per_session"),
          *((r.get(d.field) or {}).get(s) for d in role_metrics for s in ("p50", "p99")),
          r.get("errors")] for name, r in roles.items()],
        table_id="table-roles") if roles else ""
    fan = summary.fanout or {}
    fan_tbl = table(
        ["fan-out (ms)", *STAT_COLS],
        [[label, *((fan.get(key) or {}).get(k) for k in STAT_COLS)]
         for key, label in (("join_ms", "fan-out → join"), ("branch_ms", "branch"),
                            ("spread_ms", "straggler spread"))],
        table_id="table-fanout") if fan else ""
    return section("section-summary", "Summary",
                   f'<div class="cols">{counts}{rates}</div>{lat_tbl}{_intervals_table(summary)}'
                   f'{stage_tbl}{role_tbl}{fan_tbl}')


def _intervals_table(summary: Summary) -> str:
    """Each headline figure with its 95 % interval (metrics/intervals.py)."""
    rows = interval_rows(summary)
    if not rows:
        return ""
    block = summary.intervals
    if block is None:
        return ""
    note = (f'<p class="note">95% intervals: {esc(block.method)}; '
            f'{block.sessions_used:,} sessions, {block.resamples} resamples, '
            f'seed {block.seed} (docs/metrics.md, "Confidence intervals")</p>')
    return table(["figure", "statistic", "value [95% interval]"], rows,
                 table_id="table-intervals") + note


def _host_cpu_cell(host: dict[str, Any] | None) -> str:
    if not host:
        return "-"
    return " / ".join(f"{host[k]:.1%}" for k in ("busy", "steal", "idle"))


def config_section(summary: Summary | dict[str, Any]) -> str:
    typed = Summary.of(summary)
    parts = []
    for key, title, value in (("scenario", "scenario", typed.scenario),
                              ("endpoint", "endpoint", typed.endpoint.to_dict()),
                              ("workload", "workload", typed.workload),
                              ("config", "resolved config", typed.config),
                              ("slos", "SLOs", typed.slos),
                              ("versions", "versions", typed.versions)):
        if not value:
            continue
        parts.append(f"<div><h3>{esc(title)}</h3>{kv_table(flatten(value), f'table-{key}')}</div>")
    harness = typed.harness
    lag = harness.schedule_lag_ms
    items = [("schedule lag p50 / p99 / max (ms)",
              " / ".join(fmt_num(lag.stat(k)) for k in ("p50", "p99", "max"))),
             ("token source", ", ".join(f"{k}: {v}" for k, v in
                                        harness.token_source.items()) or "-"),
             ("truncated record lines", harness.given("truncated_record_lines")),
             ("client CPU (s)", typed.client_cpu_s),
             ("host CPU busy / steal / idle", _host_cpu_cell(typed.host_cpu)),
             ("command line (runs it again into a new folder; URLs redacted)",
              typed.command_line or "-"),
             ("summary schema", f"{typed.given('schema_', '-')} v{typed.given('version', '-')}"),
             ("output directory", typed.out_dir)]
    if typed.regenerated:
        items.append(("regenerated", typed.regenerated))
    parts.insert(0, f"<div><h3>run</h3>{kv_table(items, 'table-harness')}</div>")
    return section("section-config", "Configuration and versions",
                   f'<div class="cols">{"".join(parts)}</div>')


def accuracy_section(acc: dict[str, Any] | None) -> str:
    """The accuracy panel — absent when the run scored nothing (a plain replay)."""
    if not acc:
        return ""
    head = ""
    if isinstance(acc, dict):
        scalars = [(k, v) for k, v in acc.items() if not isinstance(v, dict | list)]
        shown = shown_figure(FIGURE_BY_LABEL["accuracy"], acc.get("headline"))
        text = shown if isinstance(shown, str) else fmt_num(shown)
        head = (f'<p id="accuracy-headline"><b>{esc(text)}</b> '
                f"{esc(acc.get('metric', ''))}</p>"
                + kv_table([(k, v) for k, v in scalars if k not in ("headline", "metric")],
                           "table-accuracy"))
    return section("section-accuracy", "Accuracy",
                   f'{head}<div class="grid">{rf.accuracy_figures(acc)}</div>')

