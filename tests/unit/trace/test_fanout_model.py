"""Parallel steps in the trace model (#21 item 5): validation, the branch's own history, the
semantic checks inside branches, LLM-call counting, and the summary's fanout block."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from agentic_bench.metrics.fanout import fanout_block
from agentic_bench.trace.history import branch_session, messages_before
from agentic_bench.trace.model import ParallelStep, Session
from agentic_bench.trace.semantics import check_session

TOOLS = [{"type": "function", "function": {"name": "search", "parameters": {}}}]


def _session(steps: list[dict[str, Any]]) -> Session:
    return Session.model_validate({"schema_version": "1", "session_id": "s", "system": "SYS",
                                   "tools": TOOLS, "turns": [{"user": "U", "steps": steps}]})


BRANCH = {"name": "a", "task": "find x", "steps": [
    {"kind": "llm", "output": {"tool_calls": [{"id": "c1", "name": "search",
                                               "arguments": {"q": "x"}}]}},
    {"kind": "tool", "call_id": "c1", "name": "search", "result": "x is 1"},
    {"kind": "llm", "output": {"content": "x = 1"}}]}


def test_a_branch_has_its_own_history() -> None:
    session = _session([{"kind": "llm"}, {"kind": "parallel", "branches": [
        BRANCH, {**BRANCH, "name": "b", "system": "SUB", "task": "find y"}]},
        {"kind": "llm"}])
    step = session.turns[0].steps[1]
    assert isinstance(step, ParallelStep)
    first = branch_session(session, step.branches[0])
    assert messages_before(first, 0, 0) == [{"role": "system", "content": "SYS"},
                                            {"role": "user", "content": "find x"}]
    after_tool = messages_before(first, 0, 2)
    assert [m["role"] for m in after_tool] == ["system", "user", "assistant", "tool"]
    assert after_tool[-1] == {"role": "tool", "tool_call_id": "c1", "content": "x is 1"}
    second = branch_session(session, step.branches[1])
    assert messages_before(second, 0, 0)[0] == {"role": "system", "content": "SUB"}
    assert first.tools == session.tools
    # the parent's own history skips the fan-out (the merge step records what it needs)
    assert [m["role"] for m in messages_before(session, 0, 2)] == ["system", "user",
                                                                  "assistant"]
    assert session.llm_step_count() == 2 + 2 * 2


def test_invalid_fanouts_are_refused() -> None:
    with pytest.raises(ValidationError):
        _session([{"kind": "parallel", "branches": []}])
    with pytest.raises(ValidationError):
        _session([{"kind": "parallel", "branches": [{"task": "t", "steps": []}]}])
    # no task: a branch whose history derives from it is refused by the semantic check (a
    # branch whose prompts are recorded messages or blocks needs none)
    problems = dict(check_session(_session(
        [{"kind": "parallel", "branches": [{"steps": [{"kind": "llm"}]}]}])))
    assert "needs a task" in problems["turns[0].steps[0].branches[0].task"]


def test_semantic_checks_reach_into_branches() -> None:
    bad = {"task": "t", "steps": [
        {"kind": "llm", "output": {"tool_calls": [{"id": "c1", "name": "nope"}]}},
        {"kind": "tool", "call_id": "c9", "name": "search"}]}
    tools_only = {"task": "t", "steps": [{"kind": "tool", "name": "search"}]}
    problems = dict(check_session(_session([
        {"kind": "llm"}, {"kind": "parallel", "branches": [bad, tools_only]}])))
    base = "turns[0].steps[1].branches"
    assert "'nope' is not declared" in problems[f"{base}[0].steps[0].output.tool_calls[0].name"]
    assert "'c9' names no tool call" in problems[f"{base}[0].steps[1].call_id"]
    assert "a branch with steps needs at least one llm step" in problems[f"{base}[1].steps"]
    # a turn whose only LLM calls are in its branches is fine
    assert check_session(_session([{"kind": "parallel", "branches": [BRANCH]}])) == []


def test_fanout_block() -> None:
    assert fanout_block([{"type": "step"}]) is None

    def branch(path: str, ms: float, status: str = "ok") -> dict[str, Any]:
        return {"type": "branch", "session_id": "s", "turn": 0, "branch": path,
                "latency_ms": ms, "status": status}

    records = [branch("1.0", 10.0), branch("1.1", 40.0), branch("1.2", 25.0),
               branch("1.1/0.0", 5.0), branch("1.1/0.1", 9.0, "error"),
               {"type": "fanout", "session_id": "s", "turn": 0, "group": "1", "branches": 3,
                "status": "ok", "latency_ms": 42.0},
               {"type": "fanout", "session_id": "s", "turn": 0, "group": "1.1/0",
                "branches": 2, "status": "error", "latency_ms": 12.0}]
    block = fanout_block(records)
    assert block is not None
    assert (block["groups"], block["groups_ok"], block["branches"], block["branches_ok"]) == \
        (2, 1, 5, 4)
    assert block["join_ms"]["count"] == 1 and block["join_ms"]["max"] == 42.0
    assert block["spread_ms"]["count"] == 1 and block["spread_ms"]["max"] == 30.0  # 40 - 10
    assert block["width"]["mean"] == 2.5


def test_stats_and_the_prefix_ceiling_count_branch_calls() -> None:
    from agentic_bench.trace.history import llm_requests
    from agentic_bench.trace.stats import prefix_ceiling, trace_stats
    from agentic_bench.trace.synthetic import fanout_sessions

    sessions = fanout_sessions(2, fanout=3, depth=2)
    calls = [(ti, history) for s in sessions for ti, _, history in llm_requests(s)]
    assert len(calls) == sum(s.llm_step_count() for s in sessions) == 52
    # a branch's first call starts from its own task, not the coordinator's conversation
    tasks = [h[1]["content"] for _, h in calls if len(h) == 2]
    assert any(t.startswith("Subtask 0.1:") for t in tasks)
    stats = trace_stats(sessions)
    assert stats["requests"] == 52 and stats["input_tokens"]["count"] == 52
    assert stats["tool_step_ms"]["count"] == 2 * (3 + 9)  # every subagent calls the tool once
    ceiling = prefix_ceiling(sessions)
    assert ceiling["total_chars"] == stats["prefix_sharing"]["total_chars"]
