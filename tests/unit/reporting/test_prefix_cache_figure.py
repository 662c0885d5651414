"""The report's prefix-reuse figure (#21 item 1)."""

from __future__ import annotations

from agentic_bench.reporting.report_figures import prefix_cache_figure


def test_curve_and_ceiling_when_the_server_reports_cached_tokens() -> None:
    summary = {"prefix_cache": {"hit_rate": 0.6, "by_request_position": [
        {"position": 0, "requests": 4, "hit_rate": 0.1},
        {"position": 1, "requests": 4, "hit_rate": 0.8},
        {"position": 2, "requests": 3, "hit_rate": 0.9}]},
        "workload": {"prefix_ceiling": {"ratio": 0.95}}}
    html = prefix_cache_figure(summary)
    assert 'id="plot-prefix-cache"' in html and "<polyline" in html
    assert "reuse ceiling 0.95" in html and '<line class="ref"' in html


def test_no_data_is_said() -> None:
    html = prefix_cache_figure({})
    assert "reported no cached prompt tokens" in html
