"""Task goodput as shown: summary.txt lines, report.html's panel, compare's rows and the sweep
page's accuracy-vs-load view — present for a scored run, absent for an unscored one."""

from __future__ import annotations

from typing import Any

from agentic_bench.metrics.summary_model import ScoredTasks, Summary
from agentic_bench.metrics.sweep import mark_accuracy_drops, sweep_point, sweep_summary
from agentic_bench.reporting.compare import compare_rows, render_compare_text
from agentic_bench.reporting.scored_tasks_view import task_lines, tasks_section
from agentic_bench.reporting.summary_text import render_text
from agentic_bench.reporting.sweep_html import render_sweep

TASKS: dict[str, Any] = {
    "scored": 30, "correct": 24, "correct_within_slo": 18, "accuracy": 0.8,
    "accuracy_interval": [0.627, 0.905], "within_slo_fraction": 0.6,
    "within_slo_interval": [0.423, 0.754], "task_goodput_per_s": 1.8,
    "task_goodput_interval": [1.269, 2.262], "causes": {"timeout": 2, "slo": 6, "wrong": 4},
    "slos": {"session_p99_ms": 500.0}, "trials": 3, "pass_hat_k": 0.5, "pass_at_k": 0.9,
    "pass_k": {"tasks": 10, "trials": 3, "k": {
        "1": {"pass_at_k": 0.8, "pass_at_k_interval": [0.7, 0.9], "pass_hat_k": 0.8,
              "pass_hat_k_interval": [0.7, 0.9]},
        "3": {"pass_at_k": 0.9, "pass_at_k_interval": [0.7, 1.0], "pass_hat_k": 0.5,
              "pass_hat_k_interval": [0.2, 0.8]}}},
    "latency_across_trials": {"tasks": 10, "mean_std_ms": 12.5, "max_std_ms": 40.0,
                              "per_task": {}},
}


def test_summary_text_shows_task_goodput_only_for_a_scored_run() -> None:
    lines = "\n".join(task_lines(ScoredTasks.model_validate(TASKS)))
    assert "24/30 correct (80.0% [62.7%, 90.5%])" in lines
    assert "Task goodput: 1.800 correct tasks/s within SLO [1.269, 2.262]" in lines
    assert "timeout 2, slo 6, wrong 4" in lines
    assert "k=3: pass@k 90.0% [70.0%, 100.0%], pass^k 50.0% [20.0%, 80.0%]" in lines
    assert "std mean 12.5 ms, max 40.0 ms" in lines
    assert task_lines(None) == []
    text = render_text({"benchmark": "x", "tasks": TASKS})
    assert "Task goodput" in text
    assert "goodput 0.000 sessions/s; task goodput 1.800 correct tasks/s" in text
    assert "Task goodput" not in render_text({"benchmark": "x"})


def test_report_panel_only_for_a_scored_run() -> None:
    html = tasks_section(ScoredTasks.model_validate(TASKS))
    assert 'id="section-tasks"' in html and 'id="table-pass-k"' in html and "1.800" in html
    assert tasks_section(None) == ""


def test_compare_shows_task_rows_only_when_a_run_was_scored() -> None:
    plain = {"result": "VALID", "throughput": {}, "counts": {}}
    labels = [r.metric.label for r in compare_rows([plain, plain])]
    assert "task goodput" not in labels and "pass^k" not in labels
    scored = {**plain, "tasks": TASKS}
    rows = {r.metric.label: r for r in compare_rows([scored, plain])}
    assert rows["task goodput"].values == [1.8, None]
    assert rows["correct tasks in SLO"].values == [18, None]
    assert "50.0" in render_compare_text(["a", "b"], [scored, plain])  # pass^k as a percentage


def _point(conc: float, accuracy: float | None, interval: list[float] | None) -> dict[str, Any]:
    tasks = None if accuracy is None else {**TASKS, "accuracy": accuracy,
                                           "accuracy_interval": interval}
    summary = Summary.of({"benchmark": "x", "result": "VALID", "out_dir": f"/r/c-{conc:g}",
                          **({"tasks": tasks} if tasks else {})})
    return sweep_point("concurrency", conc, summary)


def test_points_outside_the_low_load_accuracy_interval_are_marked() -> None:
    # low load (c=1): 0.8 in [0.7, 0.9]; c=4: 0.75 inside; c=8: 0.5 outside
    points = [_point(4, 0.75, [0.6, 0.85]), _point(1, 0.8, [0.7, 0.9]),
              _point(8, 0.5, [0.35, 0.65])]
    base = mark_accuracy_drops("concurrency", points)
    assert base == {"concurrency": 1, "accuracy": 0.8, "accuracy_interval": [0.7, 0.9]}
    assert [p["accuracy_outside"] for p in points] == [False, False, True]
    assert points[2]["failure_causes"] == {"timeout": 2, "slo": 6, "wrong": 4}
    for p in points:
        p.update(requests_per_s=1.0, request_p99_ms=10.0)
    page = render_sweep(sweep_summary("concurrency", points))
    assert 'id="sweep-accuracy"' in page and 'id="plot-sweep-task-goodput"' in page
    assert "1 of 3 points fell outside the low-load accuracy interval" in page
    assert "outside the low-load interval" in page


def test_an_unscored_sweep_has_no_accuracy_view() -> None:
    points = [_point(1, None, None), _point(2, None, None)]
    assert mark_accuracy_drops("concurrency", points) is None
    assert "accuracy" not in points[0]
    for p in points:
        p.update(requests_per_s=1.0, request_p99_ms=10.0)
    summary = sweep_summary("concurrency", points)
    assert "accuracy_baseline" not in summary
    assert 'id="sweep-accuracy"' not in render_sweep(summary)
