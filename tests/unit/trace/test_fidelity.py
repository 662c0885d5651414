"""The fidelity gate's profiles of a trace (agentic_bench/trace/fidelity.py) and of a raw Weka
corpus (fidelity_weka.py): counts worked out by hand, the two independent paths agreeing, and
a property test over generated sessions."""

from __future__ import annotations

import math
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_bench.trace import importers
from agentic_bench.trace.fidelity import (
    profile_sessions,
    raw_profiler,
    session_gaps,
    source_profile,
)
from agentic_bench.trace.fidelity_compare import compare, passed
from agentic_bench.trace.fidelity_weka import profile_weka
from agentic_bench.trace.importers import import_file
from agentic_bench.trace.model import SCHEMA_VERSION, LlmStep, Session
from agentic_bench.trace.profile import TraceProfile
from agentic_bench.trace.stats import trace_stats

ROOT = Path(__file__).resolve().parents[3]
WEKA = ROOT / "tests" / "data" / "weka"
DATA = ROOT / "tests" / "data" / "importers"
TOOLS = [{"type": "function", "function": {"name": "search", "parameters": {}}}]


def llm(i: int, out: int = 5, calls: int = 0, **extra: Any) -> dict[str, Any]:
    return {"kind": "llm", "usage": {"input_tokens": 100 + i, "output_tokens": out},
            "output": {"content": f"reply {i}",
                       "tool_calls": [{"id": f"c{i}.{k}", "name": "search", "arguments": {}}
                                      for k in range(calls)]}, **extra}


def tree_session() -> Session:
    """A coordinator with two turns: turn 0 calls a tool, fans out to two subagents, then
    spawns one (with a wait between its two requests) and joins it; turn 1 after 2 s."""
    return Session.model_validate({
        "schema_version": SCHEMA_VERSION, "session_id": "t", "tools": TOOLS,
        "turns": [
            {"user": "go", "steps": [
                llm(0, calls=1),
                {"kind": "tool", "call_id": "c0.0", "name": "search", "result": "r",
                 "duration_ms": 300},
                llm(1),  # gap 0.3 s
                {"kind": "parallel", "branches": [
                    {"task": "a", "steps": [llm(2), {"kind": "wait", "duration_ms": 100},
                                            llm(3)]},  # gap 0.1 s
                    {"task": "b", "steps": [llm(4)]}]},
                llm(5),  # after a fan-out: left out
                {"kind": "spawn", "branch": {"id": "s1", "task": "c", "steps": [
                    llm(6), {"kind": "wait", "duration_ms": 250}, llm(7)]}},  # gap 0.25 s
                {"kind": "wait", "duration_ms": 50},
                llm(8),  # gap 0.05 s (a spawn does not wait)
                {"kind": "join", "branches": ["s1"]},
                llm(9)]},  # after a join: left out
            {"user": "more", "think_time_s": 2.0, "steps": [
                {"kind": "retrieve", "query": "q", "duration_ms": 400}, llm(10)]},  # 2.4 s
        ]})


def test_a_tree_session_counts_by_hand() -> None:
    prof = profile_sessions([tree_session()])
    assert (prof.sessions, prof.trees, prof.requests, prof.subagents, prof.tool_calls) == (
        1, 1, 11, 3, 1)
    assert sorted(prof.wait_gaps_s or []) == pytest.approx(sorted([0.3, 0.1, 0.25, 0.05, 2.4]))
    assert sorted(prof.gaps_s) == sorted(prof.wait_gaps_s or [])  # no recorded times
    assert prof.input_tokens == [100 + i for i in range(11)]  # walk order: branches in place
    assert prof.output_tokens == [5] * 11
    assert (prof.input_basis, prof.output_basis) == ("recorded", "recorded")
    assert prof.prefix_basis == "chars" and 0 < (prof.prefix_hit or 0) < 1


def test_gaps_across_subagents_come_from_recorded_times() -> None:
    """Across a fan-out or a join, a gap is known only from the requests' recorded times:
    llm 1 ends at 1.5 s and llm 5 starts at 4.0 s (the fan-out between), llm 8 ends at 6.2 s
    and llm 9 starts at 7.0 s (the join between)."""
    one = tree_session()
    steps = one.turns[0].steps
    for index, start, ms in ((2, 1.0, 500), (4, 4.0, 100), (7, 6.0, 200), (9, 7.0, 100)):
        step = steps[index]
        assert isinstance(step, LlmStep)
        step.start_s, step.duration_ms = start, ms
    every, waits = session_gaps(one)
    assert len(waits) == 5 and sorted(every) == pytest.approx(sorted([*waits, 2.5, 0.8]))
    assert len(session_gaps(tree_session())[0]) == 5  # without times: left out


def test_without_usage_the_tokens_are_estimates_of_the_rendered_request() -> None:
    session = {"schema_version": SCHEMA_VERSION, "session_id": "e", "turns": [
        {"user": "x" * 400, "steps": [{"kind": "llm", "output": {"content": "y" * 40}}]}]}
    prof = profile_sessions([Session.model_validate(session)])
    stats = trace_stats([Session.model_validate(session)])
    assert prof.input_basis == prof.output_basis == "estimate"
    assert prof.input_tokens == [stats["input_tokens"]["p50"]]
    assert prof.output_tokens == [10]
    assert any("estimated" in n for n in prof.notes)


def test_partial_usage_keeps_none_where_the_trace_gives_no_count() -> None:
    one = tree_session()
    last = one.turns[1].steps[1]
    assert isinstance(last, LlmStep)
    last.usage = None
    prof = profile_sessions([one])
    assert prof.input_basis == "recorded" and prof.input_tokens[-1] is None
    assert any("10 of 11" in n for n in prof.notes)


