"""Latency over time and histograms (#30 item 10): dots downsampled for drawing with the
spikes kept, percentile lines from every value, failed requests marked, histograms complete."""

from __future__ import annotations

import json
import re

from agentic_bench.metrics.percentiles import percentile
from agentic_bench.reporting.interactive import Axis, Chart, Trace, chart_html, page_assets
from agentic_bench.reporting.time_figures import (
    downsample,
    histogram,
    histogram_figures,
    over_time_figures,
    rolling,
)


def _req(i: int, ttft: float, status: str = "ok", gaps: list[float] | None = None) -> dict:
    return {"type": "step", "kind": "llm", "status": status, "t_sent_ns": i * 10_000_000,
            "ttft_ms": ttft if status == "ok" else None, "request_ms": ttft * 2,
            "itl_ms": gaps if gaps is not None else [1.0, 3.0]}


def _spec(html: str, fig_id: str) -> dict:
    part = html[html.index(f'id="{fig_id}"'):]
    return json.loads(re.search(r'class="chart-spec">(.*?)</script>', part, re.S).group(1))


def test_downsampling_keeps_the_spikes_and_the_limit() -> None:
    points = [(i / 1000, 10.0) for i in range(100_000)]
    points[51_234] = (51.234, 9_999.0)  # one spike
    points[7] = (0.007, 0.5)  # one dip
    kept = downsample(points, limit=2000)
    assert len(kept) <= 2000
    assert (51.234, 9_999.0) in kept and (0.007, 0.5) in kept
    assert kept == sorted(kept)
    assert downsample(points[:10], limit=2000) == points[:10]


def test_percentile_lines_use_every_value_not_the_drawn_dots() -> None:
    reqs = [_req(i, float(i % 100)) for i in range(1000)]
    (_centre, p50, p99), = rolling(reqs, "ttft", 0.0, 9.99, windows=1)
    values = sorted(float(i % 100) for i in range(1000))
    assert (p50, p99) == (percentile(values, 50), percentile(values, 99))
    (_, itl50, itl99), = rolling(reqs, "itl", 0.0, 9.99, windows=1)
    assert (itl50, itl99) == (2.0, percentile([1.0] * 1000 + [3.0] * 1000, 99))  # every gap


def test_the_over_time_charts_mark_failures_and_say_what_was_drawn() -> None:
    reqs = [_req(i, 5.0 + i % 7) for i in range(20_000)] + [_req(3, 0.0, status="error")]
    html = over_time_figures(reqs)
    spec = _spec(html, "plot-time-request")
    names = [s["name"] for s in spec["series"]]
    assert names == ["end-to-end per request", "end-to-end p50 (window)",
                     "end-to-end p99 (window)", "failed request"]
    failed = next(s for s in spec["series"] if s["name"] == "failed request")
    assert sum(v is not None for v in failed["values"]) == 1
    dots = spec["series"][0]["values"]
    assert 0 < sum(v is not None for v in dots) <= 4000
    assert spec["x"]["values"] == sorted(spec["x"]["values"])
    assert all(s["unit"] == "ms" for s in spec["series"]) and spec["x"]["unit"] == "s"
    assert "20,000 requests" in html and "drawn" in html and "1 failed" in html
    assert "failed request" not in json.dumps(_spec(html, "plot-time-ttft"))


def test_histograms_count_every_value() -> None:
    bars = histogram([1.0, 2.0, 2.0, 3.0, 10.0], bins=3)
    assert sum(n for _, n in bars) == 5 and bars[0][1] == 4 and bars[-1][1] == 1
    html = histogram_figures([_req(i, float(i)) for i in range(50)])
    spec = _spec(html, "plot-hist-itl")
    assert sum(spec["series"][0]["values"]) == 100  # two gaps per request
    assert spec["series"][0]["unit"] == "gaps" and "p99" in html


def test_a_chart_is_escaped_data_and_the_page_carries_its_library_once() -> None:
    chart = chart_html(Chart("plot-x", "x </script><b>", Axis("t", "s"), Axis("v", "ms"),
                             [0.0, 1.0], [Trace("a</script>", [1.0, None], "ms")]))
    assert "</script><b>" not in chart.split('class="chart-spec">')[1].split("</script>")[0]
    assert "&lt;/script&gt;&lt;b&gt;" in chart
    assets = page_assets(chart + chart)
    assert assets.count("uPlot (v1.6.32)") == 1 and "INIT" not in assets
    assert page_assets("<p>no chart</p>") == ""
