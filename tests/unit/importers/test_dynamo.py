"""The ``dynamo`` importer (``dynamo.request.trace.v1`` request traces): agent sessions become
session trees — subagents spawned after the parent request that launched them and joined
before the one that consumed them (explicit ``tool.claude`` evidence, else Dynamo's timestamp
rule) —, prompts become blocks with compact per-tree ids; the fixture imports, validates and
replays on the simulator with one request per ``request_end`` row; broken fields stop the
import at file:line:field; generated traces keep requests, roles, tokens and the hierarchy;
``profile_source`` counts by hand."""

from __future__ import annotations

import gzip
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_bench.trace.importers.dynamo import detect, import_dynamo, profile_source
from agentic_bench.trace.model import JoinStep, LlmStep, Session, SpawnStep, Step, WaitStep
from tests.conftest import run_cli
from tests.unit.importers.test_tracelab import replay_blocks

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "importers"
FIXTURE = DATA / "dynamo_request_trace.jsonl"
SCHEMA = "dynamo.request.trace.v1"
PLANNER, RESEARCHER, CODER, TESTER = (f"run-7:{n}" for n in (
    "planner", "researcher", "coder", "tester"))


def conversations(steps: list[Step], key: str, out: dict[str, list[LlmStep]]) -> None:
    """The llm steps of every conversation of a tree, by branch id (the root's: "")."""
    for s in steps:
        if isinstance(s, LlmStep):
            out.setdefault(key, []).append(s)
        elif isinstance(s, SpawnStep):
            conversations(s.branch.steps, s.branch.id or "?", out)


def tree_steps(session: Session) -> dict[str, list[LlmStep]]:
    out: dict[str, list[LlmStep]] = {}
    for turn in session.turns:
        conversations(turn.steps, "", out)
    return out


def kinds(steps: list[Step]) -> list[str]:
    return [s.kind for s in steps]


def test_fixture_becomes_session_trees() -> None:
    planner, solo, orphan = import_dynamo(FIXTURE)
    assert (planner.session_id, solo.session_id, orphan.session_id) == (PLANNER, "solo",
                                                                        "orphan")
    assert [s.start_offset_s for s in (planner, solo, orphan)] == [0.0, 20.0, 30.0]
    assert planner.metadata["subagents"] == 3 and planner.metadata["tool_calls"] == 4
    assert orphan.metadata["parent_session_id"] == "elsewhere"  # not in the trace: a root
    assert planner.token_blocks is not None and planner.token_blocks.block_size == 64
    first, second = planner.turns
    assert [t.think_time_s for t in planner.turns] == [0.0, pytest.approx(3.2)]
    assert kinds(first.steps) == ["llm", "spawn", "wait", "llm", "spawn", "wait", "join", "llm"]
    assert kinds(second.steps) == ["join", "llm"]
    researcher, coder = (s for s in first.steps if isinstance(s, SpawnStep))
    assert researcher.branch.id == RESEARCHER and researcher.branch.metadata["spawn"] == "explicit"
    assert researcher.branch.metadata["execution_mode"] == "blocking"
    assert coder.branch.metadata["spawn"] == "inferred" and coder.start_s == 2.1
    join1, join2 = (s for t in planner.turns for s in t.steps if isinstance(s, JoinStep))
    assert (join1.branches, join2.branches) == ([RESEARCHER], [CODER])
    waits = [s for s in first.steps if isinstance(s, WaitStep)]
    assert [(w.duration_ms, w.reason) for w in waits] == [(500.0, "tool"), (3000.0, "tool")]
    assert kinds(researcher.branch.steps) == ["wait", "llm", "wait", "llm"]
    offset = researcher.branch.steps[0]
    assert isinstance(offset, WaitStep) and (offset.duration_ms, offset.reason) == (
        200.0, "spawn offset")
    tester = coder.branch.steps[-1]
    assert isinstance(tester, SpawnStep) and tester.branch.id == TESTER
    assert tester.branch.metadata["background"] is True  # nothing of the coder joins it
    # hashes → compact ids, first written first, shared across the tree's conversations
    ids = {k: [s.prompt.hash_ids for s in v if s.prompt] for k, v in tree_steps(planner).items()}
    assert ids[""] == [[1, 2], [1, 2, 6, 7], [1, 2, 6, 10, 11], [1, 2, 6, 10, 12, 13, 14]]
    assert ids[RESEARCHER] == [[1, 3], [1, 4, 5]] and ids[CODER] == [[8]]
    assert ids[TESTER] == [[1, 9]]
    steps = tree_steps(planner)[""]
    assert [s.start_s for s in steps] == [0.0, 1.5, 5.0, 9.0]
    assert [s.duration_ms for s in steps] == [1000.0, 500.0, 800.0, 1000.0]
    assert [s.prompt.new_input for s in steps if s.prompt] == [
        "user", "tool_result", "tool_result", "user"]
    solo_steps = [s for t in solo.turns for s in t.steps if isinstance(s, LlmStep)]
    assert [s.ttft_ms for s in solo_steps] == [50.0, 60.5]
    assert solo_steps[1].prompt and solo_steps[1].prompt.hash_ids == [1, 2, 3]  # own tree


