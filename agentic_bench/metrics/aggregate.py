"""Records → the canonical ``summary.json`` dictionary (see docs/metrics.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentic_bench.metrics.early_stop import failure_note
from agentic_bench.metrics.fanout import fanout_block
from agentic_bench.metrics.summary_model import (
    SUMMARY_SCHEMA,
    SUMMARY_VERSION,
    Constraint,
    Load,
    Summary,
)
from agentic_bench.metrics.tally import RunTally
from agentic_bench.metrics.verdict import evaluate


@dataclass
class RunInfo:
    """What the summary needs besides the records: the benchmark, whether the run completed, its
    duration and stop reason, SLOs, config, accuracy and planned turns."""

    benchmark: str
    complete: bool
    duration_s: float
    stop_reason: str = "done"
    slos: dict[str, float] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    accuracy: dict[str, Any] | None = None
    planned_turns: int | None = None
    truncated_record_lines: int = 0


def summarize(records: Iterable[dict[str, Any]], run: RunInfo) -> dict[str, Any]:
    """The summary of ``records`` (a list, or a stream read line by line): each record is
    counted once into a :class:`~agentic_bench.metrics.tally.RunTally`, then summarised."""
    tally = RunTally(run.slos)
    for rec in records:
        tally.add(rec)
    return summary_of(tally, run)


def summary_of(tally: RunTally, run: RunInfo) -> dict[str, Any]:
    """The canonical ``summary.json`` dictionary from a run's tally."""
    counts = tally.counts
    errors = Counter(tally.errors)
    planned_turns = tally.planned_turns
    if run.planned_turns is not None:
        planned_turns = max(planned_turns, run.planned_turns)
    duration = max(run.duration_s, 1e-9)
    requests_ok, sessions_ok, sessions = (counts["requests_ok"], counts["sessions_ok"],
                                          counts["sessions"])
    unmatched, scored, matched = tally.tool_calls
    summary: dict[str, Any] = {
        "schema": SUMMARY_SCHEMA,
        "version": SUMMARY_VERSION,
        "benchmark": run.benchmark,
        "complete": run.complete,
        "stop_reason": run.stop_reason,
        "duration_s": run.duration_s,
        "counts": {
            "sessions": sessions,
            "sessions_ok": sessions_ok,
            "turns": planned_turns,
            "turns_ok": counts["turns_ok"],
            "missing_turns": planned_turns - counts["turns_ok"],
            "requests": counts["requests"],
            "requests_ok": requests_ok,
            "errors": sum(errors.values()),
            "errors_by_type": dict(sorted(errors.items())),
            "internal_errors": counts["internal_errors"],
            "retries": counts["retries"],
            "unmatched_tool_calls": unmatched,
            "output_tokens": tally.output_tokens,
        },
        # metrics/declarations.py; a turn or tree begun mid-trajectory is not a whole one
        "latency_ms": {decl.name: dist.describe() for decl, dist in tally.metrics},
        "stages_ms": {name: dist.describe() for name, dist in sorted(tally.stages.items())},
        "throughput": {
            "requests_per_s": requests_ok / duration,
            "output_tokens_per_s": tally.output_tokens / duration,
            "sessions_per_s": sessions_ok / duration,
        },
        "goodput": {"sessions_per_s": tally.goodput / duration, "sessions": tally.goodput},
        "interactivity": tally.interactivity.block(),
        "tool_calls": {"scored": scored, "matched": matched,
                       "match_rate": matched / scored if scored else None},
        "accuracy": run.accuracy,
        "harness": {
            "schedule_lag_ms": tally.schedule_lag.describe(),
            "prompt_build_ms": tally.prompt_build.describe(),
            "prompt_ahead": tally.prompt_ahead,
            "prompt_late": tally.prompt_late,
            "send_late_ms": tally.send_late.describe(),
            "client_share_ms": tally.client_share.describe(),
            "token_source": dict(tally.token_source),
            "truncated_record_lines": run.truncated_record_lines,
        },
        "slos": run.slos,
        "config": run.config,
        **run.extra,
    }
    model = Summary.of(summary)
    _add_blocks(model, tally, run)
    model.constraints = [Constraint.model_validate(row) for row in evaluate(model, run.slos)]
    model.result = "VALID" if all(c.ok for c in model.constraints) else "INVALID"
    return model.to_dict()


def _add_blocks(model: Summary, tally: RunTally, run: RunInfo) -> None:
    """The blocks a run has only when its records call for them, set on the typed summary
    (each is dumped after the core blocks, in the model's field order)."""
    cache = tally.prefix_cache.block((run.extra.get("workload") or {}).get("prefix_ceiling"))
    if cache is not None:
        model.prefix_cache = cache
    fanout = fanout_block(tally.kept)
    if fanout is not None:
        model.fanout = fanout
    if tally.warmup:
        model.warmup = dict(tally.warmup)
    note = failure_note(model.counts.to_dict(), tally.failures)
    if note:  # nothing succeeded: the cause, for the banner
        model.failure = note
    lanes = (run.config or {}).get("lanes")
    load = tally.load.block(run.extra.get("scenario") or {},
                            lanes["lanes"] if isinstance(lanes, dict) else None)
    model.load = Load.model_validate(load)
    if tally.lanes_seen or tally.has_prompt_targets:
        model.trees = tally.trees.block(tally.kept, int((run.config or {}).get("gpus") or 1))
        rules = run.extra.get("agentx")
        if rules:
            model.agentx = rules
    roles = {role: t.block(model.counts.sessions) for role, t in sorted(tally.roles.items())}
    if roles:
        model.roles = roles
    if tally.phases:
        model.phases = {p: _phase(tally.phases[p]) for p in sorted(tally.phases)}


def _phase(tally: RunTally) -> dict[str, Any]:
    """Counts, latencies and stages of one phase (e.g. accuracy vs performance)."""
    sub = summary_of(tally, RunInfo(benchmark="phase", complete=True, duration_s=0.0))
    return {k: sub[k] for k in PHASE_BLOCKS}


PHASE_BLOCKS = ("counts", "latency_ms", "stages_ms", "tool_calls")


