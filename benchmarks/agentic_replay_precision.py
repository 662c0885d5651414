"""TTFT precision of multi-step agentic replay at 64 streams, against single-request sessions.

The latency simulator injects TTFT 100 ms and ITL 10 ms (``--precise``) in its own process
on CPU 1; ``agentic-bench replay`` runs in this process on CPU 0 (``taskset``-style affinity)
when the machine has two cores. The TTFT error is the recorded ``ttft_ms`` minus the injected
100 ms, over every LLM step of the run. Two workloads:

- ``agentic``: ``traces/sample.jsonl`` (sessions with tool calls, tool steps and several LLM
  calls per turn) cycled to ``--sessions``, ``--think-time none`` so steps follow at once;
- ``single``: the same number of LLM calls as one-step sessions (the transport alone).

``--profile`` prints where the client's CPU time went (cProfile, agentic workload).
``--gc-log`` also records every garbage-collector pause during the replay (count, total and
largest per generation): the profile of where the tail went. ``--python-gc`` runs with
Python's default collector settings instead of the harness's (``agentic_bench.load.gc_policy``),
to show the difference. Reproduce (quiet machine; one JSON line per workload):

    .venv/bin/python benchmarks/agentic_replay_precision.py --gc-log
    .venv/bin/python benchmarks/agentic_replay_precision.py --gc-log --python-gc
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from time import perf_counter_ns
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentic_bench.metrics.percentiles import describe  # noqa: E402

TTFT_MS = 100.0


def single_step_trace(source: Path, out: Path) -> Path:
    """One session per LLM step of ``source``: that step alone, with its recorded history."""
    from agentic_bench.trace.jsonl import TraceFile
    from agentic_bench.trace.model import LlmStep

    rows = []
    for session in TraceFile(source):
        for ti, turn in enumerate(session.turns):
            for si, step in enumerate(turn.steps):
                if isinstance(step, LlmStep):
                    rows.append({"schema_version": "1",
                                 "session_id": f"{session.session_id}-{ti}-{si}",
                                 "turns": [{"user": turn.user, "steps": [
                                     {"kind": "llm", "params": step.params,
                                      "output": {"content": "ok"}}]}]})
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return out


@contextlib.contextmanager
def gc_pauses(enabled: bool) -> Iterator[dict[int, list[float]]]:
    """Every collector pause (ms) by generation while the block runs."""
    pauses: dict[int, list[float]] = defaultdict(list)
    started: list[int] = []

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(perf_counter_ns())
        elif started:
            pauses[int(info["generation"])].append((perf_counter_ns() - started.pop()) / 1e6)

    if enabled:
        gc.callbacks.append(callback)
    try:
        yield pauses
    finally:
        if enabled:
            gc.callbacks.remove(callback)


def llm_steps(records: Path) -> list[dict[str, Any]]:
    out = []
    with records.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("type") == "step" and rec.get("kind") == "llm":
                out.append(rec)
    return out


def run_one(name: str, trace: Path, url: str, sessions: int, conc: int, work: Path,
            gc_log: bool, profile: bool = False) -> dict[str, Any]:
    from agentic_bench.cli.main import main as cli

    out = work / name
    argv = ["replay", str(trace), "--endpoint", url, "--model", "sim", "--scenario",
            "concurrency", "--concurrency", str(conc), "--sessions", str(sessions),
            "--think-time", "none", "--out", str(out), "--quiet"]
    cpu0 = time.process_time()
    profiler = cProfile.Profile() if profile else None
    with gc_pauses(gc_log) as pauses:
        if profiler is not None:
            profiler.enable()
        rc = cli(argv)
        if profiler is not None:
            profiler.disable()
    cpu = time.process_time() - cpu0
    if profiler is not None:  # where the client's time went (to stderr; timings then inflated)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(20)
    if rc != 0:
        raise SystemExit(f"{name}: replay exited {rc}")
    steps = llm_steps(out / "records.jsonl")
    ok = [s for s in steps if s.get("status") == "ok" and "ttft_ms" in s]
    err = describe([s["ttft_ms"] - TTFT_MS for s in ok])
    lag = describe([s["schedule_lag_ms"] for s in steps])
    row: dict[str, Any] = {
        "workload": name, "sessions": sessions, "concurrency": conc, "llm_calls": len(steps),
        "errors": len(steps) - len(ok),
        "ttft_error_ms": {k: round(float(err[k]), 3) for k in ("mean", "p50", "p90", "p99",
                                                                "max")},
        "schedule_lag_ms_p99": round(float(lag["p99"]), 3),
        "client_cpu_s_per_1000_calls": round(cpu / max(len(steps), 1) * 1000, 3),
    }
    if gc_log:
        row["gc_pauses"] = {str(g): {"count": len(v), "total_ms": round(sum(v), 2),
                                     "max_ms": round(max(v), 3)}
                            for g, v in sorted(pauses.items())}
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trace", type=Path, default=ROOT / "traces" / "sample.jsonl")
    ap.add_argument("--sessions", type=int, default=640,
                    help="agentic sessions (the single workload issues as many LLM calls)")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--port", type=int, default=8978)
    ap.add_argument("--workloads", default="agentic,single")
    ap.add_argument("--gc-log", action="store_true", help="record collector pauses")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile the agentic replay and print the top 20 functions by own "
                    "time to stderr (the TTFT figures of a profiled run are inflated)")
    ap.add_argument("--python-gc", action="store_true",
                    help="Python's default collector settings, not the harness's")
    args = ap.parse_args()
    if args.python_gc:
        from agentic_bench.load import gc_policy

        gc_policy.ENABLED = False
    two = (os.cpu_count() or 1) >= 2
    sim_cmd = [sys.executable, "-m", "agentic_bench", "sim", "--port", str(args.port),
               "--ttft-ms", str(TTFT_MS), "--itl-ms", "10", "--output-tokens", "32",
               "--precise"]
    sim = subprocess.Popen((["taskset", "-c", "1"] if two else []) + sim_cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if two:
        os.sched_setaffinity(0, {0})
    try:
        time.sleep(1.5)
        url = f"http://127.0.0.1:{args.port}/v1"
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            agentic = run_one("agentic", args.trace, url, args.sessions, args.concurrency,
                              work, args.gc_log, args.profile) \
                if "agentic" in args.workloads else None
            calls = agentic["llm_calls"] if agentic else args.sessions * 4
            if agentic:
                print(json.dumps({**agentic, "python_gc": args.python_gc}), flush=True)
            if "single" in args.workloads:
                single = single_step_trace(args.trace, work / "single.jsonl")
                row = run_one("single", single, url, calls, args.concurrency, work,
                              args.gc_log)
                print(json.dumps({**row, "python_gc": args.python_gc}), flush=True)
    finally:
        sim.terminate()
        sim.wait()


if __name__ == "__main__":
    main()
