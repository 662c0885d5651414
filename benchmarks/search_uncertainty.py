"""Capacity under uncertainty (issue #44 item 5): does ``--search`` answer a range where a point
answer would be wrong?

The simulator is given a known capacity and large jitter: ``sim --ttft-ms 20
--ttft-per-inflight-ms 20 --ttft-jitter 200`` — a request that meets k others in flight gets a
TTFT uniform in 20 + 20 k ± 200 ms — and every session is one request with one output token.
Under a closed loop of c streams a request meets c − 1 others, so under ``--slo
ttft_p99_ms=270`` the share of sessions meeting the SLO at concurrency c is

    f(c) = clip((270 − 20 − 20 (c − 1) + 200) / 400, 0, 1)

— 0.975 at 4, 0.925 at 5, 0.875 at 6, 0.825 at 7 — and with ``--search-fraction 0.9`` the true
capacity is 5 by this model. The model is not the whole truth: the client's own share of each
TTFT lowers f (about 0.25 % per millisecond) and a request that meets fewer than c − 1 others —
a stream between two sessions — raises it. So the record also pools every trial's sessions per
load and decides each load from that pooled interval (hundreds of sessions): the **measured**
capacity range, which a trial's answer should contain. Loads 5 and 6 sit a few points either
side of the fraction, so 40 sessions cannot tell them apart.

Each ``--trials`` trial starts a simulator with its own ``--seed`` (so its own jitter draws) and
runs ``replay --search concurrency=1:16`` with 40 sessions a run, 3 runs at most a load
(run/search.py), then reads its ``search.json``: the **interval answer** (what the search says)
and the **point answer** — the pre-#44 rule (each load passes when its first run's fraction is
≥ 0.9) replayed by the same bisection (:func:`bisect_capacity` with a point oracle) on the first
runs of the loads this search probed (a trial whose point path needs a load it did not probe is
marked so). The record says, per trial, both answers and whether each holds the truth.

Reproduce: ``.venv/bin/python benchmarks/search_uncertainty.py --trials 6``
(record: benchmarks/results/search-uncertainty/search_uncertainty.json).
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

from sim_process import free_port, start_sim, write_single_request_trace  # noqa: E402

from agentic_bench.metrics.intervals import fraction_interval  # noqa: E402
from agentic_bench.options.load import SearchSpec  # noqa: E402
from agentic_bench.run.search import answer_of, bisect_capacity, decide  # noqa: E402

BASE_MS, PER_OTHER_MS, JITTER_MS, SLO_MS, FRACTION = 20.0, 20.0, 200.0, 270.0, 0.9
LO, HI, SESSIONS, MAX_RUNS = 1, 16, 40, 3


def true_fraction(c: int) -> float:
    """f(c): the share of single-request sessions within the SLO at concurrency c (doc)."""
    centre = BASE_MS + PER_OTHER_MS * (c - 1)
    return min(1.0, max(0.0, (SLO_MS - centre + JITTER_MS) / (2 * JITTER_MS)))


def true_capacity() -> int | None:
    passing = [c for c in range(LO, HI + 1) if true_fraction(c) >= FRACTION]
    return max(passing) if passing else None


def start_sim_at(port: int, seed: int) -> subprocess.Popen[str]:
    return start_sim(port, "--ttft-ms", f"{BASE_MS:g}", "--ttft-per-inflight-ms",
                     f"{PER_OTHER_MS:g}", "--ttft-jitter", f"{JITTER_MS:g}", "--itl-ms", "1",
                     "--output-tokens", "1", "--seed", str(seed))


def search(trace: Path, port: int, out: Path, seed: int) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "agentic_bench", "replay", str(trace), "--endpoint",
           f"http://127.0.0.1:{port}/v1", "--model", "sim", "--scenario", "concurrency",
           "--sessions", str(SESSIONS), "--think-time", "none", "--seed", str(seed),
           "--search", f"concurrency={LO}:{HI}", "--search-fraction", f"{FRACTION:g}",
           "--search-max-runs", str(MAX_RUNS), "--slo", f"ttft_p99_ms={SLO_MS:g}",
           "--out", str(out), "--quiet"]
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    result: dict[str, Any] = json.loads((out / "search.json").read_text())
    return result


class _NotProbed(Exception):
    pass


def point_answer(result: dict[str, Any]) -> tuple[float | None, str | None]:
    """The pre-#44 rule's capacity on this search's first runs (None, why: not computable)."""
    first = {p["concurrency"]: p["goodput_fraction"] for p in result["points"]
             if p["repeat"] == 1}

    def meets(v: float) -> bool:
        if v not in first:
            raise _NotProbed(f"the point rule would probe concurrency {v:g}, not probed here")
        return bool(first[v] >= FRACTION)

    try:
        return bisect_capacity(SearchSpec("concurrency", LO, HI, fraction=FRACTION),
                               meets).capacity, None
    except _NotProbed as exc:
        return None, str(exc)


