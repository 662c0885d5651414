"""Does the harness's memory grow with the run? (issue #33: a soak test's worth of requests.)

Replays N single-request sessions (``agentic-bench replay --sessions N`` cycling a 1,000-session
trace, closed loop at 64 streams, full records) against the simulator at zero latency with
16-token replies, and reports for the harness process:

- ``peak_rss_mb_through_summary``: its RSS high-water mark (``VmHWM`` of /proc/PID/status) when
  summary.json appears — the run and its summary;
- ``peak_rss_mb``: its high-water mark over its whole life (``os.wait4``'s rusage of the
  child), report.html included (a run of over 50,000 requests draws its per-request charts
  from a sample of sessions, reporting/report_sample.py);
- ``rss_mb_by_requests``: its RSS every few seconds against the requests written so far (the
  growth while the run goes);
- ``summary_s`` (last record written → summary.json written), ``report_s`` (→ report.html) and
  ``disk_bytes_per_request`` (records.jsonl).

Memory does not depend on the machine's speed; the times do (a shared 2-core machine here).
Each N is one JSON file under ``--results`` (default benchmarks/results/soak-memory/); the
growth per request beyond the first million is the difference of two of them.

Reproduce: ``.venv/bin/python benchmarks/soak_memory.py --requests 1000000 2000000``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness_throughput import TWO, sim  # the same pinned simulator start (benchmarks/)

ROOT = Path(__file__).resolve().parents[1]
TRACE_SESSIONS = 1000
STREAMS = 64
POLL_S = 0.2
SERIES_EVERY_S = 5.0


def write_trace(folder: Path) -> Path:
    path = folder / "trace.jsonl"
    path.write_text("".join(json.dumps({"schema_version": "1", "session_id": f"s{i}",
                                        "turns": [{"user": "hi", "steps": [{"kind": "llm"}]}]})
                            + "\n" for i in range(TRACE_SESSIONS)))
    return path


def status_kb(pid: int, field: str) -> int | None:
    """A ``kB`` field of /proc/PID/status (None once the process is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def soak(url: str, requests: int, work: Path) -> dict[str, Any]:
    out = work / f"run-{requests}"
    cmd = [sys.executable, "-m", "agentic_bench", "replay", str(write_trace(work)),
           "--endpoint", url, "--out", str(out), "--quiet", "--sessions", str(requests),
           "--scenario", "concurrency", "--concurrency", str(STREAMS)]
    records = out / "records.jsonl"
    started = time.monotonic()
    proc = subprocess.Popen((["taskset", "-c", "0"] if TWO else []) + cmd)
    series: list[dict[str, Any]] = []
    hwm_at_summary: int | None = None
    bytes_per_line: float | None = None
    next_sample = started
    peak_kb = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:  # its own rusage: the high-water mark over its whole life
            peak_kb, proc.returncode = usage.ru_maxrss, os.waitstatus_to_exitcode(status)
            break
        time.sleep(POLL_S)
        if hwm_at_summary is None and (out / "summary.json").exists():
            hwm_at_summary = status_kb(proc.pid, "VmHWM")
        now = time.monotonic()
        if now >= next_sample and hwm_at_summary is None:
            next_sample = now + SERIES_EVERY_S
            rss = status_kb(proc.pid, "VmRSS")
            size = records.stat().st_size if records.exists() else 0
            if bytes_per_line is None and size > 1_000_000:  # 3 lines a request: step, turn,
                with records.open("rb") as fh:  # session (the first run line is long)
                    fh.readline()
                    sample = fh.read(500_000)
                bytes_per_line = len(sample) / max(1, sample.count(b"\n"))
            done = round(size / bytes_per_line / 3) if bytes_per_line else 0
            if rss is not None:
                series.append({"t_s": round(now - started, 1), "requests": done,
                               "rss_mb": round(rss / 1024, 1)})
    wall = time.monotonic() - started
    summary = json.loads((out / "summary.json").read_text())
    summary_s = (out / "summary.json").stat().st_mtime - records.stat().st_mtime
    report = out / "report.html"
    result = {
        "requests": summary["counts"]["requests"],
        "requests_ok": summary["counts"]["requests_ok"],
        "errors": summary["counts"]["errors"],
        "peak_rss_mb_through_summary": round((hwm_at_summary or 0) / 1024, 1),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "summary_s": round(summary_s, 2),
        "report_s": round(report.stat().st_mtime - (out / "summary.json").stat().st_mtime, 2)
        if report.exists() else None,
        "report_sample": summary.get("report_sample"),
        "disk_bytes_per_request": round(records.stat().st_size / summary["counts"]["requests"],
                                        1),
        "wall_s": round(wall, 1),
        "requests_per_s": round(summary["throughput"]["requests_per_s"], 1),
        "latency_ms_request": summary["latency_ms"]["request"],
        "rss_mb_by_requests": series,
        "exit_code": proc.returncode,
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, nargs="+", default=[1_000_000],
                        help="one run per N (each in a fresh harness process)")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results"
                        / "soak-memory", help="where each run's figures go (N.json)")
    parser.add_argument("--keep", action="store_true", help="keep each run's output folder")
    args = parser.parse_args()
    args.results.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/soak_memory.py " + shlex.join(
        ["--requests", *map(str, args.requests)])
    simulator, url = sim("--ttft-ms", "0", "--itl-ms", "0", "--output-tokens", "16")
    try:
        for n in args.requests:
            with tempfile.TemporaryDirectory(dir=os.environ.get("SOAK_TMP")) as tmp:
                work = Path(tmp)
                result = {"figure": "soak_memory", "command": command,
                          "shape": f"replay --sessions {n} of 1-request sessions, closed loop "
                                   f"at {STREAMS} streams; sim at zero latency, 16-token "
                                   "replies; full records",
                          "machine": {"cpus": os.cpu_count(), "python":
                                      platform.python_version(),
                                      "pinned": "client CPU 0, sim CPU 1" if TWO else "no"},
                          **soak(url, n, work)}
                if args.keep:
                    kept = args.results / f"run-{n}"
                    subprocess.run(["cp", "-r", str(work / f"run-{n}"), str(kept)], check=True)
            (args.results / f"{n}.json").write_text(json.dumps(result, indent=1) + "\n")
            print(json.dumps({k: v for k, v in result.items() if k != "rss_mb_by_requests"}),
                  flush=True)
    finally:
        simulator.terminate()


if __name__ == "__main__":
    main()
