"""A Weka trace as a session tree: turns, end-to-start gaps, subagents spawned after the parent
request before them, and tiered joins — each rule transcribed from AIPerf 0.13's reading
(src/aiperf/dataset/loader/weka_trace.py) or the format's sources, cited per test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentic_bench.trace.model import JoinStep, LlmStep, SpawnStep, WaitStep
from agentic_bench.trace.semantics import check_session
from agentic_bench.trace.weka import WekaCorpus, WekaTrace, weka_session
from agentic_bench.trace.weka.filter import drop_over_context
from agentic_bench.trace.weka.timeline import gap_s, new_input, subagent_times

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"


def row(t: float, api: float | None = 0.5, **over: Any) -> dict[str, Any]:
    return {"t": t, "type": "n", "model": "m", "in": 64, "out": 8, "hash_ids": [1],
            "api_time": api, **over}


def sub(agent: str, t: float, end: float, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"t": t, "type": "subagent", "agent_id": agent, "subagent_type": "Explore",
            "duration_ms": (end - t) * 1000, "status": "completed", "models": ["m"],
            "requests": rows}


def tree(requests: list[dict[str, Any]]) -> WekaTrace:
    return WekaTrace.model_validate({"id": "x", "models": ["m"], "block_size": 64,
                                     "hash_id_scope": "local", "requests": requests})


def flat(session: Any) -> list[Any]:
    return [step for turn in session.turns for step in turn.steps]


def joins(session: Any) -> dict[float, list[str]]:
    """Recorded start of each parent request → the subagents it waits for."""
    out: dict[float, list[str]] = {}
    pending: list[str] = []
    for step in flat(session):
        if isinstance(step, JoinStep):
            pending += step.branches
        elif isinstance(step, LlmStep):
            out[step.start_s or 0.0], pending = pending, []
    return out


def test_tiered_joins_as_aiperf_documents_them() -> None:
    """weka_trace.py _reconstruct_serial, the comment's examples: A joins parent[1] because
    parent[1].t >= A.end; B joins parent[2] because parent[1].t < B.end <= parent[2].t; C is
    background because no later parent turn reaches C.end; equal times join."""
    session = weka_session(tree([
        row(0.0), sub("A", 0.5, 6.0, [row(0.5)]), sub("B", 0.5, 12.5, [row(0.5)]),
        sub("C", 0.5, 24.0, [row(0.5)]), row(6.0), row(20.0)]))
    assert joins(session) == {0.0: [], 6.0: ["A"], 20.0: ["B"]}
    spawned = [s.branch.id for s in flat(session) if isinstance(s, SpawnStep)]
    assert spawned == ["A", "B", "C"]  # C runs in the background: nothing joins it
    shared = weka_session(tree([row(0.0), sub("A", 0.5, 4.0, [row(0.5)]),
                                sub("B", 0.5, 5.0, [row(0.5)]), row(6.0)]))
    assert joins(shared)[6.0] == ["A", "B"]  # one join waits for both
    equal = weka_session(tree([row(0.0), sub("A", 0.5, 10.0, [row(0.5)]), row(10.0)]))
    assert joins(equal)[10.0] == ["A"]
    assert check_session(session) == []


def test_a_subagent_needs_a_parent_request_before_it() -> None:
    """weka_trace.py: "subagent A marker t=1 appears before the first retained parent turn
    ... A is dropped because no parent turn can spawn it"; an entry with no rows is dropped."""
    session = weka_session(tree([sub("A", 1.0, 2.0, [row(1.0)]), row(5.0),
                                 {**sub("B", 5.0, 6.0, []), "requests": []}, row(7.0)]))
    assert not any(isinstance(s, SpawnStep) for s in flat(session))
    assert session.metadata["dropped_subagents"] == ["A", "B"]