def test_the_weka_fixture_counts_by_hand() -> None:
    """tests/data/weka/tree_subagents.json: 5 top-level rows, subagents A, B, C (2 rows each);
    B ends at 0.7 s (joined before the row at 0.8), C at 0.98 s (before 1.0), A in the
    background. Gaps end → start: parent 0.03→0.2 and 1.03→1.5; A 0.33→0.9, B 0.33→0.5,
    C 0.35→0.95."""
    prof = profile_weka(WEKA / "tree_subagents.json")
    assert (prof.sessions, prof.trees, prof.requests, prof.subagents) == (1, 1, 11, 3)
    assert sorted(prof.wait_gaps_s or []) == pytest.approx(sorted([0.17, 0.47, 0.57, 0.17,
                                                                   0.6]))
    # every gap: the parent's across B's join (0.23 → 0.8) and C's (0.83 → 1.0) too
    assert sorted(prof.gaps_s) == pytest.approx(sorted([0.17, 0.57, 0.17, 0.47, 0.57, 0.17,
                                                        0.6]))
    assert sorted(v for v in prof.input_tokens if v is not None) == sorted(
        [300, 400, 200, 260, 150, 210, 150, 210, 500, 620, 700])
    assert sum(v or 0 for v in prof.output_tokens) == 55 + 1544
    assert "tool_calls" in prof.unknown and prof.prefix_basis == "blocks"


@pytest.mark.parametrize("name", ["tree_subagents.json", "corpus.jsonl", "relative_subagent.json"])
def test_the_raw_weka_count_agrees_with_its_import(name: str) -> None:
    raw = profile_weka(WEKA / name)
    imported = profile_sessions(import_file("weka", WEKA / name))
    rows = compare(raw, imported)
    assert passed(rows), [r for r in rows if r.status == "FAIL"]
    assert raw.prefix_hit == pytest.approx(imported.prefix_hit)
    assert sorted(raw.gaps_s) == pytest.approx(sorted(imported.gaps_s))
    assert sorted(raw.wait_gaps_s or []) == pytest.approx(sorted(imported.wait_gaps_s or []))


def test_source_profile_says_how_it_counted() -> None:
    weka = source_profile("weka", WEKA / "tree_subagents.json")
    assert weka.notes[0].startswith("counted from the raw weka rows")
    ml = source_profile("mlcommons-agentic", DATA / "mlcommons_agentic.jsonl")
    assert ml.notes[0].startswith("profiled through its import")
    assert (ml.sessions, ml.requests, ml.tool_calls) == (3, 9, 6)


def test_an_importer_module_with_profile_source_is_used(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    module = types.ModuleType("agentic_bench.trace.importers.fakefmt")
    seen: list[Path] = []

    def profile_source(path: Path) -> TraceProfile:
        seen.append(path)
        return TraceProfile(sessions=7, requests=70)

    module.profile_source = profile_source  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(importers._TARGETS, "fake-fmt", "fakefmt:import_fake")
    assert raw_profiler("fake-fmt") is profile_source
    prof = source_profile("fake-fmt", tmp_path / "x")
    assert (prof.sessions, prof.requests, seen) == (7, 70, [tmp_path / "x"])
    assert raw_profiler("mooncake") is None  # (no profile_source there)


@st.composite
def sessions(draw: st.DrawFn) -> Session:
    """A session of 1-3 turns, each some llm steps with tool rounds and waits, maybe a
    fan-out of 1-3 single-request branches."""
    turns = []
    k = 0
    for t in range(draw(st.integers(1, 3))):
        steps: list[dict[str, Any]] = []
        for _ in range(draw(st.integers(1, 4))):
            calls = draw(st.integers(0, 2))
            steps.append(llm(k, out=draw(st.integers(0, 50)), calls=calls))
            steps += [{"kind": "tool", "call_id": f"c{k}.{c}", "name": "search",
                       "duration_ms": draw(st.floats(0, 5000))} for c in range(calls)]
            k += 1
        if draw(st.booleans()):
            steps.append({"kind": "parallel", "branches": [
                {"task": f"b{b}", "steps": [llm(100 + b)]}
                for b in range(draw(st.integers(1, 3)))]})
        turns.append({"user": f"u{t}", "think_time_s": draw(st.floats(0, 30)), "steps": steps})
    return Session.model_validate({"schema_version": SCHEMA_VERSION,
                                   "session_id": f"p{draw(st.integers(0, 10**6))}",
                                   "tools": TOOLS, "turns": turns})


@settings(max_examples=60, deadline=None)
@given(st.lists(sessions(), min_size=1, max_size=4))
def test_generated_traces_profile_consistently(batch: list[Session]) -> None:
    prof = profile_sessions(batch)
    assert prof.sessions == len(batch)
    assert prof.requests == sum(s.llm_step_count() for s in batch)
    assert prof.requests == len(prof.input_tokens) == len(prof.output_tokens)
    assert prof.tool_calls == sum(len(st_.output.tool_calls) for s in batch for t in s.turns
                                  for st_ in t.steps if st_.kind == "llm")
    assert all(g >= 0 and math.isfinite(g) for g in prof.gaps_s)
    # a trace is faithful to itself; one session fewer is not
    assert passed(compare(prof, profile_sessions(batch)))
    if len(batch) > 1:
        assert not passed(compare(prof, profile_sessions(batch[1:])))