def test_profile_source_counts_by_hand() -> None:
    prof = profile_source(FIXTURE)
    assert (prof.sessions, prof.trees, prof.requests, prof.subagents, prof.tool_calls) == (
        3, 1, 11, 3, 4)
    assert prof.input_tokens == [128, 100, 200, 64, 180, 300, 70, 400, 64, 130, 10]
    assert prof.output_tokens == [16, 10, 20, 8, 12, 30, 5, 40, 4, 6, 3]
    assert prof.gaps_s == pytest.approx([0.5, 3.0, 3.2, 0.3, 0.8])
    assert prof.prefix_hit is None and prof.notes


def test_detect_and_gzip(tmp_path: Path) -> None:
    assert detect(FIXTURE.read_text()[:65536])
    for other in ("mooncake.jsonl", "tracelab.jsonl", "mlcommons_agentic.jsonl",
                  "../weka/corpus.jsonl", "../weka/tree_subagents.json"):
        assert not detect((DATA / other).read_text()[:65536]), other
    shard = tmp_path / "dynamo-request-trace.000000.jsonl.gz"
    shard.write_bytes(gzip.compress(FIXTURE.read_bytes()))
    assert [s.model_dump() for s in import_dynamo(shard)] == [
        s.model_dump() for s in import_dynamo(FIXTURE)]
    assert profile_source(shard) == profile_source(FIXTURE)


def test_import_validate_and_replay_on_the_simulator(sim_factory: Any, tmp_path: Path) -> None:
    out = tmp_path / "dynamo.jsonl"
    res = run_cli("import", "dynamo", str(FIXTURE), "--out", str(out))
    assert res.returncode == 0, res.stderr
    res = run_cli("validate", str(out))
    assert res.returncode == 0 and "3 session(s)" in res.stdout, res.stdout + res.stderr
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0.1", "--request-log", str(log))
    run = tmp_path / "run"
    assert replay_blocks(out, sim.url, run, "--tokenizer", "server", "--think-time", "none",
                         "--session-header", "X-Session-ID") in (0, 3)
    sent = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(sent) == profile_source(FIXTURE).requests == 11
    per: dict[str, int] = {}
    for entry in sent:
        sid = entry["headers"]["x-session-id"]
        per[sid] = per.get(sid, 0) + 1
    assert per == {f"{PLANNER}#0": 4, f"{PLANNER}#0/{RESEARCHER}": 2,
                   f"{PLANNER}#0/{CODER}": 1, f"{PLANNER}#0/{TESTER}": 1, "solo#1": 2,
                   "orphan#2": 1}
    records = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    llm = [r for r in records if r.get("kind") == "llm"]
    assert all(r["prompt_tokens_synth"] == r["prompt_tokens_target"] for r in llm)
    assert sorted(r["output_tokens_target"] for r in llm) == sorted(
        x or 0 for x in profile_source(FIXTURE).output_tokens)
    assert [r["branches"] for r in records if r["type"] == "join"] == [[RESEARCHER], [CODER]]


