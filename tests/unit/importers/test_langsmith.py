"""LangSmith run exports → session trees: the fixture's mapping (subagents under tool runs as
spawn/join, a RAG chat with two turns), a replay on the simulator sending one request per llm
run, the source profile counted by hand, located errors, detection, the subagent rules
(flagged agents inside wrappers, an LLM call made by a tool, background agents), and generated
exports whose requests, roles and token counts survive the import."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentic_bench.trace.history import llm_requests
from agentic_bench.trace.importers import detect_format, import_file
from agentic_bench.trace.importers.langsmith import (
    detect,
    import_langsmith,
    profile_source,
    read_runs,
    subagents,
)
from agentic_bench.trace.model import JoinStep, SpawnStep
from agentic_bench.trace.semantics import check_session
from tests.conftest import import_and_replay, run_cli

DATA = Path(__file__).resolve().parents[2] / "data" / "importers"
FIXTURE = DATA / "langsmith_runs.jsonl"
T0 = datetime(2025, 1, 1, tzinfo=UTC)


def test_fixture_imports_into_trees() -> None:
    plan, rag = import_file("langsmith", FIXTURE)  # the trace without an llm run is skipped
    for s in (plan, rag):
        assert check_session(s) == [] and s.metadata["source"] == "langsmith"
        assert s.session_id == s.metadata["trace_id"] and s.metadata["model"] == "gpt-4o-mini"
    assert plan.metadata["thread_id"] == "thread-lisbon"
    assert plan.system == "You plan trips. Delegate research with the research tool."
    assert plan.tool_names() == {"research", "web_search"}
    (turn,) = plan.turns
    assert turn.user == "Plan a 2-day trip to Lisbon."
    kinds = [x.kind for x in turn.steps]
    assert kinds == ["llm", "spawn", "spawn", "join", "tool", "join", "tool", "wait", "llm"]
    first = turn.steps[0]
    assert first.usage.input_tokens == 320 and first.usage.output_tokens == 45
    assert (first.duration_ms, first.ttft_ms) == (1200.0, 250.0)  # new_token at +0.25 s
    assert first.params == {"max_tokens": 512, "temperature": 0.2}
    a, b = turn.steps[1], turn.steps[2]
    assert isinstance(a, SpawnStep) and isinstance(b, SpawnStep)
    assert (a.branch.id, b.branch.id) == ("researcher", "researcher#2")
    assert a.branch.task == "Research: food in Lisbon" and a.start_s == pytest.approx(1.4)
    assert a.branch.system == "You research travel topics. Answer in one line."
    assert [x.kind for x in a.branch.steps] == ["llm", "tool", "wait", "llm"]
    assert a.branch.steps[1].call_id == "call_w1"
    j1, t1, j2, t2, wait = turn.steps[3:8]
    assert isinstance(j1, JoinStep) and j1.branches == ["researcher"]
    assert isinstance(j2, JoinStep) and j2.branches == ["researcher#2"]
    assert (t1.call_id, t1.arguments, t1.result) == ("call_r1", {"topic": "food"},
                                                     "Food: pastéis de nata, bifana.")
    # the tool run's own time outside its subagent: 2.65 s - 2.5 s
    assert t1.duration_ms == pytest.approx(150.0)
    assert (t2.call_id, t2.duration_ms) == ("call_r2", pytest.approx(160.0))
    assert wait.duration_ms == pytest.approx(440.0)  # 5.0 - 4.4 (join) - 0.16 (tool)
    assert all(x.messages is None for _, x, _ in llm_requests(plan))  # derivable: dropped
    assert plan.llm_step_count() == 6
    assert [t.user for t in rag.turns] == ["What is the refund window?", "And for sale items?"]
    assert rag.turns[1].think_time_s == pytest.approx(18.9)
    retrieve, llm = rag.turns[0].steps
    assert retrieve.kind == "retrieve" and retrieve.documents[0].title == "Refund policy"
    assert llm.params == {"max_tokens": 256, "temperature": 0}
    assert llm.messages is not None  # the recorded request had no Context message
    assert rag.start_offset_s == pytest.approx(60.0)


def test_replay_sends_one_request_per_llm_run(sim_factory: Any, tmp_path: Path) -> None:
    bodies, run = import_and_replay("auto", FIXTURE, tmp_path, sim_factory)
    assert len(bodies) == profile_source(FIXTURE).requests == 8
    roles = Counter(tuple(m["role"] for m in b["messages"]) for b in bodies)
    assert roles == Counter({("system", "user"): 4, ("system", "user", "assistant", "tool"): 2,
                             ("system", "user", "assistant", "tool", "tool"): 1,
                             ("system", "user", "assistant", "user"): 1})
    merge = next(b["messages"] for b in bodies if len(b["messages"]) == 5)
    assert [m.get("tool_call_id") for m in merge[-2:]] == ["call_r1", "call_r2"]
    records = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    branches = [r for r in records if r.get("type") == "branch"]
    assert sorted(r["branch"] for r in branches) == ["researcher", "researcher#2"]
    assert all(r["llm_calls"] == 2 and r["spawned"] for r in branches)


def test_profile_source_counts_the_raw_runs() -> None:
    p = profile_source(FIXTURE)
    assert (p.sessions, p.trees, p.requests, p.subagents, p.tool_calls) == (2, 1, 8, 2, 4)
    assert sorted(zip(p.input_tokens, p.output_tokens, strict=True)) == sorted([
        (320, 45), (150, 20), (210, 15), (150, 22), (230, 18), (420, 120), (95, 6), (120, 8)])
    # an llm run's end → the next llm run's start, per agent
    assert sorted(p.gaps_s) == pytest.approx([0.9, 1.1, 3.7, 18.9])
    assert any("without an llm run" in n for n in p.notes)


@pytest.mark.parametrize(("field", "line_has", "old", "new"), [
    ("start_time", '"name": "web_search"', '"start_time": "2025-11-04T12:00:02.150000"',
     '"start_time": "yesterday"'),
    ("prompt_tokens", '"name": "rag_chat"', '"status": "success"',
     '"status": "success", "prompt_tokens": -3'),
    ("name", '"run_type": "tool"', '"name": "research", "run_type"', '"name": "", "run_type"'),
    ("inputs", '"name": "vector_search"', '"inputs": {', '"inputs": [], "x": {'),
    ("events[1].time", '"new_token"', '"new_token", "time": "', '"new_token", "time": "x'),
])
def test_broken_field_is_located(tmp_path: Path, field: str, line_has: str, old: str,
                                 new: str) -> None:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line_has in line and old in line)
    lines[at] = lines[at].replace(old, new, 1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = run_cli("import", "langsmith", str(bad), "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert f"{bad}:{at + 1}: {field}" in res.stderr
    assert not out.exists()


def test_detect_claims_its_files_only() -> None:
    assert detect_format(FIXTURE) == "langsmith"
    assert not detect((DATA / "atif_trajectory.json").read_text())
    for other in ("otel_genai.json", "sharegpt.json", "mlcommons_agentic.jsonl",
                  "mooncake.jsonl"):
        assert not detect((DATA / other).read_text()[:65536]), other


def _run(rid: str, run_type: str, start: float, end: float | None, parent: str | None,
         **kw: Any) -> dict[str, Any]:
    return {"id": rid, "name": kw.pop("name", rid), "run_type": run_type,
            "start_time": (T0 + timedelta(seconds=start)).isoformat(),
            "end_time": None if end is None else (T0 + timedelta(seconds=end)).isoformat(),
            "parent_run_id": parent, **kw}


def _llm(rid: str, start: float, end: float, parent: str, user: str, reply: str = "ok",
         calls: tuple[tuple[str, str], ...] = (), tokens: tuple[int, int] = (10, 2),
         history: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply}
    if calls:
        message["tool_calls"] = [{"id": cid, "type": "function",
                                  "function": {"name": name, "arguments": "{}"}}
                                 for cid, name in calls]
    return _run(rid, "llm", start, end, parent,
                inputs={"messages": [{"role": "user", "content": user}, *history]},
                outputs={"choices": [{"message": message}],
                         "usage_metadata": {"input_tokens": tokens[0],
                                            "output_tokens": tokens[1]}})


def test_subagent_rules(tmp_path: Path) -> None:
    runs = [
        _run("root", "chain", 0, 10, None),
        _llm("l1", 0.1, 0.5, "root", "go", calls=(("c1", "ask_expert"), ("c2", "summarize"))),
        # openai-agents shape: tool → wrapper chain → flagged agent → its llm calls
        _run("t1", "tool", 0.6, 3.0, "root", name="ask_expert", outputs={"output": "expert"}),
        _run("wrap", "chain", 0.61, 2.9, "t1", name="as_tool"),
        _run("expert", "chain", 0.62, 2.8, "wrap", name="expert",
             extra={"metadata": {"ls_agent_type": "subagent"}}),
        _llm("e1", 0.7, 1.0, "expert", "expert task"),
        _llm("e2", 1.1, 2.7, "expert", "expert task", history=(
            {"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"})),
        # a tool that makes one LLM call itself
        _run("t2", "tool", 3.1, 3.6, "root", name="summarize", outputs={"output": "short"}),
        _llm("s1", 3.2, 3.5, "t2", "summarize this"),
        # a flagged agent the root never waits for
        _run("bg", "chain", 3.7, 9.0, "root", name="background",
             extra={"metadata": {"ls_agent_type": "subagent"}}),
        _llm("b1", 3.8, 8.9, "bg", "watch"),
        _llm("l2", 4.0, 4.5, "root", "go", history=(
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ask_expert",
                                                               "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "summarize",
                                                               "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "expert"},
            {"role": "tool", "tool_call_id": "c2", "content": "short"})),
    ]
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs))  # a JSON array of runs, no trace ids: the root's
    found = subagents(read_runs(path))
    assert sorted(r.id for r in found) == ["bg", "expert", "s1"]
    (s,) = import_langsmith(path)
    assert check_session(s) == [] and s.session_id == "root"
    steps = s.turns[0].steps
    assert [x.kind for x in steps] == ["llm", "spawn", "join", "tool", "spawn", "join", "tool",
                                       "spawn", "wait", "llm"]
    assert steps[8].duration_ms == pytest.approx(300.0)  # 4.0 - 3.5 (join) - 0.2 (tool)
    assert [x.branch.name for x in steps if isinstance(x, SpawnStep)] == [
        "expert", "s1", "background"]
    expert = steps[1].branch  # type: ignore[union-attr]
    assert [x.kind for x in expert.steps] == ["llm", "wait", "llm"]
    assert expert.steps[2].messages is not None  # a second user message inside the branch
    assert s.llm_step_count() == 6 == profile_source(path).requests
    assert not any(isinstance(x, JoinStep) and "background" in x.branches for x in steps)


# --- generated exports ------------------------------------------------------------------

call_spec = st.fixed_dictionaries({"tools": st.integers(0, 2), "sub": st.booleans(),
                                   "tokens": st.tuples(st.integers(0, 9000),
                                                       st.integers(0, 900))})


class Export:
    """Writes one trace per conversation (OpenAI-shaped llm runs, tool runs, subagents under
    tool runs) and the histories (roles) each call sent."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.roles: list[tuple[str, ...]] = []
        self.tokens: list[tuple[int, int]] = []
        self.calls = self.subs = 0
        self.t = 0.0
        self.n = 0

    def tick(self, dt: float = 0.1) -> float:
        self.t += dt
        return self.t

    def conversation(self, trace: str, parent: str, calls: list[dict[str, Any]],
                     task: str, depth: int) -> None:
        history: list[dict[str, Any]] = [{"role": "system", "content": "sys"},
                                         {"role": "user", "content": task}]
        for spec in calls:
            self.n += 1
            ids = [f"call{self.n}_{k}" for k in range(spec["tools"])]
            start = self.tick()
            self.roles.append(tuple(m["role"] for m in history))
            self.tokens.append(spec["tokens"])
            self.calls += len(ids)
            reply: dict[str, Any] = {"role": "assistant", "content": "" if ids else "done"}
            if ids:
                reply["tool_calls"] = [{"id": i, "type": "function",
                                        "function": {"name": "lookup", "arguments": "{}"}}
                                       for i in ids]
            self.rows.append({**_run(f"{trace}-llm{self.n}", "llm", start, self.tick(), parent,
                                     inputs={"messages": list(history)},
                                     outputs={"choices": [{"message": reply}],
                                              "usage_metadata": dict(zip(
                                                  ("input_tokens", "output_tokens"),
                                                  spec["tokens"], strict=True))}),
                              "trace_id": trace})
            history.append(reply)
            for i in ids:
                tool = f"{trace}-tool-{i}"
                self.rows.append({**_run(tool, "tool", self.tick(), None, parent,
                                         name="lookup", outputs={"output": "r"}),
                                  "trace_id": trace})
                if spec["sub"] and depth == 0 and i == ids[0]:
                    self.subs += 1
                    agent = f"{tool}-agent"
                    self.rows.append({**_run(agent, "chain", self.tick(), None, tool),
                                      "trace_id": trace})
                    self.conversation(trace, agent, [{"tools": 1, "sub": False,
                                                      "tokens": (5, 1)}], "subtask", 1)
                    self.rows[self._index(agent)]["end_time"] = (
                        T0 + timedelta(seconds=self.tick())).isoformat()
                self.rows[self._index(tool)]["end_time"] = (
                    T0 + timedelta(seconds=self.tick())).isoformat()
                history.append({"role": "tool", "tool_call_id": i, "content": "r"})

    def _index(self, rid: str) -> int:
        return next(k for k, r in enumerate(self.rows) if r["id"] == rid)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces=st.lists(st.lists(call_spec, min_size=1, max_size=4), min_size=1, max_size=3))
