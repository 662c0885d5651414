"""The benchmark through its workload: options, the closed loop, scoring and records."""

from __future__ import annotations

import asyncio

from agentic_bench.api import FakeTransport, run_offline

from tau2_airline_bench.data import load_tasks, task_by_id
from tau2_airline_bench.scoring import category
from tau2_airline_bench.workload import build_workload, select_tasks, settings_from

from .conftest import OracleModel, task_args


def test_task_selection() -> None:
    assert len(select_tasks(task_args())) == 50
    assert len(select_tasks(task_args("--split", "test"))) == 20
    quick = select_tasks(task_args("--quick"))
    assert [category(t) for t in quick] == ["write", "no_action"]
    assert [t["id"] for t in select_tasks(task_args("--tasks", "3, 7"))] == ["3", "7"]


def test_prompt_profile_follows_the_endpoint() -> None:
    assert settings_from(task_args()).profile == "compact"  # embedded is the default
    assert settings_from(task_args("--endpoint", "http://h:1/v1")).profile == "full"
    s = settings_from(task_args("--endpoint", "inproc", "--prompt", "full"))
    assert s.profile == "full" and s.max_tool_chars == 0
    q = settings_from(task_args("--quick"))
    assert q.max_steps == 2 and q.max_tokens == 256 and q.max_tool_chars == 1500


def test_gold_trajectory_through_the_loop_passes_every_task() -> None:
    """Gold actions sent as the model's tool calls, executed by the real loop, scored."""
    passed = []
    for task in load_tasks():
        workload = build_workload(task_args("--tasks", task["id"], "--endpoint", "x"))
        records, acc = asyncio.run(run_offline(workload, FakeTransport(OracleModel(task))))
        assert acc is not None
        passed.append(acc["correct"] == 1)
        tools = [r for r in records if r.get("kind") == "tool"]
        assert len(tools) == len(task["evaluation_criteria"]["actions"])
        assert not any(r["tool_error"] for r in tools), task["id"]
    assert all(passed) and len(passed) == 50


def test_records_and_accuracy_block() -> None:
    workload = build_workload(task_args("--tasks", "7", "--endpoint", "x"))
    records, acc = asyncio.run(run_offline(workload, FakeTransport(OracleModel(
        task_by_id("7")))))
    turns = [r for r in records if r.get("type") == "turn"]
    assert len(turns) == 4 and turns[0]["tool_calls"] == 5
    session = next(r for r in records if r.get("type") == "session")
    assert session["status"] == "ok" and session["turns"] == 4
    assert acc is not None and acc["headline"] == 1.0
    row = acc["tasks"][0]
    assert row["task_id"] == "7" and row["pass"] and len(row["turn_latency_ms"]) == 4
    assert acc["by_category"] == {"write": {"accuracy": 1.0, "correct": 1, "total": 1}}


def test_report_rescores_from_the_records() -> None:
    """``agentic-bench report`` recomputes the pass rate (#22 item 7), not the old figure."""
    from tau2_airline_bench.task import task

    workload = build_workload(task_args("--tasks", "7", "--endpoint", "x", "--accuracy-target",
                                        "0.5"))
    records, acc = asyncio.run(run_offline(workload, FakeTransport(OracleModel(
        task_by_id("7")))))
    assert acc is not None
    forged = {**acc, "headline": 0.0, "correct": 0}
    again = task.rescore(records, forged)
    assert again == acc  # every figure from the records; target/profile/user kept
    failed = [{**r, "correct": False} if r.get("type") == "sample" else r for r in records]
    assert task.rescore(failed, acc)["headline"] == 0.0  # type: ignore[index]


def test_agent_errors_end_the_conversation() -> None:
    class Broken(FakeTransport):
        async def chat(self, body, timeout_s=None, *, context=None):  # type: ignore[no-untyped-def]
            result = await super().chat(body, timeout_s)
            return result.fail("http_status", "boom")

    workload = build_workload(task_args("--tasks", "0", "--endpoint", "x"))
    records, _ = asyncio.run(run_offline(workload, Broken(lambda body: "")))
    sample = next(r for r in records if r.get("type") == "sample")
    assert sample["termination"] == "agent_error" and not sample["correct"]
    assert next(r for r in records if r.get("type") == "session")["status"] == "error"
