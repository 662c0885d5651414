"""``agentic-bench compare``: runs side by side — a text table of headline metrics with ratios
against the first run, and ``compare.html`` with overlaid latency CDFs."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_bench.metrics.declarations import FIGURES, MetricDecl, shown_in
from agentic_bench.metrics.declarations import figure_value as metric_value
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.reporting import report_data as rd
from agentic_bench.reporting.html_template import figure, page, section, table
from agentic_bench.reporting.plots import Series, line_chart, no_data
from agentic_bench.reporting.regenerate import run_record
from agentic_bench.reporting.svg_axes import esc


@dataclass(frozen=True)
class Metric:
    label: str
    path: tuple[str, ...]
    unit: str = ""
    better: str = ""  # "lower", "higher" or "" (no direction, e.g. the result)
    percent: bool = False  # a fraction shown as a percentage (the unit column says %)


def metrics() -> tuple[Metric, ...]:
    """The rows of ``compare``, every one from metrics/declarations.py (asked when it runs, so
    a metric declared since is there too)."""
    return (*(Metric(f"{d.label} {stat}", ("latency_ms", d.name, stat), d.unit, d.better)
              for d in shown_in("compare") for stat in d.compare),
            *(Metric(f.label, f.path, f.unit, f.better, f.percent) for f in FIGURES))


@dataclass(frozen=True)
class Row:
    metric: Metric
    values: list[Any]
    ratios: list[float | None]  # value / first run's value; None where undefined


def ratio(value: Any, base: Any) -> float | None:
    """value / base for two finite numbers with base ≠ 0; None otherwise."""
    if not (rd.is_number(value) and rd.is_number(base)) or base == 0:
        return None
    out = float(value) / float(base)
    return out if math.isfinite(out) else None


def compare_rows(summaries: Sequence[Summary | dict[str, Any]]) -> list[Row]:
    """The rows of a comparison of several runs' summaries (one per figure)."""
    typed = [Summary.of(s) for s in summaries]
    rows = []
    for m in metrics():
        values = [metric_value(s, m.path) for s in typed]
        if m.path[0] == "tasks" and all(v is None for v in values):
            continue  # a scored run's figures: no row when no run was scored
        ratios = [None if m.better == "" else ratio(v, values[0]) for v in values]
        rows.append(Row(m, values, ratios))
    return rows


def run_names(paths: Sequence[Path]) -> list[str]:
    """Short, unique labels: the directory names, or the paths when names collide."""
    names = [Path(p).name or str(p) for p in paths]
    if len(set(names)) == len(names):
        return names
    return [str(p) for p in paths]


def fmt_value(value: Any, percent: bool = False) -> str:
    """Fixed decimals by magnitude, so a column of one metric lines up; a fraction declared as
    a percentage (hit rate, accuracy) as its percentage, one decimal."""
    if percent and rd.is_number(value) and 0.0 <= value <= 1.0:
        return f"{value * 100:.1f}"
    if value is None:
        return "-"
    if isinstance(value, bool) or not rd.is_number(value):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    a = abs(value)
    return (f"{value:,.0f}" if a >= 1000 else f"{value:.1f}" if a >= 100
            else f"{value:.2f}" if a >= 1 or a == 0 else f"{value:.3f}")


def _cell(value: Any, r: float | None, first: bool, percent: bool = False) -> str:
    text = fmt_value(value, percent)
    if first or r is None:
        return text
    return f"{text} ({r:.2f}x)"


