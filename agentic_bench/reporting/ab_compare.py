"""``compare A B --metric M --threshold T [--gate]``: per-metric A/B verdicts of every side
against the first, the check that the runs did the same work, and the gate's exit code.

A side is a run folder or a ``--repeat`` folder (``repeat.json`` beside ``rep-1/`` …). Two
single runs are judged by a bootstrap over their sessions
(:mod:`agentic_bench.metrics.ab_verdict`); when either side holds repeated runs, across the
runs' values (:mod:`agentic_bench.metrics.ab_repeats`, Welch t on log values)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_bench.metrics.ab_repeats import across_runs_verdict
from agentic_bench.metrics.ab_verdict import MetricRef, Run, verdict
from agentic_bench.metrics.intervals import budget_fraction, collect, kept_records
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.records.stream import iter_records, run_records_path
from agentic_bench.reporting.regenerate import run_record

# options that change the work itself (what is sent, how it is paced): runs that differ in one
# of them answer another question than "is B's serving faster than A's". Endpoint, model,
# transport and output options may differ: they are what an A/B compares, or do not matter.
WORK_OPTIONS = ("trace", "format", "history", "think_time", "max_tokens", "min_tokens",
                "temperature", "honor_eos", "sessions", "duration", "scenario", "concurrency",
                "rate", "target_qps", "seed", "salt", "tokenizer", "trajectory_start",
                "warmup_requests_per_lane", "idle_gap_cap", "trace_idle_gap_cap",
                "allow_dataset_wrap", "agentx",
                "max_context", "cache_bust")
EXIT_WORSE, EXIT_INCONCLUSIVE = 3, 4
_REP = re.compile(r"^rep-(\d+)$")


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a run folder (``runs`` is itself) or a ``--repeat`` folder
    (``runs``: its ``rep-K`` folders that hold a summary, in order of K)."""

    path: Path
    runs: tuple[Path, ...]
    repeated: bool


def load_side(path: Path, repeat_file: str) -> Side:
    """The side ``path`` is: a repeat folder when it has ``repeat_file`` (``repeat.json``, which
    run/repeat.py writes; the caller names it, as reporting sits below run) and a ``rep-K``
    folder; UsageError when none of its repetitions left a summary."""
    from agentic_bench.errors import UsageError

    path = Path(path)
    if not (path / repeat_file).is_file():
        return Side(path, (path,), False)
    reps = sorted((int(m.group(1)), d) for d in path.iterdir()
                  if d.is_dir() and (m := _REP.match(d.name)))
    runs = tuple(d for _, d in reps if (d / "summary.json").is_file())
    if not runs:
        raise UsageError(f"{path}: a --repeat folder ({repeat_file}) without a finished "
                         "repetition (no rep-K/summary.json)")
    return Side(path, runs, True)


def side_run_names(side_names: Sequence[str], sides: Sequence[Side]) -> list[str]:
    """A label per run of every side: the side's name, or ``name/rep-K`` for a repetition."""
    return [name if not side.repeated else f"{name}/{run.name}"
            for name, side in zip(side_names, sides, strict=True) for run in side.runs]


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


def load_ab_run(run_dir: Path, given: Summary | dict[str, Any]) -> Run:
    """A run's per-session values, read line by line from its records (its own SLOs)."""
    summary = Summary.of(given)
    slos = {k: float(v) for k, v in summary.slos.items() if isinstance(v, int | float)}
    fraction = budget_fraction(summary)
    values = collect(kept_records(run_records_path(run_dir), fraction), slos, fraction)
    return Run(summary, values, fraction)


def side_verdicts(sides: Sequence[Side], summaries: Sequence[Sequence[dict[str, Any]]],
                  metrics: Sequence[str], threshold: float,
                  load_sessions: Callable[[Path, dict[str, Any]], Run] = load_ab_run,
                  ) -> list[list[dict[str, Any]]]:
    """For every side after the first, one verdict row per metric against the first side
    (``summaries``: each side's runs' summaries): a bootstrap over sessions when both sides
    hold one run, else across the runs' values (module doc)."""
    refs = [MetricRef.parse(m) for m in metrics]
    out = []
    for side, mine in zip(sides[1:], summaries[1:], strict=True):
        if len(sides[0].runs) == 1 and len(side.runs) == 1:
            a, b = (load_sessions(s.runs[0], sums[0]) for s, sums in ((sides[0], summaries[0]),
                                                               (side, mine)))
            out.append([verdict(ref, a, b, threshold) for ref in refs])
        else:
            out.append([across_runs_verdict(ref, [ref.value(s) for s in summaries[0]],
                                            [ref.value(s) for s in mine], threshold)
                        for ref in refs])
    return out


def render_verdicts(names: Sequence[str], rows: Sequence[Sequence[dict[str, Any]]]) -> str:
    """The terminal block: per compared run, one line per metric."""
    lines = []
    for name, block in zip(names[1:], rows, strict=True):
        if not block:
            continue
        tests = "; ".join(dict.fromkeys(str(r.get("test")) for r in block if r.get("test")))
        lines.append(f"A/B verdicts, {name} against {names[0]} (95% intervals of B/A"
                     f"{', ' + tests if tests else ''}; threshold {block[0]['threshold']:.1%}):")
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


__all__ = ["EXIT_INCONCLUSIVE", "EXIT_WORSE", "WORK_OPTIONS", "Side", "gate_code", "load_ab_run",
           "load_side", "render_verdicts", "side_run_names", "side_verdicts",
           "workload_differences"]
