"""Report writers are plugins (#23 item 4): a ``reporter:NAME`` entry point (as the built-in
HTML report is registered) runs after every run and on `agentic-bench report DIR`; a failing
one is a warning naming it and never stops the others; a plugin cannot replace a built-in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

PLUGIN = '''
import csv


def write_csv(out_dir, summary, records):
    path = out_dir / "latency.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["metric", "p50"])
        for name, stats in summary["latency_ms"].items():
            w.writerow([name, stats.get("p50")])
    return path


def broken(out_dir, summary, records):
    raise RuntimeError("disk on fire")


def shadow(out_dir, summary, records):
    raise AssertionError("a plugin must not replace the built-in html report")
'''


@pytest.fixture
def reporter_plugin(tmp_path: Path, plugin_installer: Callable[..., None]) -> None:
    plugin_installer(tmp_path / "site", "tiny_reporter", PLUGIN, {
        "reporter:csv": "write_csv", "reporter:broken": "broken", "reporter:html": "shadow"})


def _summary() -> dict[str, Any]:
    from agentic_bench.metrics.aggregate import RunInfo, summarize

    records = [{"type": "step", "kind": "llm", "status": "ok", "ttft_ms": 5.0,
                "request_ms": 9.0, "session_id": "s"},
               {"type": "session", "session_id": "s", "status": "ok", "turns": 1,
                "latency_ms": 9.0}]
    return summarize(records, RunInfo(benchmark="t", complete=True, duration_s=1.0)), records


def test_installed_reporters_run_after_the_builtin(reporter_plugin: None,
                                                   tmp_path: Path) -> None:
    from agentic_bench.reporting.reporters import reporter_names, run_reporters

    assert reporter_names() == ["html", "broken", "csv"]
    summary, records = _summary()
    out = tmp_path / "run"
    files, warnings = run_reporters(out, summary, records)
    assert [p.name for p in files] == ["report.html", "latency.csv"]
    assert warnings == ["reporter 'broken' failed: RuntimeError: disk on fire"]
    assert "ttft,5.0" in (out / "latency.csv").read_text()


def test_without_plugins_only_the_html_report(tmp_path: Path) -> None:
    from agentic_bench.reporting.reporters import run_reporters

    summary, records = _summary()
    files, warnings = run_reporters(tmp_path, summary, records)
    assert [p.name for p in files] == ["report.html"] and warnings == []
