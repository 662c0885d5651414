"""The record vocabulary: what each line of ``records.jsonl`` carries, in one place.

Every record type is declared here with its required fields and their meaning; the turn and
session records are built by one function each (:func:`turn_record`, :func:`session_record`),
used by the trace replayer and by the task recorder alike, so the two cannot drift apart again
(the recorder's turn records used to lack ``tool_calls_scored`` / ``tool_calls_matched``). A run
record carries :data:`RECORD_VERSION`; readers refuse records from a newer version
(:func:`check_version`) and accept older folders (no version: 1). Records may carry more fields
than declared (a task's own), never fewer: :func:`missing_fields` is what tests check on every
kind of run and on the committed results.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from agentic_bench.units import NS_PER_MS

RECORD_VERSION = 2  # 2: run records carry ``options`` (the validated run options)

# record type → required fields (with what they mean); times are ns since the run's start
FIELDS: dict[str, dict[str, str]] = {
    "run": {"benchmark": "the workload's name", "config": "the run's options, redacted",
            "workload": "the benchmark's own options and identity"},
    "step": {"session_id": "the session (with its repeat suffix)", "turn": "turn index",
             "step": "step index in the turn or branch", "kind": "llm, tool, retrieve, ...",
             "status": "ok, error, retried, ..."},
    "turn": {"session_id": "", "session_index": "position in the run", "worker": "shard",
             "turn": "turn index", "status": "ok, error, timeout, cancelled",
             "t_start_ns": "turn start", "t_end_ns": "turn end", "latency_ms": "end - start",
             "llm_calls": "LLM calls in the turn", "tool_calls_scored": "calls compared",
             "tool_calls_matched": "calls that matched the recording"},
    "session": {"session_id": "", "source_session": "the trace's session id",
                "session_index": "", "worker": "", "category": "the session's category",
                "status": "ok, error, cancelled", "turns": "planned turns",
                "turns_ok": "turns that ended ok", "requests": "LLM calls",
                "errors": "failed calls", "t_scheduled_ns": "when it was due",
                "t_end_ns": "last step done", "latency_ms": "end - scheduled"},
    "sample": {"session_id": "the session it scores"},
    "segment": {"duration_s": "this segment's run time", "stop_reason": "why it ended",
                "issued": "sessions started"},
    "branch": {"session_id": "", "turn": "", "branch": "path: step.branch[/step.branch]",
               "status": "", "latency_ms": "first step -> last step", "llm_calls": ""},
    "fanout": {"session_id": "", "turn": "", "group": "path of the parallel step",
               "branches": "width", "status": "", "latency_ms": "fan-out -> join"},
    "join": {"session_id": "", "turn": "", "conversation": "who waited (\"\": the session)",
             "branches": "the spawned branches it waited for",
             "wait_ms": "parent reached the join -> the last of them ended"},
    "lanes": {"lanes": "--concurrency of a run over agent trees", "occupancy":
              "lane-time holding a tree / (lanes x measured time)",
              "unfilled": "lanes that never held a tree", "starved": "lanes that found no "
              "tree left", "measured_s": "the measured phase",
              "measured_start_spread_ms": "--workers/--ray-address: latest minus earliest "
              "worker's measured-phase start (wall clock)",
              "measured_start_ns": "the measured phase's start (run clock)",
              "tree_skipped_s": "--trace-idle-gap-cap: time its jumps moved trees' waits, "
              "summed over the trees", "tree_jumps": "how many such jumps",
              "trees_idle_capped": "trees it moved at least once"},
}


def turn_record(*, session_id: str, session_index: int, worker: int, turn: int, status: str,
                start_ns: int, end_ns: int, t0_ns: int, llm_calls: int,
                tool_calls_scored: int = 0, tool_calls_matched: int = 0,
                **extra: Any) -> dict[str, Any]:
    """A ``turn`` record (``extra`` fields are added as they are)."""
    return {"type": "turn", "session_id": session_id, "session_index": session_index,
            "worker": worker, "turn": turn, "status": status,
            "t_start_ns": start_ns - t0_ns, "t_end_ns": end_ns - t0_ns,
            "latency_ms": (end_ns - start_ns) / NS_PER_MS, "llm_calls": llm_calls,
            "tool_calls_scored": tool_calls_scored, "tool_calls_matched": tool_calls_matched,
            **extra}


def session_record(*, session_id: str, source_session: str, session_index: int, worker: int,
                   category: str | None, status: str, turns: int, turns_ok: int,
                   requests: int, errors: int, scheduled_ns: int, start_ns: int, end_ns: int,
                   t0_ns: int, **extra: Any) -> dict[str, Any]:
    """A ``session`` record: latency from ``start_ns`` (the replayer and the recorder both
    start at the scheduled instant) to ``end_ns``."""
    return {"type": "session", "session_id": session_id, "source_session": source_session,
            "session_index": session_index, "worker": worker, "category": category,
            "status": status, "turns": turns, "turns_ok": turns_ok, "requests": requests,
            "errors": errors, "t_scheduled_ns": scheduled_ns - t0_ns,
            "t_end_ns": end_ns - t0_ns, "latency_ms": (end_ns - start_ns) / NS_PER_MS,
            "wall_time": time.time(), **extra}


# fields declared from a record version on: (type, field) → (version, meaning)
SINCE: dict[tuple[str, str], tuple[int, str]] = {
    ("run", "options"): (2, "every run option as validated by the options schema "
                            "(agentic_bench/options/common.py), URLs redacted"),
}


def missing_fields(record: dict[str, Any]) -> list[str]:
    """The declared fields ``record`` lacks (an unknown type has none declared); a run record
    of an older version is not asked for the fields declared since."""
    kind = str(record.get("type"))
    version = int(record.get("record_version", 1)) if kind == "run" else RECORD_VERSION
    since = [f for (t, f), (v, _) in SINCE.items() if t == kind and version >= v]
    return [f for f in [*FIELDS.get(kind, {}), *since] if f not in record]


def check_version(records: Iterable[dict[str, Any]]) -> int:
    """The records' version (1 when the run record has none); ValueError when newer than
    this reader."""
    for record in records:
        if record.get("type") == "run":
            version = int(record.get("record_version", 1))
            if version > RECORD_VERSION:
                raise ValueError(f"records of version {version}, written by a newer "
                                 f"agentic-bench (this one reads up to {RECORD_VERSION})")
            return version
    return 1


__all__ = ["FIELDS", "RECORD_VERSION", "SINCE", "check_version", "missing_fields", "session_record",
           "turn_record"]
