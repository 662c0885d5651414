"""compare: metric lookup, ratios against the first run, the text table, compare.html."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_bench.reporting.compare import (
    CompareRun,
    compare_rows,
    fmt_value,
    metric_value,
    metrics,
    ratio,
    render_compare_html,
    render_compare_text,
    run_names,
    write_compare_html,
)


def summary(ttft_p50: float, rps: float, errors: int, acc: float | None,
            result: str = "VALID") -> dict:
    return {
        "latency_ms": {"ttft": {"p50": ttft_p50, "p99": ttft_p50 * 2}},
        "throughput": {"requests_per_s": rps},
        "counts": {"errors": errors},
        "accuracy": None if acc is None else {"headline": acc},
        "result": result,
    }


def test_ratio() -> None:
    assert ratio(2.0, 4.0) == 0.5
    assert ratio(3, 0) is None and ratio(None, 1.0) is None and ratio(1.0, None) is None
    assert ratio("VALID", "VALID") is None and ratio(True, 1) is None


def test_metric_value_paths() -> None:
    s = summary(50.0, 10.0, 0, None)
    assert metric_value(s, ("latency_ms", "ttft", "p99")) == 100.0
    assert metric_value(s, ("accuracy", "headline")) is None
    assert metric_value(s, ("latency_ms", "turn", "p50")) is None


def test_compare_rows_ratios_against_first_run() -> None:
    rows = {r.metric.label: r for r in compare_rows([summary(50.0, 10.0, 0, 0.5),
                                                     summary(25.0, 30.0, 4, 0.6, "INVALID")])}
    assert rows["TTFT p50"].values == [50.0, 25.0]
    assert rows["TTFT p50"].ratios == [1.0, 0.5]
    assert rows["TTFT p99"].ratios[1] == pytest.approx(0.5)
    assert rows["requests/s"].ratios[1] == pytest.approx(3.0)
    assert rows["errors"].ratios == [None, None]  # baseline 0
    assert rows["accuracy"].ratios[1] == pytest.approx(1.2)
    assert rows["result"].values == ["VALID", "INVALID"] and rows["result"].ratios == [None, None]
    assert rows["turn p50"].values == [None, None]


def test_metrics_cover_the_headline_list() -> None:
    labels = [m.label for m in metrics()]
    for want in ("TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "ITL p50", "request p50",
                 "request p99", "turn p50", "turn p99", "session p50", "session p99",
                 "requests/s", "output tok/s", "sessions/s", "goodput", "errors", "accuracy",
                 "result"):
        assert want in labels


def test_text_table() -> None:
    text = render_compare_text(["a", "b"], [summary(50.0, 10.0, 0, 0.5),
                                             summary(25.0, 30.0, 4, None)])
    lines = text.splitlines()
    assert lines[0].split() == ["metric", "unit", "a", "b"]
    ttft = next(line for line in lines if line.startswith("TTFT p50"))
    assert ttft.split() == ["TTFT", "p50", "ms", "50.00", "25.00", "(0.50x)"]
    rps = next(line for line in lines if line.startswith("requests/s"))
    assert "(3.00x)" in rps
    acc = next(line for line in lines if line.startswith("accuracy"))
    assert acc.split() == ["accuracy", "%", "50.0", "-"]
    assert "value / a's value" in text


def test_fmt_value() -> None:
    assert [fmt_value(v) for v in (None, "VALID", 3, 0.0, 0.1234, 5.0, 123.45, 12345.6)] == [
        "-", "VALID", "3", "0.00", "0.123", "5.00", "123.5", "12,346"]


def test_run_names_unique() -> None:
    assert run_names([Path("/x/a"), Path("/y/b")]) == ["a", "b"]
    assert run_names([Path("/x/run"), Path("/y/run")]) == ["/x/run", "/y/run"]


def test_compare_html_overlays_each_run(synth, tmp_path: Path) -> None:
    ra, rb = synth.make_records(sessions=4), synth.make_records(sessions=6)
    runs = [CompareRun("a", synth.make_summary(ra), ra),
            CompareRun("b", synth.make_summary(rb), rb),
            CompareRun("no-records", synth.make_summary([]), [])]
    html = render_compare_html(runs)
    for pid in ("plot-compare-ttft-cdf", "plot-compare-tpot-cdf", "plot-compare-turn-cdf"):
        fig = html[html.index(f'id="{pid}"'):]
        fig = fig[:fig.index("</figure>")]
        assert fig.count("<polyline") == 2, pid
        assert f"no {pid.split('-')[2]} data for: no-records" in fig
    assert 'id="table-compare"' in html and "<script" not in html
    path = write_compare_html(tmp_path, runs)
    assert path.name == "compare.html" and path.read_text(encoding="utf-8") == html


def test_option_differences_come_from_the_run_records() -> None:
    from agentic_bench.reporting.compare import (
        option_differences,
        render_option_differences,
        run_options,
    )

    a = {"concurrency": 2, "slo": ["ttft_p99_ms=1"], "out": "a", "quiet": False, "seed": 42}
    b = {"concurrency": 4, "slo": ["ttft_p99_ms=1"], "out": "b", "quiet": True, "seed": 42}
    c = {**a, "slo": ["ttft_p99_ms=2"], "max_rounds": 3}  # an option only c's benchmark has
    assert option_differences([a, b]) == [("--concurrency", [2, 4])]  # not out or quiet
    assert option_differences([a, b, None, c]) == [
        ("--concurrency", [2, 4, None, 2]), ("--slo", [["ttft_p99_ms=1"]] * 2 + [None] +
                                             [["ttft_p99_ms=2"]]),
        ("--max-rounds", [None, None, None, 3])]
    assert option_differences([a, None]) == []  # one recorded run: nothing to compare
    text = render_option_differences(["A", "B", "C"], [a, b, None])
    assert "options that differ:\n  --concurrency  2  4  -\n" in text
    assert "options not recorded (runs before record version 2): C" in text
    assert render_option_differences(["A", "B"], [a, a]) == "options: the same in every run\n"
    run = {"type": "run", "options": a}
    assert run_options([run, {"type": "step"}]) == a
    assert run_options([{"type": "run", "config": {}}]) is None


def test_one_unit_per_figure_in_every_output(synth) -> None:
    """#30 item 13: the hit rate read 0.571 in HTML, 57.1 % in summary.txt and 1.00 in compare;
    a fraction declared as a percentage is a percentage everywhere."""
    from agentic_bench.reporting.html import render_report
    from agentic_bench.reporting.summary_text import render_text

    records = synth.make_records()
    s = synth.make_summary(records)
    s["prefix_cache"] = {"hit_rate": 0.5714, "cached_tokens": 4, "prompt_tokens": 7,
                         "requests_reporting": 3}
    s["accuracy"] = {"headline": 0.25, "metric": "overall accuracy"}
    html, text = render_report(s, records), render_text(s)
    cmp = render_compare_text(["a"], [s])
    assert "<td>prefix-cache hit rate</td><td>57.1%</td>" in html
    assert "57.1%" in text and "0.571" not in text
    hit = next(line for line in cmp.splitlines() if line.startswith("prefix-cache hit rate"))
    assert hit.split()[-2:] == ["%", "57.1"]
    assert 'id="accuracy-headline"><b>25.0%</b>' in html and "Accuracy  : 25.0%" in text
    acc = next(line for line in cmp.splitlines() if line.startswith("accuracy"))
    assert acc.split()[-2:] == ["%", "25.0"]
