"""ATIF trajectories (Harbor's Agent Trajectory Interchange Format) → session trees: the hand
written fixture's mapping, a replay on the simulator sending one request per agent step, the
source profile counted by hand, located errors, detection, subagents in files and folders, and
generated trajectories whose requests, roles and token counts survive the import."""

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
from agentic_bench.trace.importers import detect_format, import_file
from agentic_bench.trace.importers.atif import detect, import_atif, profile_source
from agentic_bench.trace.model import JoinStep, SpawnStep
from agentic_bench.trace.semantics import check_session
from tests.conftest import import_and_replay, run_cli

DATA = Path(__file__).resolve().parents[2] / "data" / "importers"
FIXTURE = DATA / "atif_trajectory.json"


def test_fixture_imports_into_a_tree() -> None:
    (s,) = import_file("atif", FIXTURE)
    assert check_session(s) == []
    assert s.session_id == "run-42" and s.system == "You are a careful coding agent."
    assert s.metadata["source"] == "atif" and s.metadata["agent"] == {"name": "coder",
                                                                      "version": "1.4.0"}
    assert s.metadata["model"] == "big-model" and s.metadata["cached_tokens"] == 2816
    assert s.metadata["dropped_reasoning_content"] == 1
    assert s.tool_names() == {"read_file", "grep", "delegate", "search"}
    assert "stub_tool_declarations" not in s.metadata  # all declared by the agents
    assert [t.user for t in s.turns] == ["Why does the CLI ignore --config?", "Fix it, please."]
    assert s.turns[1].think_time_s == pytest.approx(13.8)  # 21.0 - (6.5 + 0.7)
    steps = s.turns[0].steps
    assert [x.kind for x in steps] == ["llm", "tool", "tool", "wait", "llm", "spawn", "join",
                                       "tool", "wait", "llm"]
    first = steps[0]
    assert first.usage.input_tokens == 1200 and first.usage.output_tokens == 80
    assert (first.duration_ms, first.ttft_ms, first.start_s) == (1200.0, 310.0, 1.0)
    assert [(c.id, c.name) for c in first.output.tool_calls] == [("call-1", "read_file"),
                                                                 ("call-2", "grep")]
    assert (steps[1].call_id, steps[1].duration_ms) == ("call-1", 150.0)
    assert steps[3].duration_ms == pytest.approx(400.0)  # 3.0 - 2.2 - (0.15 + 0.25)
    spawn, join, handoff = steps[5], steps[6], steps[7]
    assert isinstance(spawn, SpawnStep) and isinstance(join, JoinStep)
    branch = spawn.branch
    assert branch.id == "sub-explore" and join.branches == ["sub-explore"]
    assert branch.task == "Find every caller of parse_config." and branch.name == "explorer"
    assert branch.system == "You explore code bases and report facts."
    assert [x.kind for x in branch.steps] == ["llm", "tool", "wait", "llm"]
    assert spawn.start_s == 4.0 and branch.steps[0].start_s == pytest.approx(4.1)
    assert handoff.call_id == "call-3" and handoff.result.startswith("parse_config is called")
    assert steps[8].duration_ms == pytest.approx(800.0)  # after the subagent's end at 5.7
    # every history equals what replay derives from the trace, so none is stored
    assert all(x.messages is None for _, x, _ in llm_requests(s))
    assert s.llm_step_count() == 6


def test_replay_sends_one_request_per_agent_step(sim_factory: Any, tmp_path: Path) -> None:
    bodies, run = import_and_replay("atif", FIXTURE, tmp_path, sim_factory)
    assert len(bodies) == profile_source(FIXTURE).requests == 6
    roles = Counter(tuple(m["role"] for m in b["messages"]) for b in bodies)
    assert roles == Counter([("system", "user"), ("system", "user", "assistant", "tool", "tool"),
                             ("system", "user"), ("system", "user", "assistant", "tool"),
                             ("system", "user", "assistant", "tool", "tool", "assistant",
                              "tool"),
                             ("system", "user", "assistant", "tool", "tool", "assistant",
                              "tool", "assistant", "user")])
    # the delegated result is the newest message of the request after the join
    after = next(b["messages"] for b in bodies if len(b["messages"]) == 7)
    assert after[-1] == {"role": "tool", "tool_call_id": "call-3", "content":
                         "parse_config is called from app/main.py:12 and app/cli.py:40."}
    records = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    (branch,) = [r for r in records if r.get("type") == "branch"]
    assert branch["branch"] == "sub-explore" and branch["llm_calls"] == 2 and branch["spawned"]


