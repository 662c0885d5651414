"""#42 item 7: Ctrl-C / SIGTERM during a sweep stopped only the point running; the next point
ran in full. An interrupt now stops the whole sweep (or search): the point ends as an
interrupted run, no further point starts, sweep.json (search.json) covers what ran with the
interrupted point marked, one line says where it stopped and how to go on, the exit code is an
interrupted run's (3), and ``--resume`` finishes the rest."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GRACE = 2.0  # --grace: how long the interrupted point waits for its sessions in flight
SLOW = ("--ttft-ms", "200", "--itl-ms", "20", "--output-tokens", "10")


def start(url: str, out: Path, *load: str, grace: float = GRACE) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agentic_bench", "replay", "traces/sample.jsonl", "--endpoint",
         url, *load, "--scenario", "concurrency", "--duration", "3", "--grace", f"{grace:g}",
         "--out", str(out), "--quiet"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_requests(proc: subprocess.Popen[str], folder: Path, *, records: int = 1) -> None:
    """Until the point in ``folder`` has ``records`` records past its run record (its measured
    segment runs, its handlers installed); with 0, one second after the run record."""
    path = folder / "records.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        lines = [line for line in (path.read_text().splitlines() if path.exists() else [])
                 if line.endswith("}")]
        if lines and len(lines) > records:
            time.sleep(0 if records else 1.0)
            return
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"no records in {folder}")


def interrupt(proc: subprocess.Popen[str], sig: int, *,
              again_after: float | None = None) -> tuple[float, str]:
    """Send ``sig`` (twice with ``again_after``); the seconds until the process ended after the
    last one, and its stderr."""
    proc.send_signal(sig)
    if again_after is not None:
        time.sleep(again_after)
        proc.send_signal(sig)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return time.monotonic() - sent, err


def has_records(folder: Path) -> bool:
    records = folder / "records.jsonl"
    return records.exists() and records.stat().st_size > 0


def check_stopped_after_first(out: Path, err: str, report: str) -> dict[str, Any]:
    assert "interrupted after point 1" in err or "interrupted after probe 1" in err, err
    assert f"--resume {out}" in err, err
    assert not has_records(out / "concurrency-2") and not has_records(out / "concurrency-4")
    first = json.loads((out / "concurrency-1" / "summary.json").read_text())
    assert first["stop_reason"] == "interrupted" and first["result"] == "INVALID"
    result: dict[str, Any] = json.loads((out / report).read_text())
    assert [(p["concurrency"], p.get("interrupted")) for p in result["points"]] == [(1, True)]
    stop = result["interrupted"]
    assert stop["after_point"] == 1 and stop["cut_short"] and stop["summary_written"]
    assert stop["out_dir"] == str(out / "concurrency-1")
    assert "interrupted" in (out / "sweep.html").read_text()
    return result


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_stops_the_whole_sweep(sim_factory, tmp_path: Path, sig: int) -> None:
    sim = sim_factory(*SLOW)
    out = tmp_path / "sw"
    proc = start(sim.url, out, "--sweep", "concurrency=1,2,4")
    wait_for_requests(proc, out / "concurrency-1")
    took, err = interrupt(proc, sig)
    # the point waits its grace at most, then the sweep writes its files and ends; before the
    # fix the two further points ran (3 s each) and the exit came about 10 s later
    assert took < GRACE + 4, (took, err)
    assert proc.returncode == 3, err  # an interrupted run's exit code (INVALID)
    sweep = check_stopped_after_first(out, err, "sweep.json")
    assert sweep["interrupted"]["of"] == 3 and "after point 1 of 3 (concurrency=1" in err


def test_a_second_ctrl_c_cancels_the_point_at_once(sim_factory, tmp_path: Path) -> None:
    """As in a single run: the first Ctrl-C waits --grace for the sessions in flight (here
    replies of 20 s), the second cancels them; the sweep stops all the same."""
    sim = sim_factory("--ttft-ms", "200", "--itl-ms", "500", "--output-tokens", "40")
    out = tmp_path / "sw"
    proc = start(sim.url, out, "--sweep", "concurrency=1,2,4", grace=60)
    wait_for_requests(proc, out / "concurrency-1", records=0)
    took, err = interrupt(proc, signal.SIGINT, again_after=1.0)
    assert took < 5, (took, err)
    assert proc.returncode == 3, err
    check_stopped_after_first(out, err, "sweep.json")


def test_an_interrupt_stops_a_search(sim_factory, tmp_path: Path) -> None:
    sim = sim_factory(*SLOW)
    out = tmp_path / "search"
    proc = start(sim.url, out, "--search", "concurrency=1:8", "--slo", "ttft_p99_ms=5000")
    wait_for_requests(proc, out / "concurrency-1")
    took, err = interrupt(proc, signal.SIGINT)
    assert took < GRACE + 4, (took, err)
    assert proc.returncode == 3, err
    search = check_stopped_after_first(out, err, "search.json")
    assert search["capacity"] is None and "did not finish" in search["capacity_note"]


def test_resume_finishes_an_interrupted_sweep(sim_factory, tmp_path: Path) -> None:
    """The line's ``--resume OUT`` keeps nothing twice: the interrupted point is resumed and the
    points never started run; sweep.json then has every point and no interrupt."""
    sim = sim_factory(*SLOW)
    out = tmp_path / "sw"
    proc = start(sim.url, out, "--sweep", "concurrency=1,2")
    wait_for_requests(proc, out / "concurrency-1")
    interrupt(proc, signal.SIGINT)
    assert proc.returncode == 3 and not has_records(out / "concurrency-2")
    done = subprocess.run([sys.executable, "-m", "agentic_bench", "replay", "--resume", str(out),
                           "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    sweep = json.loads((out / "sweep.json").read_text())
    assert "interrupted" not in sweep
    assert [(p["concurrency"], p["result"]) for p in sweep["points"]] == [(1, "VALID"),
                                                                          (2, "VALID")]
    assert list((out / "concurrency-1").glob("records.before-resume-*.jsonl"))
