"""#42.9: records that cannot be written (a full disk, here a 1 MiB file-size limit) stop the
run at the first failed write with one line; what was written is kept and the summary says
how many records were lost (before: every request was sent anyway, each flush printed a
traceback with the growing unwritten list — 7.8 GB of stderr in 119 s here — exit 1, no
summary)."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.records.stream import RecordWriter, read_records

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 1 << 20


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def test_a_full_disk_stops_the_run_with_one_line(sim_factory: Any, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0.1")
    out = tmp_path / "run"
    res = subprocess.run(
        [sys.executable, "-m", "agentic_bench", "replay", str(ROOT / "traces" / "sample.jsonl"),
         "--endpoint", sim.url, "--out", str(out), "--quiet", "--think-time", "none",
         "--sessions", "3000", "--scenario", "concurrency", "--concurrency", "8"],
        preexec_fn=_limit_file_size, capture_output=True, text=True, timeout=300)
    assert res.returncode == 3, res.stderr[-2000:]
    assert "Traceback" not in res.stderr and len(res.stderr) < 1000, res.stderr[-2000:]
    stops = [x for x in res.stderr.splitlines() if x.startswith("stopping: cannot write")]
    assert len(stops) == 1 and "records.jsonl" in stops[0]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["result"] == "INVALID" and summary["complete"] is False
    assert summary["stop_reason"] == "records_unwritable"
    assert summary["records_unwritten"]["records"] > 0
    assert summary["counts"]["sessions"] < 3000  # it stopped issuing
    kept = read_records(out / "records.jsonl")
    assert kept.records and kept.records[0]["type"] == "run"
    assert "not written" in (out / "summary.txt").read_text()


def test_the_writer_keeps_the_first_failure_and_counts_the_rest() -> None:
    errors: list[OSError] = []
    writer = RecordWriter(Path("/dev/full"), on_error=errors.append).open()
    for k in range(5):
        writer.write({"type": "step", "k": k})
    writer.close()
    assert len(errors) == 1 and writer.error is errors[0]
    assert writer.lost == 5
