"""sweep.html: throughput vs latency and goodput curves of a sweep (or a capacity search),
knee and capacity marked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentic_bench.reporting.html_template import figure, page, section, table
from agentic_bench.reporting.plots import Series, line_chart, no_data


def render_sweep(sweep: dict[str, Any]) -> str:
    key, points = sweep["key"], sweep["points"]
    knee = sweep.get("knee")
    note = f"knee at {key} = {knee[key]:g}" if knee else "no clear knee"
    capacity = sweep.get("capacity")  # a --search: the largest load that met the criterion
    if "capacity" in sweep:
        note += (f"; capacity under the SLOs: {key} = {capacity:g}" if capacity is not None
                 else "; no load met the SLO criterion")
    if points:
        lat = [Series(f"{m} p99", [(p["requests_per_s"], p[f"{m}_p99_ms"] or 0.0)
                                   for p in points]) for m in ("request", "ttft")]
        if knee:  # drawn: the knee's own marker on the request-latency curve
            k = points[knee["index"]]
            lat.append(Series(f"knee ({key} {knee[key]:g})",
                              [(k["requests_per_s"], k["request_p99_ms"] or 0.0)]))
        curve = line_chart(lat, label="throughput vs latency", x_label="requests/s",
                           y_label="ms", markers=True)
        good = line_chart([Series("goodput", [(p[key], p["goodput_sessions_per_s"])
                                              for p in points]),
                           Series("sessions/s", [(p[key], p["sessions_per_s"]) for p in points])],
                          label="goodput", x_label=key, y_label="sessions/s", markers=True)
    else:
        curve = good = no_data()
    rows = [[p[key], p["result"], p["requests_per_s"], p["output_tokens_per_s"],
             p["goodput_sessions_per_s"], p["ttft_p50_ms"], p["ttft_p99_ms"],
             p["request_p99_ms"], p["errors"], p.get("in_flight_max"),
             " ".join(filter(None, ("knee" if knee and i == knee["index"] else "",
                                    "capacity" if capacity is not None and p[key] == capacity
                                    else "", "SHORT: " + p["short"] if p.get("short")
                                    else "")))]
            for i, p in enumerate(points)]
    body = _agentx_view(key, points)
    body += (section("sweep-curve", "Throughput vs latency",
                    figure("plot-sweep-latency", "p99 latency against achieved requests/s", curve,
                           note) +
                    figure("plot-sweep-goodput", f"goodput against {key}", good)) +
            section("sweep-table", "Points", table(
                [key, "result", "req/s", "out tok/s", "goodput/s", "TTFT p50", "TTFT p99",
                 "request p99", "errors", "max in flight", ""], rows)))
    return page("agentic-bench sweep", f"<h1>Sweep over {key}</h1>{body}")


def _agentx_view(key: str, points: list[dict[str, Any]]) -> str:
    """InferenceX AgentX's published view of a concurrency sweep over agent trees: tokens/s
    per GPU against P90 interactivity (1000 / P90 full-response ITL), one point per load."""
    pts = [p for p in points if p.get("p90_interactivity")]
    if not pts:
        return ""
    series = [Series(name, [(p["p90_interactivity"], p[field] or 0.0) for p in pts])
              for name, field in (("output tok/s per GPU", "output_tokens_per_s_per_gpu"),
                                  ("total tok/s per GPU", "total_tokens_per_s_per_gpu"))]
    chart = line_chart(series, label="throughput per GPU vs interactivity",
                       x_label="P90 interactivity (tok/s/user)", y_label="tok/s per GPU",
                       markers=True)
    rows = [[p[key], p["result"], p["p90_interactivity"], p["output_tokens_per_s_per_gpu"],
             p["total_tokens_per_s_per_gpu"], p.get("lane_occupancy"),
             "short" if p.get("lanes_short") else ""] for p in pts]
    return section("sweep-agentx", "Throughput per GPU vs interactivity (InferenceX AgentX)",
                   figure("plot-sweep-agentx", "one point per " + key + "; up and right is "
                          "better", chart, "x: 1000 / P90 full-response ITL; y: tokens/s per "
                          "GPU (--gpus)") +
                   table([key, "result", "P90 interactivity", "out tok/s/GPU",
                          "total tok/s/GPU", "lane occupancy", "lanes"], rows))


def write_sweep_html(out_dir: Path, sweep: dict[str, Any]) -> Path:
    path = out_dir / "sweep.html"
    path.write_text(render_sweep(sweep), encoding="utf-8")
    return path
