"""#33: a long run's report draws its per-request charts from a fixed sample of whole sessions,
read from records.jsonl line by line, and says so; a short run's report draws every record."""

from __future__ import annotations

import json
from pathlib import Path

from agentic_bench.reporting.html import render_report
from agentic_bench.reporting.report_sample import (
    REPORT_MAX_REQUESTS,
    read_report_records,
    sample_note,
    sessions_every,
)


def write(path: Path, sessions: int) -> None:
    lines = [{"type": "run", "benchmark": "t"}]
    for i in range(sessions):
        lines += [{"type": "step", "kind": "llm", "session_id": f"s{i}", "status": "ok"},
                  {"type": "session", "session_id": f"s{i}", "status": "ok"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))


def test_how_many_sessions_are_drawn() -> None:
    assert sessions_every(0) == 1 and sessions_every(REPORT_MAX_REQUESTS) == 1
    assert sessions_every(REPORT_MAX_REQUESTS + 1) == 2
    assert sessions_every(20 * REPORT_MAX_REQUESTS) == 20


def test_whole_sessions_are_drawn_and_the_asked_one_too(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    write(path, 400)
    everything, seen = read_report_records(path, 1)
    assert seen == len(everything) == 801
    drawn, seen = read_report_records(path, 8, session="s7")
    assert seen == 801 and drawn[0]["type"] == "run"
    sessions = {r["session_id"] for r in drawn if "session_id" in r}
    assert "s7" in sessions and 20 < len(sessions) < 100
    for sid in sessions:  # whole sessions: a step and its session record together
        assert sum(1 for r in drawn if r.get("session_id") == sid) == 2
    again, _ = read_report_records(path, 8, session="s7")
    assert again == drawn  # the same sessions every time


def test_the_report_says_its_charts_are_a_sample() -> None:
    note = sample_note(20, 1_000_000)
    html = render_report({"benchmark": "t", "report_sample": note}, [])
    assert "1 session in 20" in html and "1,000,000 requests" in html
