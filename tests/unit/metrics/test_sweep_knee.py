"""A sweep's knee only where the throughput-latency curve bends upward, drawn on the plot."""

from __future__ import annotations

from agentic_bench.metrics.declarations import shown_in
from agentic_bench.metrics.sweep import knee_index, sweep_summary
from agentic_bench.reporting.sweep_html import render_sweep


def test_a_straight_line_has_no_knee_even_with_three_points() -> None:
    assert knee_index([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]) is None
    assert knee_index([1.0, 2.0, 3.0], [10.0, 21.0, 30.0]) is None  # noise, no bend


def test_a_hockey_stick_bends_where_latency_takes_off() -> None:
    xs = [1.0, 2.0, 3.0, 3.1, 3.2]
    ys = [10.0, 11.0, 12.0, 150.0, 300.0]
    assert knee_index(xs, ys) == 2
    assert knee_index([1.0, 2.0, 2.2], [10.0, 11.0, 90.0]) == 1


def test_a_flattening_curve_has_no_knee() -> None:
    assert knee_index([1.0, 2.0, 3.0], [10.0, 90.0, 100.0]) is None


def _point(rate: float, rps: float, p99: float) -> dict[str, object]:
    return {"rate": rate, "result": "VALID", "requests_per_s": rps, "output_tokens_per_s": 1.0,
            "sessions_per_s": rps, "goodput_sessions_per_s": rps, "ttft_p50_ms": 1.0,
            "ttft_p99_ms": 2.0, "tpot_p50_ms": 1.0, "tpot_p99_ms": 1.0, "request_p50_ms": 1.0,
            "request_p99_ms": p99, "errors": 0, "out_dir": None}


def test_the_knee_is_drawn_and_named_in_the_page() -> None:
    sweep = sweep_summary("rate", [_point(1, 1.0, 10), _point(2, 2.0, 11), _point(4, 2.2, 90)])
    assert sweep["knee"] == {"index": 1, "rate": 2}
    html = render_sweep(sweep)
    assert "knee (rate 2)" in html and "knee at rate = 2" in html
    flat = sweep_summary("rate", [_point(1, 1.0, 10), _point(2, 2.0, 20), _point(3, 3.0, 30)])
    assert flat["knee"] is None and "no clear knee" in render_sweep(flat)


def test_an_invalid_point_is_no_knee_to_read_off() -> None:
    points = [_point(1, 1.0, 10), _point(2, 2.0, 11), _point(4, 2.2, 90)]
    points[1]["result"] = "INVALID"
    assert sweep_summary("rate", points)["knee"] is None
    points[1]["result"], points[1]["short"] = "VALID", "reached 40% of the asked rate"
    assert sweep_summary("rate", points)["knee"] is None


def test_the_page_says_its_finding_first_and_links_each_point_to_its_report() -> None:
    points = [_point(1, 1.0, 10), _point(2, 2.0, 11), _point(4, 2.2, 90)]
    points[0]["out_dir"] = "/runs/sw/rate-1"
    html = render_sweep(sweep_summary("rate", points))
    assert "<h1>Sweep over rate</h1>" in html
    assert ('id="sweep-headline"><b>Latency starts to climb faster than throughput at rate 2.'
            in html)
    assert '<a href="rate-1/report.html">1</a>' in html  # a link, not escaped markup
    assert "&lt;a href" not in html


def test_a_search_page_names_the_capacity_and_its_criterion() -> None:
    points = [{**_point(c, float(c), 10.0 * c), "goodput_fraction": f}
              for c, f in ((1, 1.0), (2, 0.97), (4, 0.5))]
    for p in points:
        p["concurrency"] = p.pop("rate")
    sweep = {**sweep_summary("concurrency", points), "capacity": 2,
             "criterion": {"goodput_fraction": 0.95, "slos": {"ttft_p99_ms": 50.0}}}
    html = render_sweep(sweep)
    assert "<h1>Capacity search over concurrency</h1>" in html
    assert "Capacity 2 streams at ttft p99 &lt;= 50 ms, goodput &gt;= 95%." in html
    assert 'id="plot-search-fraction"' in html and "needed (0.95)" in html
    none = render_sweep({**sweep, "capacity": None})
    assert "No load in the range met ttft p99 &lt;= 50 ms, goodput &gt;= 95%." in none


def test_the_slo_is_drawn_on_the_latency_plot() -> None:
    points = [_point(1, 1.0, 10), _point(2, 2.0, 11), _point(4, 2.2, 90)]
    html = render_sweep({**sweep_summary("rate", points), "slos": {"ttft_p99_ms": 40.0}})
    assert "dashed: ttft p99 &lt;= 40 ms" in html and 'class="ref"' in html
    assert 'class="wide"' in html


def test_the_page_labels_loads_marks_invalid_points_and_names_where() -> None:
    """#42: points labelled with their load, INVALID ones drawn open, goodput drawn over
    sessions/s (not hidden under it), and the endpoint, model and date named."""
    points = [_point(1, 1.0, 10), _point(2, 2.0, 11), _point(4, 2.2, 90)]
    points[2]["result"] = "INVALID"
    points[0].update(endpoint="http://gpu:8000/v1", model="llama-3",
                     started_at="2026-12-06T02:00:00+00:00")
    html = render_sweep(sweep_summary("rate", points))
    assert all(f">rate {v}</text>" in html for v in (1, 2, 4))
    # the INVALID point on each curve: sessions/s, goodput and each sweep-view metric's p99
    assert html.count('fill="#fff"') == 2 + len(shown_in("sweep"))
    assert "open markers: INVALID runs (1 of 3)" in html
    goodput = html.index("<title>goodput</title></polyline>")
    assert html.index("<title>sessions/s</title></polyline>") < goodput  # under goodput
    assert "endpoint http://gpu:8000/v1 · model llama-3 · started 2026-12-06 02:00:00 UTC" in html
