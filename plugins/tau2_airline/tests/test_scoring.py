"""tau2's DB-hash and communicate checks; the gold trajectory passes every task."""

from __future__ import annotations

import pytest

from tau2_airline_bench.data import load_tasks
from tau2_airline_bench.db import AirlineDB
from tau2_airline_bench.scoring import (
    Conversation,
    category,
    communicated,
    gold_hash,
    oracle_conversation,
    verdict,
)
from tau2_airline_bench.tools import AirlineTools, call_tool

IDS = [t["id"] for t in load_tasks()]


def test_fifty_airline_tasks() -> None:
    assert len(IDS) == 50
    cats = {category(t) for t in load_tasks()}
    assert cats == {"write", "read_only", "no_action"}


@pytest.mark.parametrize("task_id", IDS)
def test_gold_replay_passes(task_id: str) -> None:
    v = verdict(oracle_conversation(task_id))
    assert v["correct"] and v["db_match"] and v["communicate_ok"], v
    assert v["agent_db_hash"] == gold_hash(task_id)


def test_doing_nothing_fails_exactly_the_write_tasks() -> None:
    for task in load_tasks():
        v = verdict(Conversation(task_id=task["id"], db=AirlineDB(),
                                 agent_texts=[" ".join(task["evaluation_criteria"].get(
                                     "communicate_info") or [])]))
        assert v["db_match"] == (category(task) != "write"), task["id"]


def test_a_wrong_write_fails_the_db_check() -> None:
    task = next(t for t in load_tasks() if category(t) == "no_action")
    conv = Conversation(task_id=task["id"], db=AirlineDB())
    call_tool(AirlineTools(conv.db), "send_certificate", {"user_id": "mia_li_3668",
                                                          "amount": 5})
    v = verdict(conv)
    assert not v["db_match"] and not v["correct"]
    assert v["agent_db_hash"] != v["gold_db_hash"]


def test_communicate_check_is_tau2s() -> None:
    assert communicated(["1628"], ["The total is $1,628."]) == [True]
    assert communicated(["1628"], ["The total is $1 628."]) == [False]
    assert communicated(["ABC"], ["", "abc here"]) == [True]


def test_premature_end_scores_zero() -> None:
    conv = oracle_conversation("7")
    conv.termination = "agent_error"
    v = verdict(conv)
    assert v["db_match"] and v["reward"] == 0.0 and not v["correct"]


def test_gold_hash_differs_from_initial_for_write_tasks() -> None:
    initial = AirlineDB().hash()
    for task in load_tasks():
        assert (gold_hash(task["id"]) != initial) == (category(task) == "write"), task["id"]