def test_profile_source_counts_the_raw_steps() -> None:
    p = profile_source(FIXTURE)
    assert (p.sessions, p.trees, p.requests, p.subagents, p.tool_calls) == (1, 1, 6, 1, 4)
    assert sorted(zip(p.input_tokens, p.output_tokens, strict=True)) == sorted([
        (1200, 80), (1500, 60), (2100, 120), (2300, 40), (400, 30), (700, 50)])
    # a call's end (timestamp + llm_stream_duration_ms) → the next call's timestamp
    assert sorted(p.gaps_s) == pytest.approx([0.5, 0.8, 2.6, 13.8])
    assert any("without a recorded duration" in n for n in p.notes)


@pytest.mark.parametrize(("field", "old", "new"), [
    ("steps[2].step_id", '"step_id": 3', '"step_id": 9'),
    ("steps[3].metrics.prompt_tokens", '"prompt_tokens": 1500', '"prompt_tokens": -1'),
    ("steps[2].tool_calls[1].function_name", '"function_name": "grep"', '"function_name": ""'),
    ("steps[6].timestamp", '"2025-11-04T10:00:21.000Z"', '"yesterday"'),
    ("subagent_trajectories[0].steps[2].observation.results[0].source_call_id",
     '"source_call_id": "s-call-1"', '"source_call_id": "nope"'),
])
def test_broken_field_is_located(tmp_path: Path, field: str, old: str, new: str) -> None:
    text = FIXTURE.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "bad.json"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = run_cli("import", "atif", str(bad), "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert f"{bad}:0: {field}" in res.stderr
    assert not out.exists()


def test_broken_line_of_jsonl_is_located(tmp_path: Path) -> None:
    doc = json.loads(FIXTURE.read_text())
    broken = json.loads(json.dumps(doc))
    broken["steps"][1]["source"] = "robot"
    bad = tmp_path / "many.jsonl"
    bad.write_text(json.dumps(doc) + "\n" + json.dumps(broken) + "\n")
    out = tmp_path / "out.jsonl"
    res = run_cli("import", "auto", str(bad), "--out", str(out))
    assert res.returncode == 2 and f"{bad}:2: steps[1].source" in res.stderr
    assert not out.exists()


def test_detect_claims_its_files_only() -> None:
    assert detect_format(FIXTURE) == "atif"
    assert detect(FIXTURE.read_text())
    assert not detect((DATA / "langsmith_runs.jsonl").read_text())
    assert not detect('{"schema_version": "1", "session_id": "x", "turns": []}')
    for other in ("otel_genai.json", "sharegpt.json", "mlcommons_agentic.jsonl"):
        assert not detect((DATA / other).read_text()[:65536]), other


def _traj(steps: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    return {"schema_version": "ATIF-v1.8", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": i + 1, **s} for i, s in enumerate(steps)], **top}


def test_subagent_files_folders_copied_context_and_dispatch(tmp_path: Path) -> None:
    sub = _traj([{"source": "user", "message": "sub task"},
                 {"source": "agent", "message": "sub done", "metrics": {"prompt_tokens": 5}}],
                trajectory_id="s1")
    main = _traj([
        {"source": "user", "message": "old question", "is_copied_context": True},
        {"source": "agent", "message": "old answer", "is_copied_context": True},
        {"source": "user", "message": "go"},
        {"source": "agent", "message": "", "llm_call_count": 0,  # a no-LLM dispatch
         "tool_calls": [{"tool_call_id": "d1", "function_name": "spawn", "arguments": {}}],
         "observation": {"results": [{"source_call_id": "d1", "content": "sub done",
                                      "subagent_trajectory_ref": [
                                          {"trajectory_path": "sub/agent-s1.json"}]}]}},
        {"source": "agent", "message": "all done"},
        {"source": "user", "message": "thanks"}], session_id="m1")
    folder = tmp_path / "trial"
    (folder / "sub").mkdir(parents=True)
    (folder / "main.json").write_text(json.dumps(main))
    (folder / "sub" / "agent-s1.json").write_text(json.dumps(sub))
    (folder / "result.json").write_text('{"reward": 1.0}')  # a trial's other files
    (s,) = list(import_atif(folder))  # the referenced file is a subagent, not a session
    assert check_session(s) == []
    assert [t.user for t in s.turns] == ["old question", "go", "thanks"]
    assert s.turns[0].steps == [] and s.turns[2].steps == []
    kinds = [x.kind for x in s.turns[1].steps]
    assert kinds == ["spawn", "join", "llm"]
    assert s.metadata["copied_context_steps"] == 1 and s.metadata["no_llm_dispatch_steps"] == 1
    # the last call's history holds the copied context and the dispatch, as recorded
    (*_, (_, last, history)) = list(llm_requests(s))
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant", "tool"]
    assert last.messages is not None and s.llm_step_count() == 2
    p = profile_source(folder)
    assert (p.sessions, p.requests, p.subagents, p.trees) == (1, 2, 1, 1)
    (one,) = list(import_atif(folder / "main.json"))  # one file finds its subagent file
    assert one.llm_step_count() == 2


# --- generated trajectories -------------------------------------------------------------

request_spec = st.fixed_dictionaries({
    "tools": st.integers(0, 3), "text": st.booleans(),
    "tokens": st.tuples(st.integers(0, 5000), st.integers(0, 500)),
    "duration": st.one_of(st.none(), st.integers(1, 3000)),
    "feedback": st.booleans()})
turn_spec = st.lists(request_spec, min_size=1, max_size=3)


class Writer:
    """Writes a trajectory from a spec and the histories (roles) ATIF implies for each call."""

    def __init__(self) -> None:
        self.roles: list[tuple[str, ...]] = []
        self.tokens: list[tuple[int, int]] = []
        self.calls = 0
        self.t = 0.0

    def steps(self, turns: list[list[dict[str, Any]]], system: bool, task: str | None,
              sub: dict[str, Any] | None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        history: list[str] = ["system"] if system else []
        if system:
            out.append({"source": "system", "message": "be brief"})
        for ti, turn in enumerate(turns):
            out.append({"source": "user", "message": task if task and ti == 0 else f"q{ti}",
                        "timestamp": self.stamp(1.0)})
            history.append("user")
            for ri, req in enumerate(turn):
                self.roles.append(tuple(history))
                self.tokens.append(req["tokens"])
                calls = [{"tool_call_id": f"c{len(self.roles)}_{k}", "function_name": "f",
                          "arguments": {"k": k}} for k in range(req["tools"])]
                self.calls += len(calls)
                results: list[dict[str, Any]] = [{"source_call_id": c["tool_call_id"],
                                                  "content": "r"} for c in calls]
                if sub is not None and ti == 0 and ri == 0 and calls:
                    results[0]["subagent_trajectory_ref"] = [{"trajectory_id": "sub"}]
                history += ["assistant"] + ["tool"] * len(calls)
                if req["feedback"]:
                    results.append({"content": "env says hi"})
                    history.append("user")
                step: dict[str, Any] = {
                    "source": "agent", "message": "text" if req["text"] else "",
                    "timestamp": self.stamp(0.5), "tool_calls": calls,
                    "metrics": {"prompt_tokens": req["tokens"][0],
                                "completion_tokens": req["tokens"][1]}}
                if req["duration"] is not None:
                    step["extra"] = {"llm_stream_duration_ms": req["duration"]}
                if results:
                    step["observation"] = {"results": results}
                out.append(step)
        return out

    def stamp(self, dt: float) -> str:
        self.t += dt
        return f"2025-01-01T00:{int(self.t // 60):02d}:{self.t % 60:06.3f}+00:00"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions=st.lists(st.tuples(st.lists(turn_spec, min_size=1, max_size=3), st.booleans(),
                                   st.one_of(st.none(), turn_spec)), min_size=1, max_size=3))
def test_generated_trajectories_survive_the_import(
        sessions: list[tuple[list[list[dict[str, Any]]], bool, list[dict[str, Any]] | None]],
) -> None:
    w = Writer()
    lines = []
    subs = 0
    for turns, system, sub_turn in sessions:
        sub = None
        if sub_turn is not None and turns[0][0]["tools"]:
            sub = _traj(w.steps([sub_turn], True, "subtask", None), trajectory_id="sub")
            subs += 1
        doc = _traj(w.steps(turns, system, None, sub))
        if sub is not None:
            doc["subagent_trajectories"] = [sub]
        lines.append(json.dumps(doc))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gen.jsonl"
        path.write_text("\n".join(lines) + "\n")
        got = list(import_atif(path))
        prof = profile_source(path)
        shutil.rmtree(tmp)
    assert len(got) == prof.sessions == len(sessions)
    assert all(check_session(s) == [] for s in got)
    requests = [r for s in got for r in llm_requests(s)]
    assert len(requests) == prof.requests == len(w.tokens)
    assert sum(s.llm_step_count() for s in got) == len(w.tokens)
    assert prof.subagents == subs
    assert prof.tool_calls == w.calls == sum(len(x.output.tool_calls) for _, x, _ in requests)
    tokens = [(x.usage.input_tokens, x.usage.output_tokens) for _, x, _ in requests]
    assert sorted(tokens) == sorted(w.tokens) == sorted(
        zip(prof.input_tokens, prof.output_tokens, strict=True))
    roles = [tuple(m["role"] for m in history) for _, _, history in requests]
    assert sorted(roles) == sorted(w.roles)
