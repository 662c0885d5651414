from __future__ import annotations

from pathlib import Path

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.replay import ThinkPolicy, calls_match, messages_before, recorded_tool_result
from agentic_bench.replay.history import with_salt
from agentic_bench.trace import ToolCall, TraceFile

SAMPLE = Path(__file__).resolve().parents[3] / "traces" / "sample.jsonl"


@pytest.fixture(scope="module")
def sessions() -> list:
    return list(TraceFile(SAMPLE))


def test_derived_history_for_tool_turns(sessions: list) -> None:
    s = sessions[0]
    first = messages_before(s, 0, 0)
    assert [m["role"] for m in first] == ["system", "user"]
    second = messages_before(s, 0, 2)
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    assert second[2]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert second[3]["tool_call_id"] == "call_1"
    later = messages_before(s, 1, 0)
    assert [m["role"] for m in later] == ["system", "user", "assistant", "tool", "assistant",
                                          "user"]


def test_retrieved_documents_become_context(sessions: list) -> None:
    msgs = messages_before(sessions[1], 0, 3)
    assert msgs[-1]["content"].startswith("Context:")
    assert "[1] Vienna:" in msgs[-1]["content"] and "Salzburg" not in msgs[-1]["content"]


def test_salt_prefixes_first_message(sessions: list) -> None:
    msgs = with_salt(messages_before(sessions[0], 0, 0), "ab12-3")
    assert msgs[0]["content"].startswith("[ab12-3] ")
    assert messages_before(sessions[0], 0, 0)[0]["content"].startswith("You are")


def test_calls_match_and_recorded_results(sessions: list) -> None:
    want = [ToolCall(name="get_weather", arguments={"city": "Paris"})]
    assert calls_match([{"name": "get_weather", "arguments": '{"city": "Paris"}'}], want)
    assert not calls_match([{"name": "get_weather", "arguments": '{"city": "Rome"}'}], want)
    assert not calls_match([], want)
    assert calls_match([], []) is None
    assert "light rain" in recorded_tool_result(sessions[0], 0, "get_weather", {"city": "Paris"})
    assert recorded_tool_result(sessions[0], 0, "get_weather", {"city": "Rome"}) is None


def test_think_policy() -> None:
    assert ThinkPolicy.parse("recorded").wait_s(2.0) == 2.0
    assert ThinkPolicy.parse("none").wait_s(2.0) == 0.0
    assert ThinkPolicy.parse("scaled:0.5").wait_s(2.0) == 1.0
    for bad in ("scaled:-1", "fast", "scaled:x"):
        with pytest.raises(ConfigError):
            ThinkPolicy.parse(bad)