def test_gaps_are_end_to_start_and_turns_start_at_user_input() -> None:
    """weka_trace.py _end_to_start_delay_ms: the wait before a request is t_k − (t_{k−1} +
    api_time_{k−1}), never below 0; _classify_turn_input: the row's input_types when given,
    else the previous row's stop (tool_use → a tool result)."""
    session = weka_session(tree([
        row(0.0, input_types=["text"], stop="tool_use"), row(2.0, input_types=["tool_result"]),
        row(2.2, api=1.0, stop="end_turn"), row(10.0, input_types=["text"]),
        row(10.5, api=None, stop="tool_use"), row(10.5)]))
    assert len(session.turns) == 2
    first, second = session.turns
    waits = [s.duration_ms for s in first.steps if isinstance(s, WaitStep)]
    assert waits == pytest.approx([1500.0])  # 2.0 − (0 + 0.5); 2.2 − 2.5 < 0 → no wait
    assert second.think_time_s == pytest.approx(10.0 - 3.2)
    assert [s.prompt.new_input for s in flat(session) if isinstance(s, LlmStep)] == [
        "user", "tool_result", None, "user", None, "tool_result"]  # None: nothing says
    r = tree([row(0.0, stop="end_turn"), row(1.0)]).requests
    assert new_input(r[1], r[0]) == "user" and gap_s(1.0, r[0], 0.0) == pytest.approx(0.5)


def test_subagent_time_conventions() -> None:
    """Absolute (the SemiAnalysis corpora; InferenceX proxy_to_weka.py lines 315-333: t = first
    row's start, duration = first start → last end) and relative (kv-cache-tester, whose
    generator writes t = when the result reached the parent); a row before the entry's t makes
    the entry relative (AIPerf _subagent_request_absolute_t's test)."""
    absolute = subagent_times(tree([row(0.0), sub("A", 3.0, 7.0, [row(3.0), row(5.0)])])
                              .requests[1])  # type: ignore[arg-type]
    assert (absolute.relative, absolute.spawn_s, absolute.end_s) == (False, 3.0, 7.0)
    rel = WekaCorpus(DATA / "relative_subagent.json").trace(0)
    times = subagent_times(rel.requests[1])  # type: ignore[arg-type]
    assert times.relative and times.spawn_s == pytest.approx(0.5) and times.end_s == 2.5
    assert times.starts_s == pytest.approx((0.5, 1.5))
    session = weka_session(rel)
    assert joins(session)[2.6] == ["agent_001"]
    spawn = next(s for s in flat(session) if isinstance(s, SpawnStep))
    # the branch first waits from the spawning request's end (0.03) to its first row (0.5)
    assert isinstance(spawn.branch.steps[0], WaitStep)
    assert spawn.branch.steps[0].duration_ms == pytest.approx(470.0)


def test_the_fixture_tree() -> None:
    tree_a = WekaCorpus(DATA / "corpus.jsonl").trace(0)
    session = weka_session(tree_a)
    assert check_session(session) == []
    assert session.llm_step_count() == 11 and len(session.turns) == 2
    assert joins(session) == {0.0: [], 0.2: [], 0.8: ["agent_B"], 1.0: ["agent_C"], 1.5: []}
    assert session.token_blocks is not None and session.token_blocks.tool_tokens == 100
    branch = next(s.branch for s in flat(session) if isinstance(s, SpawnStep))
    assert branch.token_blocks is not None and branch.token_blocks.system_tokens == 40


def test_max_context_drops_requests_not_traces() -> None:
    """InferenceX build_weka_hf_dataset.py (lines 450-543): a request with in + out over the cap
    goes; a subagent only when none of its requests is left; surviving times start at 0."""
    big = {"in": 900, "hash_ids": list(range(1, 15))}
    trace = tree([row(0.0, **big), row(1.0), sub("A", 1.6, 3.0, [row(1.6, **big)]),
                  sub("B", 1.6, 3.0, [row(1.6, **big), row(2.0)]), row(4.0)])
    kept = drop_over_context(trace, 800)
    kinds = [(e.type, e.t) for e in kept.requests]
    assert kinds == [("n", 0.0), ("subagent", pytest.approx(0.6)), ("n", 3.0)]
    assert [r.t for r in kept.requests[1].requests] == [pytest.approx(1.0)]  # type: ignore[union-attr]
