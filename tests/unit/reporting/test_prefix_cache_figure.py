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
    assert "reuse ceiling 95.0%" in html and '<line class="ref"' in html


def test_no_data_is_said() -> None:
    html = prefix_cache_figure({})
    assert "reported no cached prompt tokens" in html


def test_the_position_ceiling_is_drawn_and_paired_in_the_summary() -> None:
    from agentic_bench.metrics.prefix_cache import prefix_cache
    from agentic_bench.reporting.summary_text import _prefix_cache_lines

    llm = [{"status": "ok", "session_id": "a", "t_sent_ns": i, "input_tokens": 100,
            "cached_tokens": c} for i, c in enumerate((0, 90))]
    ceiling = {"ratio": 0.5, "within_session": 0.45, "by_request_position": [
        {"position": 0, "requests": 1, "within_session": 0.0},
        {"position": 1, "requests": 1, "within_session": 0.95}]}
    block = prefix_cache(llm, ceiling)
    assert block is not None
    assert [(r["hit_rate"], r["ceiling"]) for r in block["by_request_position"]] == \
        [(0.0, 0.0), (0.9, 0.95)]
    html = prefix_cache_figure({"prefix_cache": block, "workload": {"prefix_ceiling": ceiling}})
    assert html.count("<polyline") == 2 and "ceiling (within session)" in html
    text = "\n".join(_prefix_cache_lines(block, ceiling))
    assert "by request position: 0: 0.0% / 0.0%, 1: 90.0% / 95.0%" in text
