"""Are the intervals and A/B verdicts honest? (issue #44.) Three measurements on the simulator:

1. **Coverage**: ``--runs`` runs against ``sim --ttft-ms 100 --ttft-jitter 20`` (TTFT uniform
   in 80-120 ms plus the client's own share); each run's 95 % intervals of TTFT p50 and p99
   (metrics/intervals.py) are checked against the true value — the pooled p50 / p99 of every
   run's TTFTs (tens of thousands of values: its own error is a fraction of an interval).
2. **False verdicts**: consecutive runs against the same simulator as A/A pairs; compare's
   verdicts (metrics/ab_verdict.py) for TTFT p50, TTFT p99 and request p99 at thresholds 0 %
   and 1 %: any BETTER or WORSE is a false verdict.
3. **Power**: one run against ``sim --ttft-ms 103`` (3 % slower) judged against the first
   runs: WORSE at 1 %, SAME at 5 % expected. ``--power-sessions`` (default 1,600) runs 3 more
   baselines and one 3 %-slower run at that size, judged on TTFT p50 and mean (a median at 400
   sessions is too wide to say SAME at 5 % of a 3 % effect every time: see the record).
   ``--power-only`` runs just this part and adds it to the record.

Each run: ``--sessions`` single-request sessions, closed loop of 16 streams, 8-token replies.
The record goes to ``--results`` (default benchmarks/results/intervals/calibration.json).

Reproduce: ``.venv/bin/python benchmarks/interval_calibration.py --runs 40 --sessions 400``
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from sim_process import start_sim, write_single_request_trace  # noqa: E402

from agentic_bench.metrics.ab_verdict import MetricRef, Run, verdict  # noqa: E402
from agentic_bench.metrics.intervals import budget_fraction, collect, intervals  # noqa: E402
from agentic_bench.metrics.percentiles import percentile  # noqa: E402
from agentic_bench.records.stream import iter_records  # noqa: E402

PAIR_METRICS = ("ttft_p50_ms", "ttft_p99_ms", "request_p99_ms")


def start_sim_at(port: int, ttft_ms: float, seed: int) -> subprocess.Popen[str]:
    return start_sim(port, "--ttft-ms", str(ttft_ms), "--ttft-jitter", "20", "--itl-ms", "1",
                     "--output-tokens", "8", "--seed", str(seed))


def replay(trace: Path, port: int, out: Path) -> None:
    subprocess.run([sys.executable, "-m", "agentic_bench", "replay", str(trace), "--endpoint",
                    f"http://127.0.0.1:{port}/v1", "--out", str(out), "--quiet", "--scenario",
                    "concurrency", "--concurrency", "16", "--think-time", "none"], check=False)


def load(out: Path) -> tuple[Run, list[float]]:
    summary = json.loads((out / "summary.json").read_text())
    fraction = budget_fraction(summary)
    values = collect(iter_records(out / "records.jsonl"), {}, fraction)
    ttft = [v for s in values.sessions.values() for v in s.values.get("ttft", [])]
    return Run(summary, values, fraction), ttft


def power(sessions: int) -> dict[str, Any]:
    """3 baselines and one 3 %-slower run of ``sessions`` sessions; each baseline judged."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        trace = work / "trace.jsonl"
        write_single_request_trace(trace, sessions)
        same, slow = start_sim_at(8953, 100.0, 3), start_sim_at(8954, 103.0, 4)
        try:
            bases = []
            for k in range(3):
                replay(trace, 8953, work / f"base-{k}")
                bases.append(load(work / f"base-{k}")[0])
            replay(trace, 8954, work / "slow")
            slower = load(work / "slow")[0]
        finally:
            for proc in (same, slow):
                proc.terminate()
                proc.wait()
    out: dict[str, Any] = {"sessions": sessions}
    for name in ("ttft_p50_ms", "ttft_mean_ms"):
        for t in (0.01, 0.05):
            found = [verdict(MetricRef.parse(name), b, slower, t) for b in bases]
            out[f"{name} at {t:.0%}"] = [f"{r['verdict']} {r['interval']}" for r in found]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=400)
    parser.add_argument("--results", type=Path,
                        default=ROOT / "benchmarks" / "results" / "intervals")
    parser.add_argument("--power-sessions", type=int, default=1600)
    parser.add_argument("--power-only", action="store_true")
    args = parser.parse_args()
    if args.power_only:
        path = args.results / "calibration.json"
        record = json.loads(path.read_text())
        record["power_at_size"] = power(args.power_sessions)
        path.write_text(json.dumps(record, indent=2) + "\n")
        print(json.dumps(record["power_at_size"], indent=2))
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        trace = work / "trace.jsonl"
        write_single_request_trace(trace, args.sessions)
        same = start_sim_at(8951, 100.0, 1)
        slow = start_sim_at(8952, 103.0, 2)
        try:
            runs, pooled, ivals = [], [], []
            for k in range(args.runs):
                out = work / f"run-{k}"
                replay(trace, 8951, out)
                run, ttft = load(out)
                runs.append(run)
                pooled += ttft
                block = intervals(iter_records(out / "records.jsonl"), run.summary, {})
                ivals.append(block["latency_ms"]["ttft"])
                print(f"run {k + 1}/{args.runs}", file=sys.stderr)
            replay(trace, 8952, work / "slow")
            slower, _ = load(work / "slow")
        finally:
            for proc in (same, slow):
                proc.terminate()
                proc.wait()
    pooled.sort()
    truth = {"p50": percentile(pooled, 50), "p99": percentile(pooled, 99)}
    coverage = {stat: sum(1 for b in ivals if b[stat][0] <= truth[stat] <= b[stat][1])
                / len(ivals) for stat in truth}
    pairs = list(zip(runs[0::2], runs[1::2], strict=False))
    false: dict[str, dict[str, int]] = {}
    for threshold in (0.0, 0.01):
        counts: dict[str, int] = {"pairs": len(pairs), "verdicts": 0, "false": 0}
        for a, b in pairs:
            for name in PAIR_METRICS:
                found = verdict(MetricRef.parse(name), a, b, threshold)["verdict"]
                counts["verdicts"] += 1
                counts["false"] += found in ("BETTER", "WORSE")
        false[f"{threshold:.0%}"] = counts
    small = {f"{t:.0%}": [verdict(MetricRef.parse("ttft_p50_ms"), runs[k], slower, t)["verdict"]
                          for k in range(min(5, len(runs)))] for t in (0.01, 0.05)}
    record: dict[str, Any] = {
        "command": f"benchmarks/interval_calibration.py --runs {args.runs} --sessions "
                   f"{args.sessions}",
        "machine": f"{platform.node()} {platform.processor() or platform.machine()}",
        "date": time.strftime("%Y-%m-%d"), "truth_ms": truth, "coverage": coverage,
        "false_verdicts": false, "power_3pct_ttft_p50": small,
        "power_at_size": power(args.power_sessions),
    }
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "calibration.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
