"""The ``claude-code`` importer: Claude Code session logs (a project folder with the three
subagent layouts: ``<session>/subagents/agent-*.jsonl``, a sibling ``agent-*.jsonl``, inline
``isSidechain`` entries) become session trees whose replay sends one request per API call the
session made, with the tool results in the following request's history and the subagents
replayed as spawned branches."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentic_bench.trace.history import llm_requests
from agentic_bench.trace.importers.claude_code import (
    detect,
    import_claude_code,
    profile_source,
)
from agentic_bench.trace.model import (
    JoinStep,
    LlmStep,
    Session,
    SpawnStep,
    ToolStep,
    WaitStep,
)
from agentic_bench.trace.semantics import check_session
from tests.conftest import import_and_replay, run_cli

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "importers"
PROJECT = DATA / "claude_code" / "project"
MAIN_A = PROJECT / "5f1c0c52-7a4e-4d2b-9a51-3c1e2f8a9b01.jsonl"
MAIN_C = PROJECT / "c7d8e9f0-2b3c-4d5e-9f60-718293a4b5c6.jsonl"


def sessions(path: Path) -> dict[str, Session]:
    return {s.session_id: s for s in import_claude_code(path)}


def api_calls(folder: Path) -> set[tuple[str, str]]:
    """Distinct (file, message id) of the real assistant lines of every transcript: counted
    on the raw files, as the acceptance asks."""
    found = set()
    for path in folder.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            if obj.get("type") == "assistant" and obj["message"]["model"] != "<synthetic>":
                found.add((path.name, obj["message"]["id"]))
    return found


def test_fixture_imports_into_trees() -> None:
    got = sessions(PROJECT)
    assert sorted(got) == ["5f1c0c52-7a4e-4d2b-9a51-3c1e2f8a9b01",
                           "9b2e4d10-1c3a-4f5e-8d7c-6a5b4c3d2e1f",
                           "c7d8e9f0-2b3c-4d5e-9f60-718293a4b5c6"]
    for s in got.values():
        assert check_session(s) == []
        assert s.metadata["source"] == "claude-code"
        assert s.metadata["sessionId"] == s.session_id and s.metadata["cwd"] == "/work/app"
    a = got["5f1c0c52-7a4e-4d2b-9a51-3c1e2f8a9b01"]
    assert a.metadata["version"] == "2.1.70" and a.metadata["model"] == \
        "claude-sonnet-4-5-20250929" and a.metadata["requests"] == 8
    assert [t.user for t in a.turns] == [
        "The parser test in tests/test_parse.py fails sometimes. Find out why and fix it.",
        "Thanks. Run the test again."]
    assert a.turns[1].think_time_s == pytest.approx(4.0)  # 10:00:26 reply → 10:00:30 prompt
    steps = a.turns[0].steps
    assert [s.kind for s in steps] == ["llm", "tool", "llm", "spawn", "tool", "join", "llm",
                                       "tool", "llm"]
    first = steps[0]
    assert isinstance(first, LlmStep)  # three lines (thinking, text, tool_use): one call
    assert first.output.content == "I'll look at the test first."
    assert [(c.id, c.name, c.arguments) for c in first.output.tool_calls] == [
        ("toolu_01Read", "Read", {"file_path": "/work/app/tests/test_parse.py"})]
    assert first.usage is not None and (first.usage.input_tokens, first.usage.output_tokens) \
        == (3 + 9000 + 1200, 85)  # the last line's usage, cache reads and writes included
    assert first.duration_ms == pytest.approx(3900) and first.start_s == 0
    read = steps[1]
    assert isinstance(read, ToolStep) and read.call_id == "toolu_01Read"
    assert read.duration_ms == pytest.approx(100) and "def test_parse" in read.result
    spawn, task, join = steps[3], steps[4], steps[5]
    assert isinstance(spawn, SpawnStep) and isinstance(join, JoinStep)
    assert isinstance(task, ToolStep) and task.call_id == "toolu_02Task"
    assert task.duration_ms == 0  # the parent's wait for it is the join
    assert join.branches == ["agent-a3f9c21"] == [spawn.branch.id]
    branch = spawn.branch
    assert branch.name == "Explore" and branch.task.startswith("Search the repository")
    assert [s.kind for s in branch.steps] == ["wait", "llm", "tool", "llm"]
    offset = branch.steps[0]
    assert isinstance(offset, WaitStep) and offset.duration_ms == pytest.approx(200)  # the
    # Task call's end → the subagent's prompt
    sub = branch.steps[1]
    assert isinstance(sub, LlmStep) and sub.start_s == pytest.approx(7.0)
    assert branch.metadata["tool_use_id"] == "toolu_02Task"
    assert {t["function"]["name"] for t in a.tools} == {"Read", "Task", "Edit", "Bash", "Grep"}


def test_inline_sidechain_and_sibling_agent_file_layouts() -> None:
    got = sessions(PROJECT)
    b = got["9b2e4d10-1c3a-4f5e-8d7c-6a5b4c3d2e1f"].turns[0].steps
    assert [s.kind for s in b] == ["llm", "spawn", "tool", "join", "llm"]
    spawn = b[1]
    assert isinstance(spawn, SpawnStep)  # CLI 1.0: linked by its prompt = the Task prompt
    assert spawn.branch.id == "sidechain-1" and spawn.branch.metadata["tool_use_id"] == \
        "toolu_B1Task"
    calls = [s for s in spawn.branch.steps if isinstance(s, LlmStep)]
    assert len(calls) == 2 and [c.name for c in calls[0].output.tool_calls] == ["Read", "Read"]
    c = got["c7d8e9f0-2b3c-4d5e-9f60-718293a4b5c6"].turns[0].steps
    assert [s.kind for s in c] == ["llm", "spawn", "tool", "join", "llm"]
    assert isinstance(c[1], SpawnStep) and c[1].branch.id == "agent-5d6e7f80"


def test_one_session_file_finds_its_subagents() -> None:
    a = sessions(MAIN_A)
    assert list(a) == [MAIN_A.stem] and a[MAIN_A.stem].llm_step_count() == 8
    c = sessions(MAIN_C)
    assert c[MAIN_C.stem].llm_step_count() == 3  # the sibling agent-5d6e7f80.jsonl


def test_replay_sends_one_request_per_api_call(sim_factory: Any, tmp_path: Path) -> None:
    bodies, run = import_and_replay("claude-code", PROJECT, tmp_path, sim_factory)
    assert len(bodies) == len(api_calls(PROJECT)) == 15
    # each tool result is in the history of the request that follows it
    texts = [[str(m.get("content")) for m in b["messages"]] for b in bodies]
    for result in ("def test_parse():", "Two callers pass a custom separator",
                   "cli.py:42: parse(line, ';')", "1 passed in 0.02s", "class EnvLoader:",
                   "The CI uses Python 3.11"):
        holding = [i for i, t in enumerate(texts) if any(result in x for x in t)]
        assert holding, result
        first = bodies[holding[0]]["messages"]
        tool = next(m for m in first if result in str(m.get("content")))
        assert tool["role"] == "tool" and first[-1] is tool  # the newest message sent
    records = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    branches = {r["branch"]: r for r in records if r.get("type") == "branch"}
    assert set(branches) == {"agent-a3f9c21", "sidechain-1", "agent-5d6e7f80"}
    assert all(r["spawned"] and r["status"] == "ok" for r in branches.values())
    assert [branches[b]["llm_calls"] for b in sorted(branches)] == [1, 2, 2]
    llm = [r for r in records if r.get("kind") == "llm"]
    assert Counter(r.get("branch", "") for r in llm) == {
        "": 10, "agent-a3f9c21": 2, "sidechain-1": 2, "agent-5d6e7f80": 1}
    joins = [r for r in records if r.get("type") == "join"]
    assert sorted(j["branches"][0] for j in joins) == sorted(branches)


def test_profile_source_counts_the_raw_rows() -> None:
    p = profile_source(PROJECT)
    assert (p.sessions, p.trees, p.requests, p.subagents, p.tool_calls) == (3, 3, 15, 3, 9)
    # (input + cache read + cache creation, output) of each call's last line, by hand
    assert sorted(zip(p.input_tokens, p.output_tokens, strict=True)) == sorted([
        (10203, 85), (10505, 140), (10904, 210), (11053, 40), (11182, 30), (11262, 8),
        (4003, 60), (4153, 45),  # session A and its Explore agent
        (1000, 50), (1200, 30), (400, 70), (700, 60),  # session B and its sidechain
        (8006, 70), (8124, 6), (6005, 20)])  # session C and agent-5d6e7f80
    # end of a call → the last user line before the next call, per transcript
    assert sorted(p.gaps_s) == pytest.approx(sorted([
        0.1, 13.2, 0.5, 4.0, 1.5, 0.7, 5.2, 0.3, 4.5]))
    assert p.notes


@pytest.mark.parametrize(("field", "old", "new"), [
    ("timestamp", '"timestamp":"2026-03-02T10:00:30.000Z"', '"timestamp":"yesterday"'),
    ("message.usage.output_tokens", '"output_tokens":40', '"output_tokens":-4'),
    ("message.content[0].name", '"name":"Bash",', '"name":"",'),
    ("message.content[0].tool_use_id", '"tool_use_id":"toolu_04Bash"', '"tool_use_id":7'),
])
def test_broken_field_is_located(tmp_path: Path, field: str, old: str, new: str) -> None:
    folder = tmp_path / "proj"
    shutil.copytree(PROJECT, folder)
    main = folder / MAIN_A.name
    lines = main.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if old in line)
    lines[at] = lines[at].replace(old, new, 1)
    main.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = run_cli("import", "claude-code", str(folder), "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert f"{main}:{at + 1}: {field}" in res.stderr
    assert not out.exists()


def test_detect_claims_its_files_only() -> None:
    for path in PROJECT.rglob("*.jsonl"):
        assert detect(path.read_text(encoding="utf-8")[:1 << 16]), path
    newer = '{"type":"permission-mode","permissionMode":"default","sessionId":"s"}\n' + \
        MAIN_A.read_text(encoding="utf-8").splitlines()[2]
    assert detect(newer)  # CLI 2.1.97+ opens with bookkeeping lines
    for path in DATA.glob("*.json*"):
        assert not detect(path.read_text(encoding="utf-8")[:1 << 16]), path
    assert not detect((ROOT / "traces" / "sample.jsonl").read_text(encoding="utf-8"))


def test_streamed_blocks_around_tool_results_are_one_call(tmp_path: Path) -> None:
    """Tool results written between the blocks of one streamed reply, and a line written
    twice: still one call, its two tool calls answered in order."""
    calls = [{"type": "tool_use", "id": f"toolu_{k}", "name": "Read", "input": {"k": k}}
             for k in (1, 2)]
    lines = [
        _line("user", 0, "read both", "u1"),
        _reply(1, "m1", [calls[0]], "a1"),
        _line("user", 1.5, [{"type": "tool_result", "tool_use_id": "toolu_1",
                             "content": [{"type": "text", "text": "one"}]}], "u2"),
        _reply(2, "m1", [calls[1]], "a2"),
        _reply(2, "m1", [calls[1]], "a2"),  # the same line again
        _line("user", 2.5, [{"type": "tool_result", "tool_use_id": "toolu_2",
                             "content": "two"}], "u3"),
        _reply(4, "m2", [{"type": "text", "text": "both read"}], "a3"),
    ]
    (tmp_path / "s.jsonl").write_text("\n".join(lines) + "\n")
    (session,) = import_claude_code(tmp_path)
    steps = session.turns[0].steps
    assert [s.kind for s in steps] == ["llm", "tool", "tool", "llm"]
    first = steps[0]
    assert isinstance(first, LlmStep) and [c.id for c in first.output.tool_calls] == [
        "toolu_1", "toolu_2"] and first.duration_ms == pytest.approx(2000)
    assert [(s.call_id, s.result) for s in steps[1:3] if isinstance(s, ToolStep)] == [
        ("toolu_1", "one"), ("toolu_2", "two")]
    assert profile_source(tmp_path).requests == 2 and profile_source(tmp_path).tool_calls == 2


# ---------------------------------------------------------------------------------------------
# Async agents and transcripts no tool call spawned


def _line(kind: str, t: float, content: Any, uuid: str, **extra: Any) -> str:
    stamp = f"2026-03-02T09:00:{t:06.3f}Z"
    msg = {"role": kind, "content": content, **extra.pop("msg", {})}
    return json.dumps({"type": kind, "uuid": uuid, "parentUuid": None, "sessionId": "s",
                       "timestamp": stamp, "isSidechain": False, "message": msg, **extra})


def _reply(t: float, mid: str, blocks: list[dict[str, Any]], uuid: str) -> str:
    return _line("assistant", t, blocks, uuid, requestId=f"req_{mid}", msg={
        "id": mid, "model": "m", "usage": {"input_tokens": 10, "output_tokens": 2}})


def test_background_agent_joins_after_its_notification_and_unlinked_by_time(
        tmp_path: Path) -> None:
    task = {"type": "tool_use", "id": "toolu_bg", "name": "Agent",
            "input": {"prompt": "look around", "run_in_background": True}}
    main = [
        _line("user", 0, "go", "u1"),
        _reply(1, "m1", [task], "a1"),
        _line("user", 1.2, [{"type": "tool_result", "tool_use_id": "toolu_bg",
                             "content": "Async agent launched successfully."}], "u2",
              toolUseResult={"isAsync": True, "status": "async_launched", "agentId": "bg1"}),
        _reply(2, "m2", [{"type": "text", "text": "waiting"}], "a2"),
        _line("user", 9, "<task-notification>\n<task-id>bg1</task-id>\n<status>completed"
              "</status>\n</task-notification>", "u3"),
        _reply(10, "m3", [{"type": "text", "text": "done"}], "a3"),
        _line("user", 20, "and now?", "u4"),
        _reply(21, "m4", [{"type": "text", "text": "nothing"}], "a4"),
    ]
    (tmp_path / "s.jsonl").write_text("\n".join(main) + "\n")
    subs = tmp_path / "s" / "subagents"
    subs.mkdir(parents=True)
    (subs / "agent-bg1.jsonl").write_text("\n".join([
        _line("user", 1.5, "look around", "b1", agentId="bg1", isSidechain=True),
        _reply(8, "b2", [{"type": "text", "text": "found"}], "b2")]) + "\n")
    (subs / "agent-acompact-1.jsonl").write_text("\n".join([  # no tool call spawned it
        _line("user", 12, "summarize the conversation", "c1"),
        _reply(15, "c2", [{"type": "text", "text": "summary"}], "c2")]) + "\n")
    (session,) = import_claude_code(tmp_path)
    kinds = [[s.kind for s in t.steps] for t in session.turns]
    assert kinds == [["llm", "spawn", "tool", "llm"], ["join", "llm", "spawn"],
                     ["join", "llm"]]
    bg = session.turns[0].steps[1]
    assert isinstance(bg, SpawnStep) and bg.branch.id == "agent-bg1"
    assert session.turns[1].steps[0] == JoinStep(branches=["agent-bg1"])
    late = session.turns[1].steps[2]  # after the call that ended before it began (m3)
    assert isinstance(late, SpawnStep) and late.branch.metadata["placed_by_time"] is True
    assert late.branch.id == "agent-acompact-1"
    assert session.turns[2].steps[0] == JoinStep(branches=["agent-acompact-1"])
    assert session.llm_step_count() == 6 == profile_source(tmp_path).requests


# ---------------------------------------------------------------------------------------------
# Property: generated sessions keep their requests, roles and token counts

TOOLS = ("Read", "Bash", "Grep")
request_spec = st.fixed_dictionaries({
    "text": st.one_of(st.none(), st.text(alphabet="abc xyz", min_size=1, max_size=12)),
    "thinking": st.booleans(), "tools": st.integers(0, 2), "split": st.booleans(),
    "usage": st.tuples(st.integers(0, 9000), st.integers(0, 9000), st.integers(0, 9000),
                       st.integers(1, 900))})
conversation_spec = st.lists(st.lists(request_spec, min_size=1, max_size=3), min_size=1,
                             max_size=3)


class Writer:
    """Writes generated conversations as Claude Code lines, on one clock."""

    def __init__(self, chained: bool) -> None:
        self.chained = chained  # parentUuid links (a sidechain found without them too)
        self.t = 0.0
        self.n = 0
        self.expect_roles: list[tuple[str, ...]] = []
        self.expect_tokens: list[tuple[int, int]] = []
        self.tool_calls = 0
        self.parent: dict[bool, str | None] = {}

    def line(self, out: list[str], kind: str, body: dict[str, Any], side: bool,
             agent: str | None, **extra: Any) -> None:
        self.n += 1
        self.t += 0.25
        parent, self.parent[side] = self.parent.get(side), f"u{self.n}"  # one chain each
        parent = parent if self.chained else None
        obj = {"type": kind, "uuid": f"u{self.n}", "parentUuid": parent, "sessionId": "gen",
               "timestamp": f"2026-03-02T08:{int(self.t // 60):02d}:{self.t % 60:06.3f}Z",
               "isSidechain": side, "message": body, **extra}
        if agent:
            obj["agentId"] = agent
        out.append(json.dumps(obj))

    def conversation(self, out: list[str], turns: list[list[dict[str, Any]]], side: bool,
                     agent: str | None, task: str | None, spawn: Any = None) -> None:
        history: list[str] = []
        for ti, turn in enumerate(turns):
            prompt = task if (task and ti == 0) else f"prompt {self.n}"
            self.line(out, "user", {"role": "user", "content": prompt}, side, agent)
            history.append("user")
            for ri, req in enumerate(turn):
                self.expect_roles.append(tuple(history))
                blocks: list[dict[str, Any]] = []
                if req["thinking"]:
                    blocks.append({"type": "thinking", "thinking": "hm", "signature": "x"})
                if req["text"] or not (req["thinking"] or req["tools"]):
                    blocks.append({"type": "text", "text": req["text"] or "ok"})
                calls = [{"type": "tool_use", "id": f"toolu_{self.n}_{k}",
                          "name": TOOLS[k % 3], "input": {"k": k}} for k in range(req["tools"])]
                spawning = spawn is not None and ti == 0 and ri == 0
                if spawning:
                    calls.append({"type": "tool_use", "id": "toolu_task", "name": "Task",
                                  "input": {"prompt": spawn[1], "description": "d"}})
                blocks += calls
                i, cr, cc, o = req["usage"]
                self.expect_tokens.append((i + cr + cc, o))
                self.tool_calls += len(calls)
                mid = f"msg_{self.n}"
                parts = [[b] for b in blocks] if req["split"] else [blocks]
                for pi, part in enumerate(parts):
                    last = pi == len(parts) - 1
                    usage = {"input_tokens": i, "cache_read_input_tokens": cr,
                             "cache_creation_input_tokens": cc, "output_tokens": o if last
                             else 1}
                    self.line(out, "assistant", {"role": "assistant", "id": mid, "model": "m",
                                                 "content": part, "usage": usage}, side, agent,
                              requestId="req_" + mid)
                history += ["assistant"] + ["tool"] * len(calls)
                if spawning:
                    spawn[0]()  # the subagent runs before the Task result comes back
                for call in calls:
                    extra = {"toolUseResult": {"agentId": "gen1"}} \
                        if call["name"] == "Task" and spawn[2] else {}
                    self.line(out, "user", {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": call["id"],
                         "content": f"result of {call['id']}"}]}, side, agent, **extra)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(main=conversation_spec, sub=st.one_of(st.none(), st.lists(request_spec, min_size=1,
                                                                 max_size=3)),
       layout=st.sampled_from(["subagents", "inline", "sibling"]), chained=st.booleans())
def test_generated_sessions_survive_the_import(main: list[list[dict[str, Any]]],
                                               sub: list[dict[str, Any]] | None,
                                               layout: str, chained: bool) -> None:
    w = Writer(chained)
    lines: list[str] = []
    side_lines: list[str] = []
    spawn = None
    if sub is not None:
        side = lines if layout == "inline" else side_lines
        agent = None if layout == "inline" else "gen1"
        spawn = (lambda: w.conversation(side, [sub], True, agent, "do the subtask"),
                 "do the subtask", layout != "inline")
    w.conversation(lines, main, False, None, None, spawn)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "gen.jsonl").write_text("\n".join(lines) + "\n")
        if side_lines:
            where = folder / "gen" / "subagents" if layout == "subagents" else folder
            where.mkdir(parents=True, exist_ok=True)
            (where / "agent-gen1.jsonl").write_text("\n".join(side_lines) + "\n")
        (session,) = import_claude_code(folder)
        prof = profile_source(folder)
    assert check_session(session) == []
    n = len(w.expect_tokens)
    assert session.llm_step_count() == n == prof.requests
    assert prof.subagents == (0 if sub is None else 1)
    assert prof.tool_calls == w.tool_calls == sum(
        len(step.output.tool_calls) for _, step, _ in llm_requests(session))
    got = [(s.usage.input_tokens, s.usage.output_tokens) for _, s, _ in llm_requests(session)
           if s.usage is not None]
    assert sorted(got) == sorted(w.expect_tokens) == sorted(
        zip(prof.input_tokens, prof.output_tokens, strict=True))
    roles = [tuple(m["role"] for m in history) for _, _, history in llm_requests(session)]
    assert sorted(roles) == sorted(w.expect_roles)
    spawns = [s for t in session.turns for s in t.steps if isinstance(s, SpawnStep)]
    joins = [s for t in session.turns for s in t.steps if isinstance(s, JoinStep)]
    assert len(spawns) == (0 if sub is None else 1)
    # the parent waits for the subagent before its next call, when there is one
    next_calls = n - 1 - (len(sub) if sub else 0)
    assert len(joins) == (1 if sub is not None and next_calls > 0 else 0)
