"""rag-agent episodes on a scripted model (FakeTransport): the loop, its records, the stage sum,
the step limit, a failed LLM call, and the options a run refuses."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest
from rag_agent_support import scripted_turn, task_args

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.rag_agent.task import task
from agentic_bench.testing import FakeTransport, run_offline
from agentic_bench.transport.result import ChatResult


def workload(frames_file: Path, tmp_path: Path, *argv: str) -> Any:
    return task.workload(task_args("--frames", str(frames_file), "--cache-dir",
                                   str(tmp_path / "cache"), "--kind", "flat", "--quiet",
                                   *argv))


def by_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("type") == kind]


def assert_stage_sums(records: list[dict[str, Any]]) -> None:
    """Each session's tool steps add up to its tool wait, by stage and in all."""
    for session in by_type(records, "session"):
        steps = [r for r in by_type(records, "step") if r["session_id"] == session["session_id"]
                 and r["kind"] == "tool"]
        total = math.fsum(r["duration_ms"] for r in steps)
        assert math.isclose(total, session["tool_wait_ms"], rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(math.fsum(session["tool_stages_ms"].values()),
                            session["tool_wait_ms"], rel_tol=1e-9, abs_tol=1e-9)
        for stage, ms in session["tool_stages_ms"].items():
            assert math.isclose(ms, math.fsum(r["duration_ms"] for r in steps
                                              if r["stage"] == stage), abs_tol=1e-9)


def test_the_scripted_agent_answers_both_questions(frames_file: Path, tmp_path: Path,
                                                   fake_embedder: None) -> None:
    wl = workload(frames_file, tmp_path, "--results-k", "2", "--search-k", "4")
    assert wl.name == "rag-agent" and wl.tool_routing and wl.source.size == 2
    assert wl.info["agent"]["tools"] == ["search", "open"] and wl.info["index"]["chunks"] == 6
    transport = FakeTransport(scripted_turn)
    records, acc = asyncio.run(run_offline(wl, transport))
    assert acc is not None and acc["headline"] == acc["exact_match"] == 1.0
    assert acc["stops"] == {"answer": 2} and acc["searches_per_question"]["mean"] == 1.0
    llm = [r for r in by_type(records, "step") if r["kind"] == "llm"]
    assert len(llm) == 6 and {r["stage"] for r in llm} == {"agent"}
    tools = [r for r in by_type(records, "step") if r["kind"] == "tool"]
    assert [r["stage"] for r in tools[:4]] == ["embed", "search", "rerank", "open"]
    assert {r["tool"] for r in tools} == {"search", "open"}
    assert all(r["executed"] == "real" for r in tools)
    assert [r["step"] for r in by_type(records, "step")
            if r["session_id"] == llm[0]["session_id"]] == list(range(7))
    # the third request carries the whole history: question, search, result, open, page
    third = transport.requests[2]["messages"]
    assert [m["role"] for m in third] == ["system", "user", "assistant", "tool", "assistant",
                                          "tool"]
    assert third[3]["tool_call_id"] == third[2]["tool_calls"][0]["id"]
    assert transport.requests[0]["tools"][0]["function"]["name"] == "search"
    assert_stage_sums(records)
    turns = by_type(records, "turn")
    assert all(t["status"] == "ok" and t["tool_wait_ms"] > 0 for t in turns)
    assert all(s["status"] == "ok" and s["agent_tool_calls"] == 2
               for s in by_type(records, "session"))


def test_a_model_that_never_answers_stops_at_max_steps(frames_file: Path, tmp_path: Path,
                                                       fake_embedder: None) -> None:
    wl = workload(frames_file, tmp_path, "--max-steps", "3")
    always = FakeTransport(lambda body: {"tool_calls": [
        {"name": "search", "arguments": {"query": "again"}},
        {"name": "nonsense", "arguments": "{"}]})
    records, acc = asyncio.run(run_offline(wl, always))
    assert acc is not None and acc["answered"] == 0 and acc["stops"] == {"max_steps": 2}
    assert acc["headline"] == 0.0 and acc["tool_errors"] == 6
    assert len(always.requests) == 6  # 3 LLM calls per question
    assert {r["stage"] for r in by_type(records, "step") if r["kind"] == "tool"} == {
        "embed", "search", "rerank", "dispatch"}
    assert_stage_sums(records)


class FailingTransport(FakeTransport):
    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: Any = None) -> ChatResult:
        self.requests.append(body)
        return ChatResult(t_sent_ns=1, t_end_ns=2).fail("http_status", "HTTP 500",
                                                        status="error")


def test_a_failed_llm_call_ends_the_question_as_an_error(frames_file: Path, tmp_path: Path,
                                                         fake_embedder: None) -> None:
    wl = workload(frames_file, tmp_path)
    records, acc = asyncio.run(run_offline(wl, FailingTransport(lambda body: "")))
    assert acc is not None and acc["answered"] == 0 and acc["stops"] == {"error": 2}
    assert all(s["status"] == "error" and s["tool_wait_ms"] == 0
               for s in by_type(records, "session"))
    assert all("HTTP 500" in s["error"] for s in by_type(records, "sample"))


@pytest.mark.parametrize(("argv", "message"), [
    (("--max-steps", "0"), "--max-steps must be at least 1"),
    (("--results-k", "5", "--search-k", "4"), "--results-k 5 is more than --search-k 4"),
    (("--reranker", "cross-encoder"), "--reranker-model"),
    (("--accuracy-metric", "judge"), "--judge-endpoint"),
    (("--distractors", "-1"), "--distractors must be >= 0"),
])
def test_options_no_run_could_use_are_refused(frames_file: Path, tmp_path: Path,
                                              fake_embedder: None, argv: tuple[str, ...],
                                              message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("-", r"\-")):
        workload(frames_file, tmp_path, *argv)
