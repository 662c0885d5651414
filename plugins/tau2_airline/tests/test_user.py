"""The scripted customer and the LLM customer on a second endpoint."""

from __future__ import annotations

import asyncio

import pytest
from agentic_bench.api import FakeTransport, run_offline

from tau2_airline_bench.data import task_by_id
from tau2_airline_bench.user import (
    CONFIRM,
    STOP,
    first_person,
    scripted_turns,
    user_system_prompt,
)
from tau2_airline_bench.workload import build_workload

from .conftest import task_args


@pytest.mark.parametrize("text,expected", [
    ("You want to cancel your reservation.", "I want to cancel my reservation."),
    ("Your user id is x.", "My user id is x."),
    ("You are Emma Kim.", "I am Emma Kim."),
    ("If the agent tells you that it is not possible", "If the agent tells me that it is"
     " not possible"),
    ("If the agent says you cannot remove one", "If the agent says I cannot remove one"),
    ("You're fine if the agent corrects you.", "I'm fine if the agent corrects me."),
])
def test_first_person(text: str, expected: str) -> None:
    assert first_person(text) == expected


def test_script_follows_the_instructions() -> None:
    turns = scripted_turns(task_by_id("7"), confirmations=2)
    assert turns[0].startswith("Hi! I want to cancel my upcoming flights")
    assert "daiki_muller_1116" in turns[1]
    assert turns[-2:] == [CONFIRM, CONFIRM] and len(turns) == 5
    assert "your" not in " ".join(turns).lower().split()


def test_user_prompt_is_tau2s_layout() -> None:
    prompt = user_system_prompt(task_by_id("0"), "GUIDELINES")
    assert prompt.startswith("GUIDELINES\n\n<scenario>\nInstructions:\n\tDomain: airline\n")
    assert prompt.endswith("</scenario>")


def test_llm_user_on_the_same_endpoint() -> None:
    """--user-endpoint same: customer calls are user stages; ###STOP### ends the task."""
    said: list[str] = []

    def reply(body: dict) -> str:
        system = body["messages"][0]["content"]
        if "<scenario>" in system:  # the customer model
            said.append("u")
            return "I want to cancel EHGLP3." if len(said) < 3 else f"Thanks. {STOP}"
        return "Sorry, I cannot cancel that reservation."

    workload = build_workload(task_args("--tasks", "0", "--user-endpoint", "same"))
    records, acc = asyncio.run(run_offline(workload, FakeTransport(reply)))
    stages = [r for r in records if r.get("kind") == "user"]
    turns = [r for r in records if r.get("type") == "turn"]
    assert len(stages) == 3 and len(turns) == 2 and all(t["status"] == "ok" for t in turns)
    sample = next(r for r in records if r.get("type") == "sample")
    assert sample["termination"] == "user_stop" and sample["correct"]
    assert acc is not None and acc["user"] == "llm:same"


def test_llm_user_that_never_stops_hits_max_turns() -> None:
    def reply(body: dict) -> str:
        return "Please continue." if "<scenario>" in body["messages"][0]["content"] else "Ok."

    workload = build_workload(task_args("--tasks", "0", "--user-endpoint", "same",
                                        "--max-user-turns", "2"))
    records, _ = asyncio.run(run_offline(workload, FakeTransport(reply)))
    sample = next(r for r in records if r.get("type") == "sample")
    assert sample["termination"] == "max_turns" and not sample["correct"]
