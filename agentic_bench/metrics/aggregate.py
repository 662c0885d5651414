"""Records → the canonical ``summary.json`` dictionary (see docs/metrics.md)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentic_bench.metrics.declarations import LATENCY, latency_block
from agentic_bench.metrics.early_stop import failure_note
from agentic_bench.metrics.fanout import fanout_block
from agentic_bench.metrics.interactivity import interactivity
from agentic_bench.metrics.load_reached import load_reached
from agentic_bench.metrics.percentiles import describe
from agentic_bench.metrics.prefix_cache import prefix_cache
from agentic_bench.metrics.trees import trees_block
from agentic_bench.metrics.verdict import evaluate, session_meets_slos

SUMMARY_SCHEMA = "agentic-bench/summary"
SUMMARY_VERSION = 1
LATENCY_METRICS = tuple(decl.name for decl in LATENCY)


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
    """The summary's figures, recomputed from the run's records (live, resumed, sharded or
    ``report`` runs alike)."""
    records_list = records if isinstance(records, list) else list(records)
    records = records_list
    llm: list[dict[str, Any]] = []
    stages: dict[str, list[float]] = defaultdict(list)
    turns: list[dict[str, Any]] = []
    sessions: list[dict[str, Any]] = []
    stage_errors: Counter[str] = Counter()
    retries = 0
    warmup: Counter[str] = Counter()
    for rec in records:
        rtype = rec.get("type")
        if rec.get("warmup"):  # a lane's warm-up: recorded, never counted
            if rtype == "step" and rec.get("status") != "retried":
                warmup["requests"] += 1
                warmup["errors"] += rec.get("status") != "ok"
            continue
        if rtype == "step":
            if rec.get("status") == "retried":
                retries += 1
            elif rec.get("kind") == "llm":
                llm.append(rec)
                if rec.get("stage") and rec.get("status") == "ok":
                    stages[rec["stage"]].append(rec["request_ms"])
            elif rec.get("status") == "ok":
                stages[rec.get("stage") or rec["kind"]].append(rec["duration_ms"])
            else:
                stage_errors[rec.get("error_type") or "error"] += 1
        elif rtype == "turn":
            turns.append(rec)
        elif rtype == "session":
            sessions.append(rec)
    ok = [r for r in llm if r.get("status") == "ok"]
    errors = Counter((r.get("error_type") or "error") for r in llm if r.get("status") != "ok")
    errors.update(stage_errors)
    ok_turns = [t for t in turns if t.get("status") == "ok" and not t.get("partial")]
    ok_sessions = [s for s in sessions if s.get("status") == "ok"]
    whole_ok_sessions = [s for s in ok_sessions if not s.get("partial")]
    planned_turns = sum(s.get("turns", 0) for s in sessions)
    if run.planned_turns is not None:
        planned_turns = max(planned_turns, run.planned_turns)
    duration = max(run.duration_s, 1e-9)
    out_tokens = sum(r.get("output_tokens") or 0 for r in ok)

    summary: dict[str, Any] = {
        "schema": SUMMARY_SCHEMA,
        "version": SUMMARY_VERSION,
        "benchmark": run.benchmark,
        "complete": run.complete,
        "stop_reason": run.stop_reason,
        "duration_s": run.duration_s,
        "counts": {
            "sessions": len(sessions),
            "sessions_ok": len(ok_sessions),
            "turns": planned_turns,
            "turns_ok": len(ok_turns),
            "missing_turns": planned_turns - len(ok_turns),
            "requests": len(llm),
            "requests_ok": len(ok),
            "errors": sum(errors.values()),
            "errors_by_type": dict(sorted(errors.items())),
            "retries": retries,
            "unmatched_tool_calls": sum(t.get("unmatched_tool_calls", 0) for t in turns),
            "output_tokens": out_tokens,
        },
        # metrics/declarations.py; a turn or tree begun mid-trajectory is not a whole one
        "latency_ms": latency_block(ok, ok_turns, whole_ok_sessions),
        "stages_ms": {name: describe(values) for name, values in sorted(stages.items())},
        "throughput": {
            "requests_per_s": len(ok) / duration,
            "output_tokens_per_s": out_tokens / duration,
            "sessions_per_s": len(ok_sessions) / duration,
        },
        "goodput": {"sessions_per_s": (met := _goodput(ok_sessions, llm, ok_turns, run.slos))
                    / duration, "sessions": met},
        "interactivity": interactivity(llm, sessions),
        "tool_calls": _tool_call_rates(turns),
        "accuracy": run.accuracy,
        "harness": {
            "schedule_lag_ms": describe(r["schedule_lag_ms"] for r in llm
                                        if "schedule_lag_ms" in r),
            "token_source": dict(Counter(r.get("token_source", "none") for r in ok)),
            "truncated_record_lines": run.truncated_record_lines,
        },
        "slos": run.slos,
        "config": run.config,
        **run.extra,
    }
    cache = prefix_cache(llm, (run.extra.get("workload") or {}).get("prefix_ceiling"))
    if cache is not None:
        summary["prefix_cache"] = cache
    fanout = fanout_block(records)
    if fanout is not None:
        summary["fanout"] = fanout
    if warmup:
        summary["warmup"] = dict(warmup)
    note = failure_note(summary["counts"], records)
    if note:  # nothing succeeded: the cause, for the banner
        summary["failure"] = note
    lanes = (run.config or {}).get("lanes")
    summary["load"] = load_reached(sessions, llm, run.extra.get("scenario") or {},
                                   lanes["lanes"] if isinstance(lanes, dict) else None)
    if any(r.get("type") == "lanes" for r in records) or any(
            "prompt_tokens_target" in r for r in llm):
        summary["trees"] = trees_block(llm, sessions, records,
                                       int((run.config or {}).get("gpus") or 1))
        rules = run.extra.get("agentx")
        if rules:
            summary["agentx"] = rules
    roles = _roles(llm, len(sessions))
    if roles:
        summary["roles"] = roles
    phases = sorted({r["phase"] for r in records_list if r.get("phase")})
    if phases:
        summary["phases"] = {p: _phase(records_list, p) for p in phases}
    summary["constraints"] = evaluate(summary, run.slos)
    summary["result"] = "VALID" if all(c["ok"] for c in summary["constraints"]) else "INVALID"
    return summary


def _roles(llm: list[dict[str, Any]], sessions: int) -> dict[str, Any]:
    """LLM calls by the ``role`` their records name (e.g. rag-e2e's main and grade models):
    calls, errors, calls per session and the role's TTFT, TPOT and request latency."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in llm:
        if r.get("role"):
            by[str(r["role"])].append(r)
    out: dict[str, Any] = {}
    for role, calls in sorted(by.items()):
        ok = [r for r in calls if r.get("status") == "ok"]
        out[role] = {
            "requests": len(calls), "errors": len(calls) - len(ok),
            "requests_per_session": len(calls) / sessions if sessions else None,
            "ttft_ms": describe(r["ttft_ms"] for r in ok if "ttft_ms" in r),
            "tpot_ms": describe(r["tpot_ms"] for r in ok if "tpot_ms" in r),
            "request_ms": describe(r["request_ms"] for r in ok),
        }
    return out


def _phase(records: list[dict[str, Any]], phase: str) -> dict[str, Any]:
    """Counts, latencies and stages of one phase (e.g. accuracy vs performance)."""
    mine = [{k: v for k, v in r.items() if k != "phase"} for r in records
            if r.get("phase") == phase]
    sub = summarize(mine,
                    RunInfo(benchmark=phase, complete=True, duration_s=0.0))
    return {k: sub[k] for k in ("counts", "latency_ms", "stages_ms", "tool_calls")}


def _goodput(ok_sessions: list[dict[str, Any]], llm: list[dict[str, Any]],
             turns: list[dict[str, Any]], slos: dict[str, float]) -> int:
    by_session: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in llm:
        by_session[r["session_id"]].append(r)
    turns_by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in turns:
        turns_by[t["session_id"]].append(t)
    return sum(
        1 for s in ok_sessions
        if session_meets_slos(by_session[s["session_id"]], turns_by[s["session_id"]], slos)
    )


def _tool_call_rates(turns: list[dict[str, Any]]) -> dict[str, Any]:
    scored = sum(t.get("tool_calls_scored", 0) for t in turns)
    matched = sum(t.get("tool_calls_matched", 0) for t in turns)
    return {"scored": scored, "matched": matched,
            "match_rate": matched / scored if scored else None}
