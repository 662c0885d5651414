"""sweep.html: throughput vs latency and goodput curves of a sweep (or a capacity search),
knee and capacity marked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentic_bench.metrics.declarations import shown_in
from agentic_bench.reporting.html_template import Raw, figure, page, section, table
from agentic_bench.reporting.plots import Series, line_chart, no_data
from agentic_bench.reporting.svg_axes import esc
from agentic_bench.reporting.sweep_accuracy_html import accuracy_view

WIDE = 1100  # drawing width of a full-width plot (its text stays the size of the others')


def _headline(sweep: dict[str, Any]) -> str:
    """One sentence a reader takes away: the capacity a search found, or the sweep's knee."""
    key, knee = sweep["key"], sweep.get("knee")
    unit = "streams" if key == "concurrency" else "sessions/s"
    if stop := sweep.get("interrupted"):  # run/sweep.py: an interrupt stopped it
        of = f" of {stop['of']}" if stop.get("of") else ""
        return (f"Interrupted after point {stop['after_point']}{of}: the points run so far, "
                "the one cut short marked interrupted (--resume continues it).")
    if "capacity" in sweep:
        criterion = sweep.get("criterion") or {}
        slos = ", ".join(f"{k.removesuffix('_ms').replace('_', ' ')} <= {v:g} ms"
                         for k, v in (criterion.get("slos") or {}).items() if k.endswith("_ms"))
        fraction = criterion.get("goodput_fraction")
        what = "task goodput" if criterion.get("objective") == "task-goodput" else "goodput"
        need = f", {what} >= {fraction:.0%}" if fraction is not None else ""
        cap = sweep.get("capacity")
        said = sweep.get("answer") or {}  # run/search.py: what the intervals support
        if said.get("verdict") in ("at_least", "indeterminate"):
            return (f"{key.capitalize()}: {said['answer']} at {slos or 'the SLOs'}{need} "
                    f"({said['reason']}).")
        if cap is None:
            return f"No load in the range met {slos or 'the SLOs'}{need}."
        return f"Capacity {cap:g} {unit} at {slos or 'the SLOs'}{need}."
    if knee:
        return f"Latency starts to climb faster than throughput at {key} {knee[key]:g}."
    invalid = [p for p in sweep["points"] if p.get("result") == "INVALID" or p.get("short")]
    if invalid:
        return (f"No knee marked: {len(invalid)} of {len(sweep['points'])} points are INVALID "
                "or fell short of their load (each point's report says why).")
    return "No clear knee: latency and throughput grow together over this range."


def render_sweep(sweep: dict[str, Any]) -> str:
    key, points = sweep["key"], sweep["points"]
    knee = sweep.get("knee")
    note = f"knee at {key} = {knee[key]:g}" if knee else "no clear knee"
    capacity = sweep.get("capacity")  # a --search: the largest load that met the criterion
    said = sweep.get("answer") or {}
    if said.get("verdict") in ("at_least", "indeterminate"):
        note += f"; search answer: {key} {said['answer']}"
    elif "capacity" in sweep:
        note += (f"; capacity under the SLOs: {key} = {capacity:g}" if capacity is not None
                 else "; no load met the SLO criterion")
    if points:
        labels = [f"{key} {p[key]:g}" for p in points]  # each point named by its load
        invalid = frozenset(i for i, p in enumerate(points) if p.get("result") == "INVALID")
        lat = [Series(f"{m} p99", [(p["requests_per_s"], p.get(f"{m}_p99_ms") or 0.0)
                                   for p in points],
                      labels=labels if m == "request" else None, hollow=invalid)
               for m in _sweep_metrics()]
        if knee:  # drawn: the knee's own marker on the request-latency curve
            k = points[knee["index"]]
            lat.append(Series(f"knee ({key} {knee[key]:g})",
                              [(k["requests_per_s"], k["request_p99_ms"] or 0.0)]))
        slo_lines = _slo_lines(sweep)
        if slo_lines:
            note += "; dashed: " + ", ".join(f"{name} <= {v:g} ms" for name, v in slo_lines)
        curve = line_chart(lat, label="throughput vs latency", x_label="requests/s",
                           y_label="ms", markers=True, hlines=[v for _, v in slo_lines],
                           width=WIDE)
        # goodput drawn last, over sessions/s: where every session met the SLOs they coincide
        good = line_chart([Series("sessions/s", [(p[key], p["sessions_per_s"]) for p in points],
                                  hollow=invalid),
                           Series("goodput", [(p[key], p["goodput_sessions_per_s"])
                                              for p in points], hollow=invalid)],
                          label="goodput", x_label=key, y_label="sessions/s", markers=True,
                          width=WIDE)
        if invalid:
            note += f"; open markers: INVALID runs ({len(invalid)} of {len(points)})"
    else:
        curve = good = no_data()
    rows = [[_link(p), p["result"], p["requests_per_s"], p["output_tokens_per_s"],
             p["goodput_sessions_per_s"], p["ttft_p50_ms"], p["ttft_p99_ms"],
             p["request_p99_ms"], p["errors"], p.get("in_flight_max"),
             " ".join(filter(None, ("knee" if knee and i == knee["index"] else "",
                                    "capacity" if capacity is not None and p[key] == capacity
                                    else "", _decided(p), "SHORT: " + p["short"] if p.get("short")
                                    else "", "interrupted" if p.get("interrupted") else "")))]
            for i, p in enumerate(points)]
    body = _agentx_view(key, points)
    body += (section("sweep-curve", "Throughput vs latency",
                    figure("plot-sweep-latency", "p99 latency against achieved requests/s", curve,
                           note) +
                    figure("plot-sweep-goodput", f"goodput against {key}", good), "wide") +
            accuracy_view(key, points, sweep) +  # a scored benchmark's, beside the latency
            section("sweep-table", "Points", table(
                [key, "result", "req/s", "out tok/s", "goodput/s", "TTFT p50", "TTFT p99",
                 "request p99", "errors", "max in flight", ""], rows, right=[0])))
    title = (f"Capacity search over {key}" if "capacity" in sweep else f"Sweep over {key}")
    fraction = [p for p in points if p.get("goodput_fraction") is not None]
    if fraction:
        criterion = (sweep.get("criterion") or {}).get("goodput_fraction")
        series = [Series("goodput fraction", [(p[key], p["goodput_fraction"])
                                              for p in sorted(fraction, key=lambda p: p[key])])]
        if criterion is not None:
            lo, hi = min(p[key] for p in fraction), max(p[key] for p in fraction)
            series.append(Series(f"needed ({criterion:g})", [(lo, criterion), (hi, criterion)]))
        body = section("sweep-fraction", "Goodput fraction by load", figure(
            "plot-search-fraction", "sessions meeting every SLO / sessions, per load probed",
            line_chart(series, label="goodput fraction", x_label=key, y_label="fraction",
                       markers=True, width=WIDE)), "wide") + body
    head = (f'<p class="headline" id="sweep-headline"><b>{esc(_headline(sweep))}</b></p>'
            f'<p class="note" id="sweep-where">{esc(_where(points))}</p>')
    return page(f"agentic-bench {title.lower()}", f"<h1>{esc(title)}</h1>{head}{body}")