def test_generated_exports_survive_the_import(traces: list[list[dict[str, Any]]]) -> None:
    w = Export()
    for k, calls in enumerate(traces):
        root = f"trace{k}"
        w.rows.append({**_run(root, "chain", w.tick(), None, None), "trace_id": root})
        w.conversation(root, root, calls, f"task {k}", 0)
        w.rows[w._index(root)]["end_time"] = (T0 + timedelta(seconds=w.tick())).isoformat()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in w.rows))
        got = list(import_langsmith(path))
        prof = profile_source(path)
    assert len(got) == prof.sessions == len(traces)
    assert all(check_session(s) == [] for s in got)
    requests = [r for s in got for r in llm_requests(s)]
    assert len(requests) == prof.requests == len(w.tokens)
    assert prof.subagents == w.subs == sum(
        1 for s in got for t in s.turns for x in t.steps if isinstance(x, SpawnStep))
    assert prof.tool_calls == w.calls == sum(len(x.output.tool_calls) for _, x, _ in requests)
    tokens = [(x.usage.input_tokens, x.usage.output_tokens) for _, x, _ in requests]
    assert sorted(tokens) == sorted(w.tokens) == sorted(
        zip(prof.input_tokens, prof.output_tokens, strict=True))
    roles = [tuple(m["role"] for m in history) for _, _, history in requests]
    assert sorted(roles) == sorted(w.roles)
