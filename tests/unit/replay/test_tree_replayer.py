"""#45 item 1: the tree replay is its own executor. A plain session replayer that knows nothing
of trees; a :class:`TreeReplayer` beside it that owns spawn, join, wait, the warm-up and the
lanes' per-tree state; the trace replayer handing each session to the one it needs; one
context-overflow decision made from one phrase list."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from time import perf_counter_ns
from typing import Any

import pytest

from agentic_bench.api import FakeTransport, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.replay.trace_replayer import TraceReplayer
from agentic_bench.trace.model import Session
from agentic_bench.transport.context_overflow import is_context_overflow
from agentic_bench.transport.request import RequestContext
from agentic_bench.transport.result import ChatResult, http_error_type

PACKAGE = Path(__file__).resolve().parents[3] / "agentic_bench"


def tree_session(branch_steps: int = 1) -> Session:
    """A root conversation that spawns a subagent, waits, joins it and answers."""
    branch = [{"kind": "llm", "output": {"content": f"found {i}"}} for i in range(branch_steps)]
    return Session.model_validate({
        "schema_version": "1", "session_id": "tree",
        "turns": [{"user": "go", "steps": [
            {"kind": "llm", "output": {"content": "plan"}},
            {"kind": "spawn", "branch": {"id": "sub", "name": "helper", "task": "look",
                                         "steps": branch}},
            {"kind": "wait", "duration_ms": 1.0, "reason": "tools"},
            {"kind": "join", "branches": ["sub"]},
            {"kind": "llm", "output": {"content": "done"}}]}]})


def replay(session: Session, transport: Any) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    replayer = TraceReplayer(transport, records.append, ReplayOptions(model="m"), 0)
    asyncio.run(replayer.run(SessionTicket(0, session, perf_counter_ns())))
    return records


def test_a_tree_is_replayed_with_its_spawn_wait_and_join() -> None:
    records = replay(tree_session(), FakeTransport(lambda body: "fine"))
    llm = [r for r in records if r.get("kind") == "llm"]
    assert sorted(str(r.get("branch")) for r in llm) == ["None", "None", "sub"]
    (branch,) = [r for r in records if r["type"] == "branch"]
    assert (branch["branch"], branch["name"], branch["spawned"], branch["parent"],
            branch["status"], branch["llm_calls"]) == ("sub", "helper", True, "", "ok", 1)
    (join,) = [r for r in records if r["type"] == "join"]
    assert join["conversation"] == "" and join["branches"] == ["sub"] and join["step"] == 3
    (wait,) = [r for r in records if r.get("kind") == "wait"]
    assert wait["reason"] == "tools" and wait["executed"] == "simulated"
    (session,) = [r for r in records if r["type"] == "session"]
    assert (session["status"], session["requests"], session["branches"]) == ("ok", 3, 1)
    # the merge call is sent after the join
    assert llm[-1]["t_sent_ns"] >= join["t_end_ns"]


def test_a_plain_session_is_not_a_tree() -> None:
    plain = Session.model_validate({"schema_version": "1", "session_id": "plain", "turns": [
        {"user": "hi", "steps": [{"kind": "llm", "output": {"content": "hello"}},
                                 {"kind": "tool", "name": "t", "result": "r"}]}]})
    records = replay(plain, FakeTransport(lambda body: "fine"))
    (session,) = [r for r in records if r["type"] == "session"]
    assert session["status"] == "ok" and "branches" not in session


OVERFLOWS = [
    "This model's maximum context length is 4096 tokens.",  # OpenAI, vLLM, llama-cpp-python
    "context_length_exceeded",  # OpenAI's code
    "the request exceeds the available context size, try increasing it",  # llama.cpp
    "prompt is too long: 210000 tokens > 200000 maximum",  # Anthropic (AIPerf's list)
    "Input is longer than the model's context length",  # SGLang / TGI
    "too many input tokens",
]


@pytest.mark.parametrize("message", OVERFLOWS)
def test_one_phrase_list_types_the_error_and_ends_the_conversation(message: str) -> None:
    """The transport's error type and the tree's end of a conversation read one list: every
    wording that is one is the other (the two lists used to disagree)."""
    assert http_error_type(message) == "context_overflow"
    assert is_context_overflow(ChatResult().fail("http_status", f"HTTP 400: {message}"))


def test_other_failures_are_no_overflow() -> None:
    assert http_error_type("HTTP 500: boom") == "http_status"
    assert not is_context_overflow(ChatResult().fail("http_status", "HTTP 500: boom"))
    ok = ChatResult()
    ok.error = "maximum context length"  # an ok result is never an overflow
    assert not is_context_overflow(ok)


class OverflowingTransport(FakeTransport):
    """Refuses every request of the subagent (its task is "look") as a server would."""

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext | None = None) -> ChatResult:
        if any(m.get("content") == "look" for m in body["messages"]):
            self.requests.append(body)
            excerpt = "prompt is too long: 210000 tokens > 200000 maximum"
            now = perf_counter_ns()
            return ChatResult(t_sent_ns=now, t_end_ns=now, http_status=400).fail(
                http_error_type(excerpt), f"HTTP 400: {excerpt}")
        return await super().chat(body, timeout_s, context=context)


def test_an_overflow_ends_the_subagent_conversation() -> None:
    transport = OverflowingTransport(lambda body: "fine")
    records = replay(tree_session(branch_steps=3), transport)
    sub = [r for r in records if r.get("kind") == "llm" and r.get("branch") == "sub"]
    assert len(sub) == 1  # nothing more is sent after the overflow
    assert sub[0]["error_type"] == "context_overflow" and sub[0]["context_overflow"] is True
    (branch,) = [r for r in records if r["type"] == "branch"]
    assert branch["status"] == "error"
    root = [r for r in records if r.get("kind") == "llm" and "branch" not in r]
    assert len(root) == 2 and all(r["status"] == "ok" for r in root)


def imports_of(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def names_in(path: Path) -> set[str]:
    """Every name and attribute the module's code uses (its text aside)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
    return out


def test_the_session_replayer_knows_nothing_of_trees() -> None:
    """``replay/session.py`` (and the cursor it steps) import no tree module and use no tree
    state: no tree, lane, warm-up, spawn or stop of a measured phase."""
    for module in ("session.py", "cursor.py"):
        path = PACKAGE / "replay" / module
        imported = imports_of(path)
        assert not {m for m in imported if m.startswith("agentic_bench.replay.tree")}, imported
        names = {n.lower() for n in names_in(path)}
        assert not {n for n in names if any(
            w in n for w in ("tree", "lane", "warm", "spawn", "stopped"))}, module