def request(rid: str, start: int, inp: int = 100, out: int = 5, **extra: Any) -> dict[str, Any]:
    req = {"request_id": rid, "request_received_ms": start, "total_time_ms": 100,
           "output_tokens": out,
           "replay": {"trace_block_size": 64, "input_length": inp,
                      "input_sequence_hashes": list(range(math.ceil(inp / 64)))}}
    rec: dict[str, Any] = {"schema": SCHEMA, "event_type": "request_end",
                           "event_time_unix_ms": start + 100, "request": req}
    for key, value in extra.items():
        rec[key] = value
    return rec


def write(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_context_free_requests_are_single_request_sessions(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", request("b", 5_000, 130, 7), request("a", 2_000, 64))
    first, second = import_dynamo(path)
    assert (first.session_id, second.session_id) == ("a", "b")
    assert (first.start_offset_s, second.start_offset_s) == (0.0, 3.0)
    step = second.turns[0].steps[0]
    assert isinstance(step, LlmStep) and step.prompt and step.usage
    assert (step.prompt.hash_ids, step.usage.input_tokens, step.usage.output_tokens) == (
        [1, 2, 3], 130, 7)
    prof = profile_source(path)
    assert (prof.sessions, prof.requests, prof.subagents) == (2, 2, 0)


def test_a_child_before_any_parent_request_spawns_at_the_start(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl",
                 request("c", 1_000,
                         agent_context={"session_id": "kid", "parent_session_id": "p"}),
                 request("p0", 1_500, agent_context={"session_id": "p"}),
                 request("p1", 3_000, agent_context={"session_id": "p"}))
    (session,) = import_dynamo(path)
    steps = session.turns[0].steps
    assert kinds(steps) == ["spawn", "join", "llm", "wait", "llm"]  # it ended before p0
    spawn = steps[0]
    assert isinstance(spawn, SpawnStep) and spawn.branch.metadata["spawn"] == "start"
    assert kinds(spawn.branch.steps) == ["llm"]  # it starts with the tree (t0 = its start)


CTX: dict[str, Any] = {"agent_context": {"session_id": "s"}}


@pytest.mark.parametrize(("rows", "line", "field"), [
    ([request("a", 1, **CTX), {**request("b", 2, **CTX), "schema": "dynamo.request.trace.v2"}],
     2, "schema"),
    ([request("a", 1, **CTX), {**request("b", 2, **CTX), "event_type": "request_start"}],
     2, "event_type"),
    ([request("a", 1, **CTX), request("a", 2, **CTX)], 2, "request.request_id"),
    ([request("a", 1, **CTX), request("b", 2)], 2, "agent_context"),
    ([request("a", 1, agent_context={})], 1, "agent_context.session_id"),
    ([{**request("a", 1, **CTX), "request": {
        **request("a", 1)["request"], "replay": {"trace_block_size": 64, "input_length": 100,
                                                 "input_sequence_hashes": [1, 2, 3]}}}],
     1, "request.replay.input_sequence_hashes"),
    ([{**request("a", 1), "request": {k: v for k, v in request("a", 1)["request"].items()
                                       if k != "request_received_ms"}}],
     1, "request.request_received_ms"),
    ([{**request("a", 1), "request": {**request("a", 1)["request"], "output_tokens": -3}}],
     1, "request.output_tokens"),
    ([request("a", 1, **CTX), {"event": {**request("b", 2, **CTX), "request": {
        **request("b", 2)["request"], "replay": {**request("b", 2)["request"]["replay"],
                                                 "trace_block_size": 16,
                                                 "input_sequence_hashes": list(range(7))}}}}],
     2, "event.request.replay.trace_block_size"),
    ([request("a", 1, agent_context={"session_id": "x", "parent_session_id": "y"}),
      request("b", 2, agent_context={"session_id": "y", "parent_session_id": "x"})],
     1, "agent_context.parent_session_id"),
    ([request("a", 1, **CTX), {"schema": SCHEMA, "event_type": "tool_end",
                               "event_time_unix_ms": 5, **CTX,
                               "tool": {"tool_call_id": "t", "tool_class": "Task", "claude": {
                                   "source_request_id": "a", "execution_mode": "later"}}}],
     2, "tool.claude.execution_mode"),
])
def test_broken_field_exits_2_at_file_line_field(rows: list[dict[str, Any]], line: int,
                                                 field: str, tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.jsonl", *rows)
    out = tmp_path / "out.jsonl"
    res = run_cli("import", "dynamo", str(bad), "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert f"{bad}:{line}: {field}:" in res.stderr, res.stderr
    assert not out.exists()


SESSION = st.tuples(st.integers(-1, 5),  # parent: an earlier session's index, or none
                    st.lists(st.tuples(st.integers(0, 900), st.integers(0, 300),
                                       st.sampled_from(["user_message", "tool_result", None])),
                             min_size=1, max_size=4))


@settings(max_examples=40, deadline=None)
@given(sessions=st.lists(SESSION, min_size=1, max_size=5), start=st.integers(0, 10_000))
def test_generated_traces_keep_requests_roles_tokens_and_hierarchy(
        sessions: list[tuple[int, list[tuple[int, int, str | None]]]], start: int) -> None:
    rows = []
    expected: dict[str, list[tuple[int, int, str | None]]] = {}
    parent_of: dict[str, str] = {}
    for si, (parent, reqs) in enumerate(sessions):
        sid = f"s{si}"
        ctx: dict[str, Any] = {"session_id": sid}
        if 0 <= parent < si:
            ctx["parent_session_id"] = parent_of[sid] = f"s{parent}"
        clock = start + 37 * si
        for ri, (inp, out, trigger) in enumerate(reqs):
            clock += 50 + ri * 10
            rows.append(request(f"{sid}-{ri}", clock, inp, out,
                                agent_context={**ctx, **({"input_trigger": trigger}
                                                         if trigger else {})}))
            role = {"user_message": "user", "tool_result": "tool_result"}.get(trigger or "")
            expected.setdefault(sid, []).append((inp, out, role))
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / "t.jsonl", *rows)
        imported = list(import_dynamo(path))
        prof = profile_source(path)
    got: dict[str, list[tuple[int, int, str | None]]] = {}
    for session in imported:
        for key, steps in tree_steps(session).items():
            got[key or session.session_id] = [
                (s.usage.input_tokens or 0, s.usage.output_tokens or 0,
                 s.prompt.new_input) for s in steps if s.usage and s.prompt]
    assert got == expected
    roots = {s for s in expected if s not in parent_of}
    assert {s.session_id for s in imported} == roots
    assert prof.sessions == len(roots) and prof.subagents == len(parent_of)
    assert prof.requests == len(rows) == sum(s.llm_step_count() for s in imported)
    assert sorted(x or 0 for x in prof.output_tokens) == sorted(
        o for v in got.values() for _, o, _ in v)
    spawned: dict[str, str] = {}  # every subagent spawned by its recorded parent

    def walk(steps: list[Step], owner: str) -> None:
        for s in steps:
            if isinstance(s, SpawnStep) and s.branch.id:
                spawned[s.branch.id] = owner
                walk(s.branch.steps, s.branch.id)

    for session in imported:
        for turn in session.turns:
            walk(turn.steps, session.session_id)
    assert spawned == parent_of
