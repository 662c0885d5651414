"""How fast and how precise the harness itself is (issue: numbers you can trust).

Runs the real CLI (`agentic-bench replay`, full per-chunk records) against the latency
simulator in another process. On a 2-core machine the client is pinned to CPU 0 and the
simulator to CPU 1 (``taskset``). Prints one JSON line per figure:

- ``throughput``: zero-latency simulator, 16 tokens per reply, concurrency 128 →
  requests/s, streamed tokens/s and client CPU seconds per 1,000 requests;
- ``precision``: 100 ms TTFT / 10 ms ITL / 64 tokens at concurrency 64 → TTFT mean and p99
  error against the injected truth, ITL p50 error;
- ``schedule``: ``server`` scenario at 500 sessions/s → schedule lag p50/p99;
- ``idle``: ``server`` at 5 sessions/s for 20 s → client CPU use (busy polling would show);
- ``workers``: zero-latency throughput with ``--workers 1`` and ``--workers 2`` (unpinned);
- ``calibration``: a fixed pure-Python workload on CPU 0 (ms), printed before each figure:
  shared VMs change speed by 2x within minutes, and the figures scale with it.

The precision figure runs the simulator with ``--precise`` (its own timers held to tens of
microseconds), so the error measured is the client's.

Reproduce: ``.venv/bin/python benchmarks/harness_throughput.py [--only NAME] [--repeat N]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TWO = (os.cpu_count() or 1) >= 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sim(*args: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "agentic_bench", "sim", "--port", str(port), *args]
    proc = subprocess.Popen((["taskset", "-c", "1"] if TWO else []) + cmd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(port)
    return proc, f"http://127.0.0.1:{port}/v1"


def wait_for(port: int) -> None:
    """Until something listens on ``port`` (5 s at most)."""
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)


def trace(n: int) -> Path:
    path = Path(tempfile.mkdtemp()) / "t.jsonl"
    path.write_text("".join(json.dumps({"schema_version": "1", "session_id": f"s{i}",
                                        "turns": [{"user": "hi", "steps": [{"kind": "llm"}]}]})
                            + "\n" for i in range(n)))
    return path


LAST_RUN: list[Path] = []


def replay(url: str, n: int, *args: str, pin: bool = True) -> tuple[dict, float, float]:
    out = Path(tempfile.mkdtemp()) / "run"
    LAST_RUN[:] = [out]
    cmd = [sys.executable, "-m", "agentic_bench", "replay", str(trace(n)), "--endpoint", url,
           "--out", str(out), "--quiet", *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run((["taskset", "-c", "0"] if TWO and pin else []) + cmd, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return json.loads((out / "summary.json").read_text()), wall, cpu


def emit(name: str, **fields: object) -> None:
    print(json.dumps({"figure": name, **fields}), flush=True)


CALIBRATION = """
import json, time
doc = {"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": "tok "}}]}
t = time.perf_counter()
for _ in range(100000):
    json.loads(json.dumps(doc))
print(time.perf_counter() - t)
"""


def calibrate() -> None:
    """A fixed pure-Python workload on CPU 0: how fast this core is right now. Shared VMs
    change speed from minute to minute; read the other figures next to this one."""
    out = subprocess.run((["taskset", "-c", "0"] if TWO else []) + [sys.executable, "-c",
                         CALIBRATION], capture_output=True, text=True, check=True).stdout
    emit("calibration", fixed_workload_ms=round(float(out) * 1000, 1))


def throughput() -> None:
    proc, url = sim("--ttft-ms", "0", "--itl-ms", "0", "--output-tokens", "16")
    try:
        s, _, _ = replay(url, 20000, "--scenario", "concurrency", "--concurrency", "128")
        emit("throughput", requests_per_s=round(s["throughput"]["requests_per_s"], 1),
             tokens_per_s=round(s["throughput"]["output_tokens_per_s"], 1),
             client_cpu_s_per_1000=round(s["client_cpu_s"] / s["counts"]["requests"] * 1000, 3),
             errors=s["counts"]["errors"])
    finally:
        proc.terminate()


def precision() -> None:
    proc, url = sim("--ttft-ms", "100", "--itl-ms", "10", "--output-tokens", "64", "--precise")
    try:
        s, _, _ = replay(url, 1280, "--scenario", "concurrency", "--concurrency", "64")
        lat = s["latency_ms"]
        steps = [json.loads(line) for line in (LAST_RUN[0] / "records.jsonl").open()]
        ttfts = [r["ttft_ms"] for r in sorted(
            (r for r in steps if r.get("kind") == "llm" and "ttft_ms" in r),
            key=lambda r: r["t_sent_ns"])]
        emit("precision", transport=os.environ.get("AGENTIC_BENCH_TRANSPORT", "raw"),
             ttft_mean_error_ms=round(lat["ttft"]["mean"] - 100, 3),
             ttft_p99_error_ms=round(lat["ttft"]["p99"] - 100, 3),
             itl_p50_error_ms=round(lat["itl"]["p50"] - 10, 3),
             itl_mean_error_ms=round(lat["itl"]["mean"] - 10, 3),
             first_64_ttft_mean_error_ms=round(sum(ttfts[:64]) / len(ttfts[:64]) - 100, 3),
             first_64_ttft_max_error_ms=round(max(ttfts[:64]) - 100, 3),
             errors=s["counts"]["errors"])
    finally:
        proc.terminate()


def schedule() -> None:
    proc, url = sim("--ttft-ms", "1", "--itl-ms", "1", "--output-tokens", "4")
    try:
        s, _, _ = replay(url, 1000, "--scenario", "server", "--rate", "500", "--duration", "10")
        lag = s["harness"]["schedule_lag_ms"]
        emit("schedule", rate=500, lag_p50_ms=round(lag["p50"], 3),
             lag_p99_ms=round(lag["p99"], 3), requests=s["counts"]["requests"])
    finally:
        proc.terminate()


def idle() -> None:
    proc, url = sim("--ttft-ms", "20", "--itl-ms", "5", "--output-tokens", "8")
    try:
        s, wall, cpu = replay(url, 100, "--scenario", "server", "--rate", "5", "--duration", "20")
        emit("idle", rate=5, wall_s=round(wall, 1), process_cpu_s=round(cpu, 2),
             run_cpu_s=round(s["client_cpu_s"], 3),
             core_share_during_run=round(s["client_cpu_s"] / s["duration_s"], 4))
    finally:
        proc.terminate()


def workers() -> None:
    proc, url = sim("--ttft-ms", "0", "--itl-ms", "0", "--output-tokens", "16")
    try:
        for w in (1, 2):
            s, _, _ = replay(url, 20000, "--scenario", "concurrency", "--concurrency", "128",
                             "--workers", str(w), pin=False)
            emit("workers", workers=w, requests_per_s=round(s["throughput"]["requests_per_s"], 1))
    finally:
        proc.terminate()


FIGURES = {"calibration": calibrate, "throughput": throughput, "precision": precision,
           "schedule": schedule, "idle": idle, "workers": workers}

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=sorted(FIGURES))
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run each figure N times (each run prints its own line, preceded by "
                    "a calibration line)")
    args = ap.parse_args()
    for _ in range(args.repeat):
        for name, fn in FIGURES.items():
            if args.only in (None, name) or (name == "calibration" and args.only):
                fn()
