"""Interactive charts in report.html: hover read-outs, drag-to-zoom, series toggles.

The charting library is uPlot 1.6.32 (MIT; ``vendor/uPlot.iife.min.js``, 51 kB, its licence in
``vendor/uPlot.LICENSE``), inlined once into the page that uses it, so the page stays one file
that opens offline. Chosen over plotly.js (the 4.85 MB bundle in the ``plotly`` wheel) by
measurement on a 100k-request run: ``benchmarks/report_charting.py`` has the command and figures
(818 kB against 5.6 MB, charts drawn in 184 ms against 1,091 ms).

A chart is a ``<figure>`` holding an empty host ``<div>`` and its data as a JSON
``<script type="application/json" class="chart-spec">``; :data:`INIT_JS` (ours) builds every
chart from its spec when the page loads. Each series declares its unit: the legend under the
chart is the tooltip — series name, value and unit at the cursor. Double-click resets a zoom;
clicking a legend entry hides or shows its series.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from agentic_bench.reporting.svg_axes import esc

VENDOR = Path(__file__).with_name("vendor")
KINDS = ("points", "line", "bars", "marks")


@dataclass(frozen=True)
class Trace:
    """One series on a shared x axis: ``values[i]`` belongs to the chart's ``x[i]`` (None: no
    value there). ``points`` are scattered dots, ``marks`` larger dots (errors), ``line`` a
    line across gaps, ``bars`` bars from zero."""

    name: str
    values: Sequence[float | None]
    unit: str
    kind: str = "line"
    color: str = "#1f77b4"


@dataclass(frozen=True)
class Axis:
    label: str
    unit: str


@dataclass(frozen=True)
class Chart:
    chart_id: str
    title: str
    x_axis: Axis
    y_axis: Axis
    x: Sequence[float]
    traces: Sequence[Trace]
    note: str = ""
    height: int = 300
    extra: dict[str, Any] = field(default_factory=dict)


def _round(v: float | None) -> float | None:
    """Four significant digits: what a reader can see, a third of the page size of repr."""
    if v is None or not math.isfinite(v):
        return None
    if v == 0:
        return 0.0
    digits = max(0, 3 - math.floor(math.log10(abs(v))))
    return round(v, digits)


def chart_html(chart: Chart) -> str:
    """The chart's ``<figure>``: a host element and its spec (drawn by :data:`INIT_JS`)."""
    for t in chart.traces:
        if t.kind not in KINDS:
            raise ValueError(f"trace {t.name!r}: kind {t.kind!r} is not one of {KINDS}")
        if len(t.values) != len(chart.x):
            raise ValueError(f"trace {t.name!r}: {len(t.values)} values for {len(chart.x)} x")
    spec = {"id": chart.chart_id, "height": chart.height,
            "x": {"label": chart.x_axis.label, "unit": chart.x_axis.unit,
                  "values": [_round(v) for v in chart.x]},
            "y": {"label": chart.y_axis.label, "unit": chart.y_axis.unit},
            "series": [{"name": t.name, "unit": t.unit, "kind": t.kind, "color": t.color,
                        "values": [_round(v) for v in t.values]} for t in chart.traces],
            **chart.extra}
    data = json.dumps(spec, separators=(",", ":")).replace("</", "<\\/")
    tail = f'<p class="note">{esc(chart.note)}</p>' if chart.note else ""
    return (f'<figure id="{chart.chart_id}" class="plot interactive">'
            f"<figcaption>{esc(chart.title)}</figcaption>"
            f'<div class="uchart" id="{chart.chart_id}-host"></div>'
            f'<script type="application/json" class="chart-spec">{data}</script>{tail}</figure>')


INIT_JS = r"""
(function () {
  function fmt(v) {
    if (v == null) return "-";
    var a = Math.abs(v);
    if (a >= 1000) return v.toLocaleString("en", {maximumFractionDigits: 0});
    return v.toFixed(a >= 100 ? 1 : a >= 1 ? 2 : 3);
  }
  function shown(unit) { return function (u, v) { return v == null ? "-" : fmt(v) + " " + unit; }; }
  var none = function () { return null; }, t0 = performance.now();
  document.querySelectorAll("script.chart-spec").forEach(function (el) {
    var spec = JSON.parse(el.textContent);
    var host = document.getElementById(spec.id + "-host");
    var series = [{label: spec.x.label, value: shown(spec.x.unit)}];
    spec.series.forEach(function (s) {
      var o = {label: s.name, stroke: s.color, width: 1.5, spanGaps: true, value: shown(s.unit),
               points: {show: false}};
      if (s.kind === "points" || s.kind === "marks") {
        o.paths = none;
        o.points = {show: true, size: s.kind === "marks" ? 8 : 4, width: 0, fill: s.color,
                    stroke: s.color};
      } else if (s.kind === "bars") {
        o.paths = uPlot.paths.bars({size: [0.92, 80]});
        o.fill = s.color + "aa";
        o.width = 1;
      }
      series.push(o);
    });
    var data = [spec.x.values].concat(spec.series.map(function (s) { return s.values; }));
    var width = Math.max(320, Math.min(host.clientWidth || 680, 1200));
    new uPlot({
      width: width, height: spec.height, series: series,
      scales: {x: {time: false}},
      axes: [{label: spec.x.label + " (" + spec.x.unit + ")"},
             {label: spec.y.label + " (" + spec.y.unit + ")", size: 64}],
      cursor: {drag: {x: true, y: false}, points: {size: 6}},
      legend: {live: true}
    }, data, host);
    host.setAttribute("data-rendered", "1");
  });
  // when every chart was drawn (ms since navigation; ms the drawing took): for the benchmark
  document.documentElement.setAttribute("data-charts-at-ms", performance.now().toFixed(1));
  document.documentElement.setAttribute("data-charts-ms", (performance.now() - t0).toFixed(1));
})();
"""

EXTRA_CSS = """
.uchart { min-height: 120px; }
.uchart .u-legend { font-size: 12px; text-align: left; }
.uchart .u-legend .u-value { font-variant-numeric: tabular-nums; }
figure.interactive .hint { color: #666; font-size: 12px; }
"""


@cache
def _vendor(name: str) -> str:
    return (VENDOR / name).read_text(encoding="utf-8")


def page_assets(html: str) -> str:
    """What a page with interactive charts needs once, after its body: uPlot's CSS and script,
    then :data:`INIT_JS`; nothing for a page without a chart."""
    if 'class="chart-spec"' not in html:
        return ""
    return (f"<style>{_vendor('uPlot.min.css')}{EXTRA_CSS}</style>"
            f"<script>{_vendor('uPlot.iife.min.js')}</script><script>{INIT_JS}</script>")


__all__ = ["Axis", "Chart", "Trace", "chart_html", "page_assets"]