def trial(trace: Path, work: Path, seed: int, truth: int | None) -> dict[str, Any]:
    port = free_port()
    sim = start_sim_at(port, seed)
    t0 = time.perf_counter()
    try:
        result = search(trace, port, work / f"seed-{seed}", seed)
    finally:
        sim.terminate()
        sim.wait()
    wall = time.perf_counter() - t0
    point, why = point_answer(result)
    lower, upper = result["lower"], result["upper"]
    holds = (truth is not None and (lower is None or lower <= truth)
             and (upper is None or truth < upper))
    loads: dict[str, Any] = {}
    for p in result["points"]:
        loads[f"{p['concurrency']:g}"] = {
            "runs_met_of_40": [round(q["goodput_fraction"] * SESSIONS) for q in result["points"]
                               if q["concurrency"] == p["concurrency"]],
            "pooled": p["pooled"], "interval": p["interval"], "decision": p["decision"],
            "first_run_fraction": next(q["goodput_fraction"] for q in result["points"]
                                       if q["concurrency"] == p["concurrency"]),
            "true_fraction": true_fraction(int(p["concurrency"]))}
    row = {"seed": seed, "answer": result["answer"], "verdict": result["verdict"],
           "lower": lower, "upper": upper, "capacity": result["capacity"],
           "reason": result["reason"], "interval_answer_holds_truth": holds,
           "point_answer": point, "point_answer_note": why,
           "point_answer_wrong": None if why else point != truth,
           "runs": len(result["points"]), "wall_s": round(wall, 1), "loads": loads}
    print(f"seed {seed}: search says {result['answer']!r} (holds {truth}: {holds}); point rule "
          f"says {point if not why else why}; {len(result['points'])} runs, {wall:.0f} s",
          flush=True)
    return row


def pooled_check(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every trial's sessions at each load pooled: the measured fraction and its interval, to
    set beside f(c) (the client's share and fewer others in flight move it a little)."""
    met: dict[str, list[int]] = {}
    for row in rows:
        for load, info in row["loads"].items():
            m = met.setdefault(load, [0, 0])
            m[0] += info["pooled"]["met"]
            m[1] += info["pooled"]["sessions"]
    out = {}
    for load, (m, n) in sorted(met.items(), key=lambda kv: float(kv[0])):
        bounds = fraction_interval(m, n)
        out[load] = {"met": m, "sessions": n, "fraction": round(m / n, 4),
                     "interval": None if bounds is None else [round(b, 4) for b in bounds],
                     "true_fraction": true_fraction(int(float(load)))}
    return out


def pooled_range(pooled: dict[str, Any]) -> tuple[float | None, float | None, str]:
    """The answer the pooled sessions support (each load decided from its pooled interval)."""
    spec = SearchSpec("concurrency", LO, HI, fraction=FRACTION)
    found = answer_of(spec, {float(k): decide(v["interval"], FRACTION)
                             for k, v in pooled.items()})
    return found.lower, found.upper, found.answer


def judged(rows: list[dict[str, Any]], pooled: dict[str, Any]) -> dict[str, Any]:
    """Each trial's answers set against the model's capacity and the pooled range."""
    lo, hi, said = pooled_range(pooled)
    for row in rows:
        row["interval_answer_contains_pooled_range"] = (
            (row["lower"] is None or (lo is not None and row["lower"] <= lo))
            and (row["upper"] is None or (hi is not None and hi <= row["upper"])))
        point = row["point_answer"]
        row["point_answer_outside_pooled_range"] = None if point is None else bool(
            (lo is not None and point < lo) or (hi is not None and point >= hi))
    computable = [r for r in rows if r["point_answer"] is not None]
    return {
        "pooled_answer": said, "pooled_lower": lo, "pooled_upper": hi,
        "interval_answer_holds_model_capacity": sum(bool(r["interval_answer_holds_truth"])
                                                    for r in rows),
        "interval_answer_contains_pooled_range": sum(
            bool(r["interval_answer_contains_pooled_range"]) for r in rows),
        "point_answer_computable": len(computable),
        "point_answer_wrong_vs_model": sum(bool(r["point_answer_wrong"]) for r in computable),
        "point_answer_outside_pooled_range": sum(
            bool(r["point_answer_outside_pooled_range"]) for r in computable)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results" /
                        "search-uncertainty" / "search_uncertainty.json")
    args = parser.parse_args()
    truth = true_capacity()
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        trace = work / "trace.jsonl"
        write_single_request_trace(trace, SESSIONS)
        for seed in range(args.first_seed, args.first_seed + args.trials):
            rows.append(trial(trace, work, seed, truth))
    pooled = pooled_check(rows)
    record = {
        "benchmark": "search_uncertainty", "issue": "#44 item 5",
        "command": f".venv/bin/python benchmarks/search_uncertainty.py --trials {args.trials}"
                   + (f" --first-seed {args.first_seed}" if args.first_seed != 1 else ""),
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "sim": {"ttft_ms": BASE_MS, "ttft_per_inflight_ms": PER_OTHER_MS,
                "ttft_jitter_ms": JITTER_MS, "output_tokens": 1},
        "search": {"range": [LO, HI], "fraction": FRACTION, "slo_ttft_ms": SLO_MS,
                   "sessions_per_run": SESSIONS, "max_runs": MAX_RUNS},
        "truth": {"capacity": truth,
                  "fraction_by_load": {c: true_fraction(c) for c in range(LO, 11)}},
        "totals": {
            "trials": len(rows),
            "interval_answers": [r["answer"] for r in rows],
            "point_answers": [r["point_answer"] for r in rows],
            **judged(rows, pooled),
            "wall_s": round(time.perf_counter() - t0, 1)},
        "pooled_by_load": pooled,
        "trials": rows,
    }
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(record["totals"], indent=2))


if __name__ == "__main__":
    main()
