"""The live progress line: which phase runs (agentic-edge), and one line that fits a terminal
(#30 item 15)."""

from __future__ import annotations

import pytest

from agentic_bench.reporting.progress import Progress


def test_a_run_with_phases_names_the_current_one_and_counts_each() -> None:
    progress = Progress(total=12, quiet=True)
    assert "[" not in progress.line()  # no phases, no marker
    progress.on_record({"type": "session", "phase": "performance", "status": "ok"})
    progress.on_record({"type": "step", "kind": "llm", "status": "ok", "ttft_ms": 5.0,
                        "phase": "accuracy"})
    line = progress.line()
    assert line.startswith("[accuracy: performance 1]  sessions 1/12")
    progress.on_record({"type": "session", "phase": "accuracy", "status": "ok"})
    assert progress.line().startswith("[accuracy: performance 1, accuracy 1]  sessions 2/12")


def test_on_a_terminal_the_line_never_wraps(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import shutil

    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((60, 24)))
    progress = Progress(total=1000, quiet=True)
    progress.tty = True
    progress.on_record({"type": "step", "kind": "llm", "status": "ok", "ttft_ms": 12345.678,
                        "phase": "performance"})
    assert len(progress.line()) <= 59


def test_a_fixed_duration_counts_down_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """#42: with --duration the ETA grew with the sessions done; it is the time left."""
    import agentic_bench.reporting.progress as progress_module

    now = [100.0]
    monkeypatch.setattr(progress_module, "perf_counter", lambda: now[0])
    progress = Progress(total=1000, quiet=True, duration_s=60.0)
    now[0] += 10.0
    for _ in range(3):
        progress.on_record({"type": "session", "status": "ok"})
    assert "ETA 50s of 60s" in progress.line()
    now[0] += 40.0
    assert "ETA 10s of 60s" in progress.line()
    now[0] += 30.0
    assert "ETA 0s of 60s" in progress.line()
