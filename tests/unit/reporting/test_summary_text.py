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
