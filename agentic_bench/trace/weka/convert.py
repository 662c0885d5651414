"""A Weka trace as a session tree of the native format (docs/trace-format.md, "Agent trees").

* The top-level rows are the session's conversation. A row whose new input is a user message
  (:func:`~agentic_bench.trace.weka.timeline.new_input`) starts a turn; tool results continue
  the turn. The end-to-start gap before a turn's first row is the turn's think time; before any
  other row it is a ``wait`` step.
* Each row is an ``llm`` step whose prompt is given as blocks (``prompt.hash_ids``) and sizes
  (``usage``: ``in`` and ``out``), with its recorded start (``start_s``), ``api_time`` and
  ``ttft``.
* A subagent is a ``spawn`` step placed right after the parent row before it in the list
  (AIPerf ``weka_trace.py`` ``_reconstruct_serial``: "Group subagents by spawning parent turn");
  one with no parent row before it is dropped, as AIPerf drops it. Its branch first waits the
  recorded time from that parent row's end to its own first row (end-to-start, like every
  gap), then runs its rows as its own conversation (its own ``tool_tokens``/
  ``system_tokens``), with end-to-start gaps.
* Tiered joins: the first parent row after the subagent (in list order) that starts at or
  after the subagent's recorded end waits for it — a ``join`` step right before that row, after
  its gap; a subagent no later parent row reaches runs in the background (same source, the
  ``A joins parent[1] ... C is background`` rule). A subagent without rows is dropped.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agentic_bench.trace.model import (
    SCHEMA_VERSION,
    Branch,
    JoinStep,
    LlmStep,
    PromptBlocks,
    Session,
    SpawnStep,
    Step,
    TokenBlocks,
    Turn,
    Usage,
    WaitStep,
)
from agentic_bench.trace.weka.model import WekaRow, WekaSubagent, WekaTrace
from agentic_bench.trace.weka.timeline import (
    JOIN_EPSILON_S,
    SubagentTimes,
    bounds_s,
    gap_s,
    new_input,
    subagent_times,
)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000.0


def llm_step(row: WekaRow, start_s: float, previous: WekaRow | None) -> LlmStep:
    kind = new_input(row, previous)
    return LlmStep(
        prompt=PromptBlocks(hash_ids=list(row.hash_ids),
                            new_input=kind),  # type: ignore[arg-type]
        usage=Usage(input_tokens=row.input_tokens, output_tokens=row.output_tokens),
        duration_ms=_ms(row.api_time), ttft_ms=_ms(row.ttft), start_s=start_s)


def _wait(seconds: float, reason: str) -> list[Step]:
    return [WaitStep(duration_ms=seconds * 1000.0, reason=reason)] if seconds > 0 else []


def _branch(trace: WekaTrace, entry: WekaSubagent, times: SubagentTimes, bid: str,
            parent: WekaRow) -> Branch:
    # end-to-start from the parent request that spawned it (AIPerf counts from the spawn
    # marker and so loses the recorded time between that request's end and the spawn)
    steps: list[Step] = _wait(times.starts_s[0] - parent.end_s, "spawn offset")
    previous: WekaRow | None = None
    previous_start: float | None = None
    for row, start in zip(entry.requests, times.starts_s, strict=True):
        steps += _wait(gap_s(start, previous, previous_start), "gap")
        steps.append(llm_step(row, start, previous))
        previous, previous_start = row, start
    meta = {k: v for k, v in (("agent_id", entry.agent_id), ("status", entry.status),
                              ("duration_ms", entry.duration_ms),
                              ("total_tokens", entry.total_tokens),
                              ("tool_use_count", entry.tool_use_count),
                              ("models", entry.models),
                              ("time_convention", "relative" if times.relative else "absolute"),
                              ("recorded_end_s", times.end_s)) if v is not None}
    return Branch(id=bid, name=entry.subagent_type, steps=steps, metadata=meta,
                  token_blocks=TokenBlocks(block_size=trace.block_size,
                                           tool_tokens=entry.tool_tokens,
                                           system_tokens=entry.system_tokens))


def weka_session(trace: WekaTrace) -> Session:
    """The session tree of one Weka trace (see the module's rules)."""
    rows = [(i, e) for i, e in enumerate(trace.requests) if isinstance(e, WekaRow)]
    spawns: dict[int, list[SpawnStep]] = defaultdict(list)  # after top-level row index
    joins: dict[int, list[str]] = defaultdict(list)  # before top-level row index
    dropped: list[str] = []
    used_ids: set[str] = set()
    for i, entry in enumerate(trace.requests):
        if not isinstance(entry, WekaSubagent):
            continue
        before = [j for j, _ in rows if j < i]
        if not before or not entry.requests:
            dropped.append(entry.agent_id)
            continue
        times = subagent_times(entry)
        bid, n = entry.agent_id, 1
        while bid in used_ids:  # an id recorded twice stays two branches
            n += 1
            bid = f"{entry.agent_id}#{n}"
        used_ids.add(bid)
        parent = trace.requests[before[-1]]
        assert isinstance(parent, WekaRow)
        spawns[before[-1]].append(SpawnStep(branch=_branch(trace, entry, times, bid, parent),
                                            start_s=times.spawn_s))
        for j, row in rows:
            if j > i and row.t + JOIN_EPSILON_S >= times.end_s:
                joins[j].append(bid)
                break
    turns: list[Turn] = []
    steps: list[Step] = []
    think = 0.0
    previous: WekaRow | None = None
    for j, row in rows:
        gap = gap_s(row.t, previous, None if previous is None else previous.t)
        if previous is not None and new_input(row, previous) == "user":
            turns.append(Turn(user="", think_time_s=think, steps=steps))
            steps, think = [], gap
        else:
            steps += _wait(gap, "gap")
        if joins.get(j):
            steps.append(JoinStep(branches=joins[j]))
        steps.append(llm_step(row, row.t, previous))
        steps += spawns.get(j, [])
        previous = row
    turns.append(Turn(user="", think_time_s=think, steps=steps))
    first, last = bounds_s(trace)
    meta: dict[str, Any] = {"source": "weka", "models": trace.models,
                            "requests": len(trace.rows()), "span_s": last - first}
    if dropped:
        meta["dropped_subagents"] = dropped
    return Session(schema_version=SCHEMA_VERSION, session_id=trace.id, turns=turns,
                   token_blocks=TokenBlocks(block_size=trace.block_size,
                                            hash_id_scope=trace.hash_id_scope,
                                            tool_tokens=trace.tool_tokens,
                                            system_tokens=trace.system_tokens),
                   metadata=meta)


__all__ = ["llm_step", "weka_session"]
