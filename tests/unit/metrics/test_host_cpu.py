"""Host CPU shares (steal included) from /proc/stat ticks, summed over run segments."""

from __future__ import annotations

from pathlib import Path

from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.host_cpu import (
    describe_host_cpu,
    read_ticks,
    summarize_host_cpu,
    ticks_between,
)
from agentic_bench.reporting.summary_text import render_text

ZERO = dict.fromkeys(("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"), 0)


def test_read_ticks_parses_the_cpu_line(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 5 20 300 4 0 1 70 0 0\ncpu0 50 2 10 150 2 0 0 35 0 0\n")
    assert read_ticks(stat) == {"user": 100, "nice": 5, "system": 20, "idle": 300,
                                "iowait": 4, "irq": 0, "softirq": 1, "steal": 70}
    stat.write_text("intr 1 2 3\n")
    assert read_ticks(stat) is None
    stat.write_text("cpu  1 2 x 4 5 6 7 8\n")
    assert read_ticks(stat) is None
    assert read_ticks(tmp_path / "missing") is None


def test_ticks_between_needs_both_readings() -> None:
    before = {**ZERO, "user": 10, "steal": 5}
    after = {**ZERO, "user": 25, "steal": 45, "idle": 40}
    assert ticks_between(before, after) == {**ZERO, "user": 15, "steal": 40, "idle": 40}
    assert ticks_between(None, after) is None and ticks_between(before, None) is None


def test_segments_add_up_and_shares_follow() -> None:
    segments = [
        {"type": "segment", "host_cpu_ticks": {**ZERO, "user": 60, "steal": 30, "idle": 10},
         "host_cores": 2},
        {"type": "segment"},  # a segment written before host CPU was recorded
        {"type": "segment", "host_cpu_ticks": {**ZERO, "system": 40, "steal": 10, "iowait": 50},
         "host_cores": 2},
    ]
    host = summarize_host_cpu(segments)
    assert host is not None
    assert host["ticks"]["steal"] == 40 and sum(host["ticks"].values()) == 200
    assert (host["busy"], host["steal"], host["idle"]) == (0.5, 0.2, 0.3)
    assert (host["segments"], host["segments_total"], host["cores"]) == (2, 3, 2)
    line = describe_host_cpu(host)
    assert line is not None and "steal 20.0%" in line and "inflated" in line
    assert "(in 2 of 3 run segments)" in line
    assert summarize_host_cpu([{"type": "segment"}]) is None
    assert summarize_host_cpu([{"host_cpu_ticks": ZERO}]) is None


def test_low_steal_has_no_warning_and_summary_txt_shows_it() -> None:
    host = summarize_host_cpu([{"host_cpu_ticks": {**ZERO, "user": 97, "steal": 3},
                                "host_cores": 4}])
    line = describe_host_cpu(host)
    assert line == "Host CPU  : busy 97.0%, steal 3.0%, idle 0.0% of 4 cores' time"
    info = RunInfo(benchmark="b", complete=True, duration_s=1.0, extra={"host_cpu": host})
    assert line in render_text(summarize([], info))
    assert "Host CPU" not in render_text(summarize([], RunInfo("b", True, 1.0)))
