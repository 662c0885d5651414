"""The server's side over time: one chart per named server metric (``--server-metrics``).

The x axis is the run's own (seconds since its start), as in "Latency over time", so a queue
building up or the KV cache filling can be read against the latencies. Counters are drawn as
their rate per second between scrapes; gauges as scraped.
"""

from __future__ import annotations

import itertools
from typing import Any

from agentic_bench.reporting.interactive import Axis, Chart, Trace, chart_html
from agentic_bench.reporting.svg_axes import esc, fmt_num

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def _rates(points: list[list[float]]) -> list[list[float]]:
    out = []
    for (t0, v0), (t1, v1) in itertools.pairwise(points):
        if t1 > t0:
            out.append([t1, max(0.0, v1 - v0) / (t1 - t0)])
    return out


def _speculation_charts(sources: dict[str, Any]) -> list[str]:
    """Acceptance rate and mean acceptance length over time (server_metrics/speculation.py)."""
    charts = []
    for key, unit in (("acceptance_rate", "ratio"), ("acceptance_length", "tokens")):
        per_source: dict[str, list[list[float]]] = {}
        for url, src in sources.items():
            pts = ((src.get("speculation") or {}).get("series") or {}).get(key)
            if pts:
                per_source[url] = pts
        if not per_source:
            continue
        xs = sorted({p[0] for pts in per_source.values() for p in pts})
        traces = []
        for i, (url, pts) in enumerate(per_source.items()):
            at = {p[0]: p[1] for p in pts}
            traces.append(Trace(url if len(per_source) > 1 else key, [at.get(x) for x in xs],
                                unit, "line", COLORS[i % len(COLORS)]))
        charts.append(chart_html(Chart(
            f"plot-server-spec-{key}", f"speculation: {key.replace('_', ' ')} ({unit})",
            Axis("time since start", "s"), Axis(key, unit), xs, traces,
            "between consecutive scrapes (counters) or as scraped (gauges)", height=220)))
    return charts


def server_figures(block: dict[str, Any] | None) -> str:
    """Charts of the summary's ``server_metrics`` block ('' when nothing was scraped)."""
    sources = (block or {}).get("sources") or {}
    names = sorted({n for src in sources.values() for n in (src.get("metrics") or {})})
    charts: list[str] = []
    for name in names:
        per_source: dict[str, tuple[list[list[float]], str]] = {}
        unit = ""
        for url, src in sources.items():
            metric = (src.get("metrics") or {}).get(name)
            if not metric or not metric.get("series"):
                continue
            unit = metric["unit"]
            points = metric["series"]
            if metric["kind"] == "counter":
                points, unit = _rates(points), f"{metric['unit']}/s"
            if points:
                per_source[url] = (points, unit)
        if not per_source:
            continue
        xs = sorted({p[0] for pts, _ in per_source.values() for p in pts})
        traces = []
        for i, (url, (pts, _)) in enumerate(per_source.items()):
            at = {p[0]: p[1] for p in pts}
            traces.append(Trace(url if len(per_source) > 1 else name,
                                [at.get(x) for x in xs], unit, "line", COLORS[i % len(COLORS)]))
        note = ("rate between scrapes of a counter" if unit.endswith("/s") else "as scraped")
        slug = name.replace("[", "-").replace("]", "")
        charts.append(chart_html(Chart(f"plot-server-{slug}", f"{name} ({unit})",
                                       Axis("time since start", "s"), Axis(name, unit), xs,
                                       traces, note, height=220)))
    charts += _speculation_charts(sources)
    lines = []
    for url, src in sources.items():
        rate = (src.get("prefix_cache_hit_rate") or {}).get("value")
        lines.append(f"<li>{esc(url)}: {src.get('scrapes', 0)} scrapes, "
                     f"{src.get('failures', 0)} failed; engines "
                     f"{esc(', '.join(src.get('engines') or []) or 'none recognised')}; "
                     f"{src.get('raw_families', 0)} other families kept raw"
                     + (f"; prefix-cache hit rate over the run {fmt_num(rate * 100)} %"
                        if rate is not None else "") + "</li>")
    intro = f'<ul class="note">{"".join(lines)}</ul>' if lines else ""
    if not charts:
        return intro + '<p class="note">no named metric in the scrapes</p>' if lines else ""
    return intro + f'<div class="grid">{"".join(charts)}</div>'
