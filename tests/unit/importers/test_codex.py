"""The ``codex`` importer: OpenAI Codex CLI rollouts (tests/data/importers/codex, written from
the format's source; see SOURCES_codex.md) → sessions, its raw profile, broken input, a replay
on the simulator, and a property test over generated rollouts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentic_bench.trace import TraceFile, validate_file, write_sessions
from agentic_bench.trace.fidelity import profile_sessions
from agentic_bench.trace.fidelity_compare import compare, passed
from agentic_bench.trace.history import llm_requests
from agentic_bench.trace.importers import detect_format, import_file
from agentic_bench.trace.importers.codex import detect, import_codex, profile_source
from agentic_bench.trace.model import LlmStep, Session, SpawnStep
from agentic_bench.trace.semantics import check_session
from tests.conftest import run_cli

DATA = Path(__file__).resolve().parents[2] / "data" / "importers" / "codex"
SESSIONS = DATA / "sessions"
DAY = SESSIONS / "2025" / "10" / "02"
PARENT = DAY / "rollout-2025-10-02T10-00-00-0199a5c0-1f00-7a3b-8c1d-2e3f4a5b6c7d.jsonl"
CHILD_ID = "0199a5c0-5200-7b4c-9d2e-3f4a5b6c7d8e"
LEGACY = DATA / "legacy"
T0 = datetime(2025, 10, 2, 10, 0, 0, tzinfo=UTC)


def _ts(s: float) -> str:
    return (T0 + timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _row(s: float, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": _ts(s), "type": kind, "payload": payload})


def _msg(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _tokens(i: int, o: int, total: int) -> dict[str, Any]:
    last = {"input_tokens": i, "cached_input_tokens": 0, "output_tokens": o,
            "reasoning_output_tokens": 0, "total_tokens": i + o}
    return {"type": "token_count", "info": {"last_token_usage": last, "total_token_usage": {
        **last, "total_tokens": total}, "model_context_window": 200000}, "rate_limits": None}


def _meta(tid: str, **extra: Any) -> dict[str, Any]:
    return {"id": tid, "timestamp": _ts(0), "cwd": "/w", "originator": "codex_exec",
            "cli_version": "0.50.0", "source": "exec",
            "base_instructions": {"text": "You are Codex."}, **extra}


def _llm(session: Session) -> list[LlmStep]:
    return [step for _, step, _ in llm_requests(session)]


# -- the fixture -------------------------------------------------------------------------------

def test_fixture_maps_turns_calls_usage_and_times() -> None:
    (session,) = import_codex(PARENT)  # the subagent is found next to the file
    assert session.session_id == "0199a5c0-1f00-7a3b-8c1d-2e3f4a5b6c7d"
    assert check_session(session) == []
    meta = session.metadata
    assert meta["source"] == "codex" and meta["cli_version"] == "0.46.0"
    assert meta["originator"] == "codex_cli_rs" and meta["cwd"] == "/home/dev/calc"
    assert meta["model"] == "gpt-5-codex" and meta["session_source"] == "cli"
    assert meta["repeated_token_counts"] == 1 and meta["compactions"] == 1
    # base instructions, then the injected context (developer + AGENTS.md + environment)
    assert session.system is not None and session.system.startswith("You are Codex")
    assert "<permissions instructions>" in session.system
    assert "<environment_context>" in session.system
    assert [t.user for t in session.turns] == ["The test test_divide fails. Fix it.",
                                               "Now add a test for the new error."]
    assert session.turns[1].think_time_s == pytest.approx(29.992)
    kinds = [s.kind for s in session.turns[0].steps]
    assert kinds == ["llm", "tool", "llm", "spawn", "tool", "wait", "llm", "tool", "join",
                     "llm", "tool", "llm", "wait", "llm"]
    first = session.turns[0].steps[0]
    assert isinstance(first, LlmStep)
    assert first.start_s == pytest.approx(5.004) and first.duration_ms == pytest.approx(2996)
    assert first.usage is not None and first.usage.input_tokens == 5200
    assert first.output.tool_calls[0].name == "shell"
    assert first.output.tool_calls[0].arguments["command"] == ["bash", "-lc", "pytest -q"]
    patch = session.turns[0].steps[9]
    assert isinstance(patch, LlmStep) and patch.output.tool_calls[0].name == "apply_patch"
    assert patch.output.tool_calls[0].arguments["input"].startswith("*** Begin Patch")
    wait_result = session.turns[0].steps[7]
    assert wait_result.kind == "tool" and wait_result.duration_ms == 0  # the join waits


def test_fixture_subagent_is_a_spawned_branch_joined_at_wait() -> None:
    (session,) = import_codex(SESSIONS)
    spawn = session.turns[0].steps[3]
    assert isinstance(spawn, SpawnStep)
    branch = spawn.branch
    assert branch.id == CHILD_ID and branch.name == "Scout"
    assert branch.task == "Find where divide() is defined and report the file and line."
    assert branch.system is not None and "explorer" in branch.system
    assert [s.kind for s in branch.steps] == ["llm", "tool", "llm"]
    assert spawn.start_s == pytest.approx(11.5)
    assert branch.metadata["agent_role"] == "explorer" and branch.metadata["depth"] == 1
    join = session.turns[0].steps[8]
    assert join.kind == "join" and join.branches == [CHILD_ID]
    assert session.llm_step_count() == 11


def test_history_after_compaction_is_the_replacement() -> None:
    (session,) = import_codex(SESSIONS)
    requests = list(llm_requests(session))
    before = [h for _, s, h in requests if s.messages is None]
    after = [(s, h) for _, s, h in requests if s.messages is not None]
    assert len(after) == 3  # the three calls after the compaction
    _, history = after[0]
    assert history[0]["role"] == "system"
    assert history[2]["content"].startswith("Another language model")  # the summary
    assert history[-1] == {"role": "user", "content": "Now add a test for the new error."}
    assert not any(m["role"] == "tool" for m in history)  # turn 1's tool results are gone
    assert any(m["role"] == "tool" for m in before[-1])  # before it they were sent
    last = after[-1][1]
    assert [m["role"] for m in last[-4:]] == ["assistant", "tool", "assistant", "tool"]


def test_profile_source_counts_the_fixture_by_hand() -> None:
    prof = profile_source(SESSIONS)
    assert (prof.sessions, prof.trees, prof.requests, prof.subagents, prof.tool_calls) == (
        1, 1, 11, 1, 7)
    assert sorted(prof.input_tokens) == sorted(  # type: ignore[type-var]
        [5200, 5600, 6000, 6300, 6500, 6600, 1500, 1700, 1900, 3100, 3200])
    assert sorted(prof.output_tokens) == sorted(  # type: ignore[type-var]
        [180, 95, 40, 210, 30, 400, 60, 120, 12, 40, 15])
    # 11.1 s: the parent's wait() for the subagent (a join in the trace)
    assert sorted(prof.gaps_s) == pytest.approx([0.25, 0.3, 0.35, 0.5, 0.8, 1.2, 11.1, 27.95,
                                                 29.992])
    assert profile_source(PARENT).requests == 11  # the sibling subagent file counts too
    trace = profile_sessions(import_codex(SESSIONS))
    assert (trace.requests, trace.subagents, trace.tool_calls) == (11, 1, 7)
    assert sorted(trace.gaps_s) == pytest.approx(sorted(prof.gaps_s), abs=1e-5)
    assert passed(compare(prof, trace))  # the fidelity gate: source vs imported trace


def test_legacy_format() -> None:
    (path,) = LEGACY.iterdir()
    assert detect(path.read_text()) and detect_format(path) == "codex"
    (session,) = import_codex(path)
    assert session.metadata["legacy_format"] is True
    assert session.system is not None and "<user_instructions>" in session.system
    assert session.turns[0].user == "List the Python files here."
    assert [s.kind for s in session.turns[0].steps] == ["llm", "tool", "llm"]
    assert all(s.usage is None for s in _llm(session))
    prof = profile_source(LEGACY)
    assert prof.requests == 2 and prof.input_tokens == [None, None] and prof.gaps_s == []
    assert "gaps_s" in prof.unknown


def test_detect_and_round_trip(tmp_path: Path) -> None:
    assert detect_format(PARENT) == "codex"
    assert not detect('{"conversation_id": "a", "role": "user", "turn": 1}\n')
    assert not detect('{"timestamp": 1, "input_length": 3, "hash_ids": [1]}\n')
    sessions = list(import_file("codex", SESSIONS))
    out = tmp_path / "codex.jsonl"
    write_sessions(out, sessions)
    assert validate_file(out).ok
    assert [s.model_dump() for s in TraceFile(out)] == [s.model_dump() for s in sessions]


# -- forks and broken input --------------------------------------------------------------------

def test_forked_rollout_keeps_copied_history_as_context(tmp_path: Path) -> None:
    """A fork copies the parent's lines (meta, items, token counts) before its own turns; they
    are the context of its first request, not requests of its own."""
    parent_id = "0199a5c0-0000-7000-8000-00000000aaaa"
    own_id = "0199a5c0-9000-7000-8000-00000000bbbb"  # minted later than the copied turn
    rows = [
        _row(0, "session_meta", _meta(own_id, forked_from_id=parent_id)),
        _row(0.01, "session_meta", _meta(parent_id)),
        _row(0.02, "turn_context", {"turn_id": "0199a5c0-0001-7000-8000-000000000001",
                                    "cwd": "/w", "model": "m"}),
        _row(0.03, "response_item", _msg("user", "old question")),
        _row(0.04, "response_item", _msg("assistant", "old answer")),
        _row(0.05, "event_msg", _tokens(100, 10, 110)),
        _row(5.0, "turn_context", {"turn_id": "0199a5c0-a000-7000-8000-000000000002",
                                   "cwd": "/w", "model": "m"}),
        _row(5.1, "response_item", _msg("user", "new question")),
        _row(6.0, "response_item", _msg("assistant", "new answer")),
        _row(6.1, "event_msg", _tokens(150, 12, 272)),
    ]
    path = tmp_path / f"rollout-2025-10-02T10-00-00-{own_id}.jsonl"
    path.write_text("\n".join(rows) + "\n")
    (session,) = import_codex(path)
    (step,) = _llm(session)
    assert session.session_id == own_id and session.metadata["copied_history_lines"] == 4
    assert step.usage is not None and step.usage.input_tokens == 150
    assert step.messages is not None
    assert [m["content"] for m in step.messages[1:]] == ["old question", "old answer",
                                                          "new question"]
    assert profile_source(path).requests == 1


def test_context_messages_and_turn_boundaries(tmp_path: Path) -> None:
    """Context after a finished turn (a subagent notification) starts a turn; context between
    a tool call and its follow-up call is dropped and counted; a later developer message joins
    the next user turn."""
    rows = [
        _row(0, "session_meta", _meta("0199a5c0-2222-7000-8000-000000000001")),
        _row(1, "response_item", _msg("user", "do it")),
        _row(2, "response_item", _msg("assistant", "done")),
        _row(2.1, "event_msg", _tokens(10, 1, 11)),
        _row(9, "response_item", _msg("user", "<subagent_notification>{}</subagent_notification>")),
        _row(10, "response_item", {"type": "function_call", "name": "shell", "call_id": "x",
                                   "arguments": "{}"}),
        _row(10.1, "event_msg", _tokens(20, 2, 33)),
        _row(11, "response_item", {"type": "function_call_output", "call_id": "x",
                                   "output": [{"type": "input_text", "text": "ok"}]}),
        _row(11.5, "response_item", _msg("user", "<environment_context>x</environment_context>")),
        _row(12, "response_item", _msg("assistant", "fine")),
        _row(12.1, "event_msg", _tokens(30, 3, 66)),
        _row(20, "response_item", {"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": "<model_switch>\nnow m2\n</model_switch>"}]}),
        _row(20.5, "response_item", _msg("user", "again")),
        _row(21, "response_item", _msg("assistant", "ok")),
        _row(21.2, "event_msg", _tokens(40, 4, 110)),
    ]
    path = tmp_path / "rollout-ctx.jsonl"
    path.write_text("\n".join(rows) + "\n")
    (session,) = import_codex(path)
    assert [t.user for t in session.turns] == [
        "do it", "<subagent_notification>{}</subagent_notification>",
        "<model_switch>\nnow m2\n</model_switch>\n\nagain"]
    assert [t.think_time_s for t in session.turns] == pytest.approx([0.0, 6.9, 8.4])
    assert session.metadata["dropped_context_messages"] == 1
    tool = session.turns[1].steps[1]
    assert tool.kind == "tool" and tool.result == "ok"
    assert tool.duration_ms == pytest.approx(900)


@pytest.mark.parametrize(("change", "line", "field"), [
    (lambda rows: rows.__setitem__(3, rows[3].replace('"call_id":"call_A1"', '"call_id":7')),
     4, "payload.call_id"),
    (lambda rows: rows.__setitem__(0, rows[0].replace('"2025-10-02T10:00:00.000Z"', '"later"',
                                                      1)), 1, "timestamp"),
    (lambda rows: rows.__setitem__(2, rows[2].replace('"input_tokens":5200',
                                                      '"input_tokens":-1')),
     3, "payload.info.last_token_usage.input_tokens"),
])
def test_broken_field_exits_2_and_writes_nothing(change: Any, line: int, field: str,
                                                 tmp_path: Path) -> None:
    rows = [r for r in PARENT.read_text().splitlines()
            if '"call_A1"' in r or '"session_meta"' in r or '"input_tokens":5200' in r]
    assert len(rows) == 4  # meta, call, its token count, its output
    change(rows)
    bad = tmp_path / "rollout-bad.jsonl"
    bad.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out.jsonl"
    res = run_cli("import", "codex", str(bad), "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert f"{bad}:{line}" in res.stderr and field in res.stderr
    assert not out.exists()


# -- replay on the simulator -------------------------------------------------------------------

def test_replay_sends_one_request_per_api_call(sim_factory: Any, tmp_path: Path) -> None:
    out = tmp_path / "codex.jsonl"
    res = run_cli("import", "codex", str(SESSIONS), "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert run_cli("validate", str(out)).returncode == 0
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0.1", "--request-log", str(log))
    run = run_cli("replay", str(out), "--endpoint", sim.url, "--out", str(tmp_path / "run"),
                  "--quiet", "--think-time", "none")
    assert run.returncode in (0, 3), run.stderr
    bodies = [json.loads(x)["body"] for x in log.read_text().splitlines()]
    assert len(bodies) == profile_source(SESSIONS).requests == 11
    tasks = [b for b in bodies if b["messages"][1]["content"].startswith("Find where divide")]
    assert len(tasks) == 2  # the subagent's two calls, with its own history
    compacted = [b for b in bodies if any("Another language model" in str(m.get("content"))
                                          for m in b["messages"] if m["role"] == "user")]
    assert len(compacted) == 3


# -- property: generated rollouts --------------------------------------------------------------

_CALL = st.fixed_dictionaries({"tools": st.integers(0, 2), "text": st.booleans(),
                               "usage": st.one_of(st.none(), st.tuples(
                                   st.integers(1, 9000), st.integers(1, 900))),
                               "repeat": st.booleans()})
_TURN = st.lists(_CALL, min_size=1, max_size=4)


def _generate(turns: list[list[dict[str, Any]]]) -> tuple[list[str], list[Any], int]:
    """A rollout: each turn a user message then its calls (a call with tools gets results and
    is followed by another call; the last call of a turn makes none)."""
    rows = [_row(0, "session_meta", _meta("0199a5c0-1111-7000-8000-000000000001"))]
    t, total, n, ncalls = 1.0, 0, 0, 0
    expected: list[Any] = []
    for ti, calls in enumerate(turns):
        t += 3
        rows.append(_row(t, "response_item", _msg("user", f"question {ti}")))
        for ci, call in enumerate(calls):
            last = ci == len(calls) - 1
            tools = 0 if last else max(1, call["tools"])
            t += 1
            if call["text"] or tools == 0:
                rows.append(_row(t, "response_item", _msg("assistant", f"answer {ti}.{ci}")))
            ids = [f"c{n}_{k}" for k in range(tools)]
            n += 1
            for cid in ids:
                rows.append(_row(t, "response_item", {
                    "type": "function_call", "name": "shell", "call_id": cid,
                    "arguments": json.dumps({"command": ["echo", cid]})}))
            if call["usage"] is not None:
                i, o = call["usage"]
                total += i + o
                rows.append(_row(t + 0.1, "event_msg", _tokens(i, o, total)))
                if call["repeat"]:
                    rows.append(_row(t + 0.2, "event_msg", _tokens(i, o, total)))
            expected.append(call["usage"])
            ncalls += tools
            for cid in ids:
                t += 0.5
                rows.append(_row(t, "response_item", {"type": "function_call_output",
                                                      "call_id": cid, "output": f"out {cid}"}))
    return rows, expected, ncalls


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(_TURN, min_size=1, max_size=4))
def test_generated_rollouts_keep_requests_roles_and_tokens(
        turns: list[list[dict[str, Any]]], tmp_path: Path) -> None:
    rows, expected, ncalls = _generate(turns)
    path = tmp_path / "rollout-gen.jsonl"
    path.write_text("\n".join(rows) + "\n")
    (session,) = import_codex(path)
    assert check_session(session) == []
    prof = profile_source(path)
    steps = _llm(session)
    assert len(steps) == prof.requests == len(expected)
    assert prof.tool_calls == ncalls == sum(len(s.output.tool_calls) for s in steps)
    got = [(s.usage.input_tokens, s.usage.output_tokens) if s.usage else None for s in steps]
    assert got == expected
    assert [None if u is None else u[0] for u in expected] == prof.input_tokens
    assert [t.user for t in session.turns] == [f"question {i}" for i in range(len(turns))]
    for _, _, history in llm_requests(session):
        roles = [m["role"] for m in history]
        assert roles[0] == "system" and roles[1] == "user" and roles[-1] in ("user", "tool")
    trace = profile_sessions([session])
    assert sorted(trace.gaps_s) == pytest.approx(sorted(prof.gaps_s), abs=1e-5)