def render_compare_text(names: Sequence[str],
                        summaries: Sequence[Summary | dict[str, Any]]) -> str:
    """A text table comparing the runs ``names`` (their ``summaries``, in order)."""
    rows = compare_rows(summaries)
    header = ["metric", "unit", *names]
    body = [[row.metric.label, row.metric.unit,
             *(_cell(v, row.ratios[i], i == 0, row.metric.percent)
               for i, v in enumerate(row.values))]
            for row in rows]
    widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(str(cell).ljust(widths[i]) if i < 2 else str(cell).rjust(widths[i])
                       for i, cell in enumerate(r)).rstrip() for r in [header, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    lines.append(f"(x) = value / {names[0]}'s value")
    lines.append("lower is better for latency and errors; higher for rates, goodput, accuracy")
    return "\n".join(lines) + "\n"


@dataclass
class CompareRun:
    name: str
    summary: dict[str, Any]
    records: Iterable[dict[str, Any]]  # a stream of records.jsonl, or a list


# where a run was written and how it was watched: not what it measured
NOT_COMPARED = frozenset({"out", "resume", "overwrite", "retry_errors", "quiet", "config"})


def option_differences(options: Sequence[dict[str, Any] | None]
                       ) -> list[tuple[str, list[Any]]]:
    """The options (from each run record's ``options``, as validated by the options schema)
    whose values are not the same in every run that recorded them, as ``--flag`` and the
    values in run order (``None`` for a run that did not record options)."""
    known = [o for o in options if o is not None]
    if len(known) < 2:
        return []
    keys = list(dict.fromkeys(k for o in known for k in o if k not in NOT_COMPARED))
    return [(f"--{key.replace('_', '-')}", [None if o is None else o.get(key) for o in options])
            for key in keys if len({json.dumps(o.get(key), sort_keys=True) for o in known}) > 1]


def run_options(records: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The run record's ``options`` (None for a run written before record version 2)."""
    options = run_record(records).get("options")
    return options if isinstance(options, dict) and options else None


def render_option_differences(names: Sequence[str],
                              options: Sequence[dict[str, Any] | None]) -> str:
    """The text block ``compare`` prints under its table: which options differ."""
    diffs = option_differences(options)
    missing = [n for n, o in zip(names, options, strict=True) if o is None]
    lines = []
    if diffs:
        width = max(len(flag) for flag, _ in diffs)
        lines.append("options that differ:")
        lines += [f"  {flag:<{width}}  " + "  ".join(_shown(v) for v in values)
                  for flag, values in diffs]
    elif len(options) - len(missing) >= 2:
        lines.append("options: the same in every run")
    if missing:
        lines.append(f"options not recorded (runs before record version 2): {', '.join(missing)}")
    return "".join(f"{line}\n" for line in lines)


def _shown(value: Any) -> str:
    """An option's value as text: "-" where a run did not record it, "(none)" for an empty
    list, yes/no, items joined by commas — never a Python or JSON literal."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_shown(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_shown(v)}" for k, v in value.items()) or "(none)"
    return str(value)


def _cdf_figure(decl: MetricDecl, runs: Sequence[CompareRun]) -> str:
    metric, title = decl.name, decl.label
    fig_id = f"plot-compare-{metric}-cdf"
    series = []
    missing = []
    for run in runs:
        values = rd.latency_values(run.records)[metric]
        if values:
            series.append(Series(run.name, rd.cdf_points(values)))
        else:
            missing.append(run.name)
    note = f"no {metric} data for: {', '.join(missing)}" if missing else ""
    if not series:
        return figure(fig_id, f"{title} CDF", no_data(f"no data: no run has {metric} values"))
    svg = line_chart(series, label=f"{title} CDF", x_label=f"{metric} (ms)",
                     y_label="fraction ≤ x", y_range=(0.0, 1.0), percent_y=True,
                     hlines=(0.5, 0.9, 0.99))
    return figure(fig_id, f"{title} CDF", svg, note)


Verdicts = tuple[Sequence[str], Sequence[Sequence[dict[str, Any]]]]


def _verdict_section(verdicts: Verdicts | None) -> str:
    """The A/B verdicts with their intervals (reporting/ab_compare.py), when asked."""
    if verdicts is None or not any(verdicts[1]):
        return ""
    names, blocks = verdicts
    rows = [[name, r["metric"], r.get("a_shown", r["a"]), r.get("b_shown", r["b"]), r["ratio"],
             "-" if not r["interval"] else f"[{r['interval'][0]:.3f}, {r['interval'][1]:.3f}]",
             r.get("test", "-"), r["verdict"], r["reason"]]
            for name, block in zip(names[1:], blocks, strict=True) for r in block]
    threshold = blocks[0][0]["threshold"] if blocks and blocks[0] else 0.0
    return section("section-verdicts", "A/B verdicts", table(
        ["run", "metric", names[0], "this run", "B/A", "95% interval", "test", "verdict", "why"],
        rows, table_id="table-verdicts") + (
        f'<p class="note">B/A: this run / {esc(names[0])}; 95% intervals of a bootstrap over '
        "sessions (rates: over time windows) for two single runs; across runs (mean ± "
        "between-run sd, Welch t on log values) when a side is a --repeat folder; threshold "
        f"{threshold:.1%}. docs/metrics.md, \"A/B verdicts\"</p>"))


def render_compare_html(runs: Sequence[CompareRun], verdicts: Verdicts | None = None) -> str:
    names = [r.name for r in runs]
    rows = compare_rows([r.summary for r in runs])
    headers = ["metric", "unit"]
    for i, name in enumerate(names):
        headers += [name] if i == 0 else [name, "×"]
    body = []
    for row in rows:
        cells: list[Any] = [row.metric.label, row.metric.unit]
        for i, v in enumerate(row.values):
            cells.append(fmt_value(v, row.metric.percent))
            if i:
                cells.append("-" if row.ratios[i] is None else f"{row.ratios[i]:.2f}x")
        body.append(cells)
    tbl = table(headers, body, table_id="table-compare", right=range(2, len(headers)))
    runs_tbl = table(["run", "benchmark", "result", "scenario", "endpoint", "duration s"],
                     [[r.name, s.given("benchmark"), s.given("result"),
                       s.scenario.get("scenario"), s.endpoint.url, s.given("duration_s")]
                      for r, s in ((r, Summary.of(r.summary)) for r in runs)],
                     table_id="table-runs")
    figs = "".join(_cdf_figure(d, runs) for d in shown_in("cdf"))  # metrics/declarations.py
    diffs = option_differences([run_options(r.records) for r in runs])
    diff_tbl = (table(["option", *names], [[flag, *(_shown(v) for v in values)]
                                           for flag, values in diffs],
                      table_id="table-option-differences")
                if diffs else '<p class="note">no recorded option differs</p>')
    content = (f"<h1>agentic-bench compare</h1><p class=\"sub\">{esc(' vs '.join(names))}</p>"
               + section("section-runs", "Runs", runs_tbl)
               + _verdict_section(verdicts)
               + section("section-compare-table", "Headline metrics",
                         tbl + f'<p class="note">× = value / {esc(names[0])}\'s value</p>')
               + section("section-compare-cdfs", "Latency distributions",
                         f'<div class="grid">{figs}</div>')
               + section("section-option-differences", "Options that differ", diff_tbl))
    return page("agentic-bench compare: " + " vs ".join(names), content)


def write_compare_html(out_dir: Path, runs: Sequence[CompareRun],
                       verdicts: Verdicts | None = None) -> Path:
    """Write the HTML comparison of ``runs`` (and their A/B ``verdicts``) into ``out_dir``;
    returns its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "compare.html"
    tmp = out_dir / ".compare.html.tmp"
    tmp.write_text(render_compare_html(runs, verdicts), encoding="utf-8")
    os.replace(tmp, path)
    return path
