"""``compare A B --metric M --threshold T [--gate]``: per-metric A/B verdicts
(:mod:`agentic_bench.metrics.ab_verdict`) of every run against the first, the check that the
runs did the same work, and the gate's exit code."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentic_bench.metrics.ab_verdict import MetricRef, Run, verdict
from agentic_bench.metrics.intervals import budget_fraction, collect, kept_records
from agentic_bench.records.stream import iter_records, run_records_path
from agentic_bench.reporting.regenerate import run_record

# options that change the work itself (what is sent, how it is paced): runs that differ in one
# of them answer another question than "is B's serving faster than A's". Endpoint, model,
# transport and output options may differ: they are what an A/B compares, or do not matter.
WORK_OPTIONS = ("trace", "format", "history", "think_time", "max_tokens", "min_tokens",
                "temperature", "honor_eos", "sessions", "duration", "scenario", "concurrency",
                "rate", "target_qps", "seed", "salt", "tokenizer", "trajectory_start",
                "warmup_requests_per_lane", "idle_gap_cap", "allow_dataset_wrap", "agentx",
                "max_context", "cache_bust")
EXIT_WORSE, EXIT_INCONCLUSIVE = 3, 4


def workload_differences(names: Sequence[str], run_dirs: Sequence[Path]) -> list[str]:
    """What differs between the runs' work (the run record's ``workload`` and
    :data:`WORK_OPTIONS`), one line each, against the first run."""
    heads = [run_record(iter_records(run_records_path(d))) for d in run_dirs]
    out = []
    base = heads[0]
    for name, head in zip(names[1:], heads[1:], strict=True):
        if head.get("workload") != base.get("workload"):
            out.append(f"{name}: workload {head.get('workload')} vs {base.get('workload')}")
        then, now = base.get("options") or {}, head.get("options") or {}
        out += [f"{name}: --{key.replace('_', '-')} {now.get(key)!r} vs {then.get(key)!r}"
                for key in WORK_OPTIONS if key in then and key in now
                and then[key] != now[key]]
    return out


def load_ab_run(run_dir: Path, summary: dict[str, Any]) -> Run:
    """A run's per-session values, read line by line from its records (its own SLOs)."""
    slos = {k: float(v) for k, v in (summary.get("slos") or {}).items()
            if isinstance(v, int | float)}
    fraction = budget_fraction(summary)
    values = collect(kept_records(run_records_path(run_dir), fraction), slos, fraction)
    return Run(summary, values, fraction)


def ab_verdicts(runs: Sequence[Run], metrics: Sequence[str],
                threshold: float) -> list[list[dict[str, Any]]]:
    """For every run after the first, one verdict row per metric against the first run."""
    refs = [MetricRef.parse(m) for m in metrics]
    return [[verdict(ref, runs[0], run, threshold) for ref in refs] for run in runs[1:]]


def render_verdicts(names: Sequence[str], rows: Sequence[Sequence[dict[str, Any]]]) -> str:
    """The terminal block: per compared run, one line per metric."""
    lines = []
    for name, block in zip(names[1:], rows, strict=True):
        if not block:
            continue
        lines.append(f"A/B verdicts, {name} against {names[0]} (95% intervals of B/A, "
                     f"threshold {block[0]['threshold']:.1%}):")
        width = max(len(r["metric"]) for r in block)
        lines += [f"  {r['metric']:<{width}}  {r['verdict']:<12}  {r['reason']}" for r in block]
    return "".join(f"{line}\n" for line in lines)


def gate_code(rows: Sequence[Sequence[dict[str, Any]]], inconclusive_fails: bool) -> int:
    """``--gate``: 3 when a metric is WORSE, 4 when one is INCONCLUSIVE (unless
    ``--inconclusive pass``), else 0."""
    found = {r["verdict"] for block in rows for r in block}
    if "WORSE" in found:
        return EXIT_WORSE
    if "INCONCLUSIVE" in found and inconclusive_fails:
        return EXIT_INCONCLUSIVE
    return 0


__all__ = ["EXIT_INCONCLUSIVE", "EXIT_WORSE", "WORK_OPTIONS", "ab_verdicts", "gate_code",
           "load_ab_run", "render_verdicts", "workload_differences"]
