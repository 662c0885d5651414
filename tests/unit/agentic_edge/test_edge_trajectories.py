"""Recorded multi-turn sessions from BFCL ground truth."""

from __future__ import annotations

import hashlib
import importlib.util

import pytest

from agentic_bench.tasks.agentic_edge import (
    MULTI_TURN_SUBSETS,
    ApiEnvironment,
    bfcl_version,
    build_trajectories,
    load_multi_turn,
)
from agentic_bench.tasks.agentic_edge.trajectories import CANNOT_REPLY, DONE_REPLY
from agentic_bench.trace.model import Session
from agentic_bench.trace.semantics import check_session

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None, reason="bfcl-eval is not installed"
)


def _digest(sessions: list[Session]) -> str:
    return hashlib.sha256("\n".join(s.model_dump_json() for s in sessions).encode()).hexdigest()


@pytest.fixture(scope="module")
def sessions() -> list[Session]:
    return build_trajectories(MULTI_TURN_SUBSETS, limit_per_subset=3)


def test_shape_and_validation(sessions: list[Session]) -> None:
    assert len(sessions) == 12
    assert [s.session_id for s in sessions[:3]] == [
        "bfcl-mt-base-0",
        "bfcl-mt-base-1",
        "bfcl-mt-base-2",
    ]
    assert sessions[3].session_id == "bfcl-mt-miss-func-0"
    for session in sessions:
        assert session.schema_version == "1"
        assert check_session(session) == []
        assert Session.model_validate_json(session.model_dump_json()) == session
        assert session.category in MULTI_TURN_SUBSETS
        assert session.metadata["source"] == {"package": "bfcl-eval", "version": bfcl_version()}
        sample = next(
            x for x in load_multi_turn(session.category, 3) if x.id == session.metadata["bfcl_id"]
        )
        assert len(session.turns) == len(sample.ground_truth)


def test_steps_hold_real_results(sessions: list[Session]) -> None:
    session = sessions[0]
    sample = load_multi_turn("multi_turn_base", 1)[0]
    assert len(session.turns) == len(sample.ground_truth)
    env = ApiEnvironment.for_sample(sample)
    for turn, truth in zip(session.turns, sample.ground_truth, strict=True):
        assert turn.references["ground_truth"] == truth
        kinds = [s.kind for s in turn.steps]
        assert kinds == ["llm", "tool"] * len(truth) + ["llm"]
        for k, call in enumerate(truth):
            llm, tool = turn.steps[2 * k], turn.steps[2 * k + 1]
            assert llm.output.tool_calls[0].id == tool.call_id
            assert tool.result == env.execute_call(call)
        assert turn.steps[-1].output.content == DONE_REPLY
    first_call = session.turns[0].steps[0].output.tool_calls[0]
    assert (first_call.id, first_call.name, first_call.arguments) == (
        "bfcl-mt-base-0-t0-c0",
        "cd",
        {"folder": "document"},
    )
    sort_call = session.turns[2].steps[0].output.tool_calls[0]
    assert sort_call.name == "sort" and sort_call.arguments == {"file_name": "final_report.pdf"}


def test_miss_func_session(sessions: list[Session]) -> None:
    session = next(s for s in sessions if s.session_id == "bfcl-mt-miss-func-0")
    assert session.metadata["missed_function"] == {"3": ["sort"]}
    assert "sort" in session.tool_names()
    assert [s.kind for s in session.turns[2].steps] == ["llm"]
    assert session.turns[2].steps[0].output.content == CANNOT_REPLY
    assert "updated some more functions" in session.turns[3].user


def test_deterministic(sessions: list[Session]) -> None:
    again = build_trajectories(MULTI_TURN_SUBSETS, limit_per_subset=3)
    assert _digest(again) == _digest(sessions)