def _sweep_metrics() -> list[str]:
    """The metrics a sweep charts: the ``sweep`` view's (metrics/declarations.py), the
    request latency first (its curve carries the point labels and the knee)."""
    names = [d.name for d in shown_in("sweep")]
    return sorted(names, key=lambda name: name != "request")


def _decided(point: dict[str, Any]) -> str:
    """A search probe's decision with its goodput-fraction interval (run/search.py)."""
    if not point.get("decision"):
        return ""
    pooled, bounds = point.get("pooled") or {}, point.get("interval")
    span = f" [{bounds[0]:.3f}, {bounds[1]:.3f}]" if bounds else ""
    return (f"{point['decision'].upper()}: {pooled.get('met')}/{pooled.get('sessions')}"
            f"{span}, {pooled.get('runs')} run(s)")


def _where(points: list[dict[str, Any]]) -> str:
    """Endpoint, model and date of the sweep (its first point's run)."""
    first = points[0] if points else {}
    date = str(first.get("started_at") or "")[:19].replace("T", " ")
    return (f"endpoint {first.get('endpoint') or '-'} · model {first.get('model') or '-'} · "
            f"started {date + ' UTC' if date else '-'} · {len(points)} point(s)")


def _slo_lines(sweep: dict[str, Any]) -> list[tuple[str, float]]:
    """The SLO limits on the plotted metrics (TTFT p99, request p99), drawn as dashed lines."""
    slos = (sweep.get("criterion") or {}).get("slos") or sweep.get("slos") or {}
    return [(key.removesuffix("_ms").replace("_", " "), float(slos[key]))
            for key in ("ttft_p99_ms", "request_p99_ms") if isinstance(slos.get(key), int | float)]


def _link(point: dict[str, Any]) -> Any:
    """The point's value, linking to its own report (the run folder beside sweep.html)."""
    out = point.get("out_dir")
    value = point.get("concurrency", point.get("rate"))
    if not out:
        return value
    href = f"{Path(str(out)).name}/report.html"
    return Raw(f'<a href="{esc(href)}">{esc(format(value, "g"))}</a>')


def _agentx_view(key: str, points: list[dict[str, Any]]) -> str:
    """InferenceX AgentX's published view of a concurrency sweep over agent trees: tokens/s
    per GPU against P90 interactivity (1000 / P90 full-response ITL), one point per load."""
    pts = [p for p in points if p.get("p90_interactivity")]
    if not pts:
        return ""
    charts = "".join(
        figure(f"plot-sweep-agentx{suffix}", f"{name} against P90 interactivity, one point per "
               f"{key}; up and right is better",
               line_chart([Series(name, [(p["p90_interactivity"], p[field] or 0.0)
                                         for p in pts])],
                          label=f"{name} vs interactivity", x_label="P90 interactivity "
                          "(tok/s/user)", y_label=name, markers=True, width=WIDE),
               "x: 1000 / P90 full-response ITL; y: per GPU (--gpus)")
        for suffix, name, field in (("", "output tok/s per GPU", "output_tokens_per_s_per_gpu"),
                                    ("-total", "total tok/s per GPU",
                                     "total_tokens_per_s_per_gpu")))
    rows = [[p[key], p["result"], p["p90_interactivity"], p["output_tokens_per_s_per_gpu"],
             p["total_tokens_per_s_per_gpu"],
             None if p.get("lane_occupancy") is None else f"{p['lane_occupancy']:.1%}",
             "some never filled" if p.get("lanes_short") else "all filled"] for p in pts]
    return section("sweep-agentx", "Throughput per GPU vs interactivity (InferenceX AgentX)",
                   charts + table([key, "result", "P90 interactivity", "out tok/s/GPU",
                                   "total tok/s/GPU", "lane occupancy", "lanes"], rows), "wide")


def write_sweep_html(out_dir: Path, sweep: dict[str, Any]) -> Path:
    path = out_dir / "sweep.html"
    path.write_text(render_sweep(sweep), encoding="utf-8")
    return path
