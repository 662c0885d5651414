"""summary.txt says when the embedded server crashed and was restarted during the run."""

from __future__ import annotations

from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.reporting.summary_text import render_text


def _summary(restarts: list[dict[str, object]] | None) -> dict[str, object]:
    info = RunInfo(benchmark="b", complete=True, duration_s=1.0, stop_reason="done", slos={},
                   config={}, extra={"endpoint": {"url": "u", "model": "m",
                                                  **({"restarts": restarts}
                                                     if restarts is not None else {})}})
    return summarize([], info)


def test_no_restart_line_without_crashes() -> None:
    assert "Restarts" not in render_text(_summary(None))
    assert "Restarts" not in render_text(_summary([]))


def test_restarts_are_shown_with_their_cause() -> None:
    crash = {"signal": "SIGSEGV", "exit_code": -11, "error": None}
    text = render_text(_summary([crash, crash]))
    assert "Restarts  : the embedded server died 2x (SIGSEGV) and was restarted" in text
    gave_up = {"signal": None, "exit_code": 1, "error": "restart failed: port busy"}
    text = render_text(_summary([crash, gave_up]))
    assert "(SIGSEGV, exit 1)" in text and "restart failed: port busy" in text


def test_wide_latency_values_never_run_together() -> None:
    summary = _summary(None)
    big = {"count": 159, "mean": 24_601.24, "p50": 18_235.47, "p90": 43_744.13,
           "p99": 99_367.82, "max": 157_053.52}
    summary["latency_ms"] = {"turn": big, "ttft": {**big, "max": 2_000_000.5}}
    summary["stages_ms"] = {"decompose": big}
    lines = render_text(summary).splitlines()
    rows = [line.split() for line in lines
            if line.split()[:1] in (["turn"], ["ttft"], ["decompose"])]
    assert rows == [  # in the declared order (metrics/declarations.py), whatever the dict's
        ["ttft", "159", "24,601.24", "18,235.47", "43,744.13", "99,367.82", "2,000,000.50"],
        ["turn", "159", "24,601.24", "18,235.47", "43,744.13", "99,367.82", "157,053.52"],
        ["decompose", "159", "24,601.24", "18,235.47", "43,744.13", "99,367.82", "157,053.52"],
    ]
    header = next(line for line in lines if line.startswith("latency (ms)"))
    assert len(header) == len(next(line for line in lines if line.startswith("turn")))


def test_accuracy_headline_is_a_percentage_as_everywhere_else() -> None:
    summary = _summary(None)
    summary["accuracy"] = {"headline": 0.046, "metric": "answer token F1 (HotpotQA)"}
    assert "Accuracy  : 4.6% (answer token F1 (HotpotQA))" in render_text(summary)


def test_requests_that_waited_for_a_restart_are_counted() -> None:
    summary = _summary([{"signal": "SIGKILL", "exit_code": -9}])
    summary["endpoint"]["restart_waits"] = {"requests": 3, "total_ms": 4200.0}  # type: ignore[index]
    text = render_text(summary)
    assert "died 1x (SIGKILL) and was restarted; 3 requests waited 4.2 s for it" in text


def test_a_p99_of_a_handful_of_values_says_so() -> None:
    """#42: a p99 printed from one request came with no word on its sample size."""
    summary = _summary(None)
    one = {"count": 1, "mean": 5.0, "p50": 5.0, "p90": 5.0, "p99": 5.0, "max": 5.0}
    many = {**one, "count": 500}
    summary["latency_ms"] = {"ttft": one, "turn": many}
    text = render_text(summary)
    assert "(p99 of fewer than 100 values is at or next to their max: ttft n=1)" in text
    summary["latency_ms"] = {"ttft": many}
    assert "p99 of fewer than" not in render_text(summary)


def test_unmatched_tool_calls_of_a_latency_replay_do_not_read_as_a_failure() -> None:
    summary = _summary(None)
    summary["tool_calls"] = {"scored": 2, "matched": 0, "match_rate": 0.0}
    line = next(x for x in render_text(summary).splitlines() if x.startswith("Tool calls"))
    assert "0 of the 2 recorded calls again" in line and "not a failure" in line


def test_an_early_stop_with_successes_does_not_read_all_failed() -> None:
    """#42: the open-file limit made the first requests fail; 99.7 % of all then succeeded,
    and summary.txt said "all_failed"."""
    summary = _summary(None)
    summary["complete"] = False
    summary["stop_reason"] = "all_failed"
    summary["counts"].update(requests=1000, requests_ok=997)  # type: ignore[attr-defined]
    line = next(x for x in render_text(summary).splitlines() if x.startswith("Complete"))
    assert "stopped early: the first requests failed" in line and "997/1000" in line


def test_the_open_file_limit_is_raised_before_a_run() -> None:
    import resource

    from agentic_bench.run.open_files import ensure_open_files, needed

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        want = min(needed(1000), hard) if hard != resource.RLIM_INFINITY else needed(1000)
        warning = ensure_open_files(1000)
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == want
        assert (warning is None) == (want == needed(1000))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
