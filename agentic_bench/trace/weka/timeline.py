"""Times in a Weka trace: where each request and subagent sits on the tree's clock.

Top-level ``t`` is seconds from the trace's first request. Subagent entries come in two
conventions, told apart by their rows' ``t``:

* **absolute** (the SemiAnalysis corpora, InferenceX ``utils/agentic/datasets/proxy_to_weka.py``
  lines 315-333): an entry's ``t`` is its first row's start, its rows' ``t`` are on the tree's
  clock, and ``duration_ms`` spans first start → last end. Spawn = ``t``, end = ``t +
  duration``.
* **relative** (callanjfox/kv-cache-tester's traces, written by agentic-coding-analysis
  ``build_minimal_traces.py``): rows' ``t`` count from the subagent's own first request, and
  the entry's ``t`` is when its result reached the parent — its *end* (measured over the 710
  published traces: ``t − duration`` falls 0.1–1 s after the preceding parent request ends in
  57 of 59 completed subagents). Spawn = ``t − duration`` (an entry without a duration, e.g.
  ``async_launched``, spawns at ``t``), end = ``t``.

An entry is relative when its first row starts before the entry's ``t`` (AIPerf 0.13 uses the
same test, ``weka_trace.py`` ``_subagent_request_absolute_t``, but then takes ``t`` as the spawn
in both conventions; see docs/agentx.md for what that changes).

Gaps are end-to-start (AIPerf ``weka_trace.py`` ``_end_to_start_delay_ms``): the wait before a
request is its start minus the previous request's end (start + ``api_time``) in the same
conversation, never below 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentic_bench.trace.weka.model import WekaRow, WekaSubagent, WekaTrace

JOIN_EPSILON_S = 1e-6  # AIPerf weka_trace.py _JOIN_EPSILON_SECONDS: equal times join


@dataclass(frozen=True)
class SubagentTimes:
    relative: bool
    spawn_s: float
    end_s: float
    starts_s: tuple[float, ...]  # each row's start on the tree's clock


def subagent_times(entry: WekaSubagent) -> SubagentTimes:
    rows = entry.requests
    relative = bool(rows) and rows[0].t + JOIN_EPSILON_S < entry.t
    duration_s = entry.duration_ms / 1000.0 if entry.duration_ms is not None else None
    if relative:
        spawn = entry.t - duration_s if duration_s is not None else entry.t
        spawn = max(spawn, 0.0)
        starts = tuple(spawn + row.t for row in rows)
        last_end = max((s + (r.api_time or 0.0) for s, r in zip(starts, rows, strict=True)),
                       default=spawn)
        end = entry.t if duration_s is not None else last_end
    else:
        spawn = entry.t
        starts = tuple(row.t for row in rows)
        last_end = max((s + (r.api_time or 0.0) for s, r in zip(starts, rows, strict=True)),
                       default=spawn)
        end = entry.t + duration_s if duration_s is not None else last_end
    return SubagentTimes(relative, spawn, max(end, spawn), starts)


def gap_s(start_s: float, previous: WekaRow | None, previous_start_s: float | None) -> float:
    """End-to-start wait before a request (0 for a conversation's first)."""
    if previous is None or previous_start_s is None:
        return 0.0
    return max(0.0, start_s - (previous_start_s + (previous.api_time or 0.0)))


def new_input(row: WekaRow, previous: WekaRow | None) -> str | None:
    """What the new part of a request is, as AIPerf classifies it (``weka_trace.py``
    ``_classify_turn_input``): the row's own ``input_types`` when given (``tool_result`` in
    them: a tool result, else a user message), otherwise the previous row's ``stop``
    (``tool_use``: a tool result; any other recorded stop: a user message); None when neither
    says."""
    if row.input_types:
        return "tool_result" if "tool_result" in row.input_types else "user"
    if previous is not None and previous.stop:
        return "tool_result" if previous.stop == "tool_use" else "user"
    return None


def bounds_s(trace: WekaTrace) -> tuple[float, float]:
    """(first, last) request start on the tree's clock, subagents' rows included (AIPerf
    ``trajectory_source.py`` ``_trace_time_bounds``: the mid-trajectory start is drawn between
    them)."""
    starts = [row.t for row in trace.requests if isinstance(row, WekaRow)]
    for entry in trace.requests:
        if isinstance(entry, WekaSubagent):
            starts.extend(subagent_times(entry).starts_s)
    return (min(starts), max(starts)) if starts else (0.0, 0.0)


__all__ = ["JOIN_EPSILON_S", "SubagentTimes", "bounds_s", "gap_s", "new_input",
           "subagent_times"]
