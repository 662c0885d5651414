"""The public plugin API: lazy exports, plugin kinds, simple_workload, offline runs."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from importlib.metadata import EntryPoint
from typing import Any

import pytest

from agentic_bench import api
from agentic_bench.errors import ConfigError


def test_importing_the_api_is_cheap() -> None:
    code = ("import sys, agentic_bench.api as a; "
            "assert 'aiohttp' not in sys.modules and 'pydantic' not in sys.modules; "
            "a.Workload; assert 'agentic_bench.contracts' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_export_resolves() -> None:
    for name in api.__all__:
        assert getattr(api, name) is not None, name
    with pytest.raises(AttributeError):
        api.nope  # noqa: B018


@pytest.mark.parametrize("entry,expected", [
    ("my-qa", ("task", "my-qa")), ("scorer:exact", ("scorer", "exact")),
    ("tool_mode:xml", ("tool_mode", "xml")), ("weird:thing", ("task", "weird:thing")),
    ("reporter:", ("task", "reporter:")),
])
def test_kind_prefixes(entry: str, expected: tuple[str, str]) -> None:
    assert api.split_name(entry) == expected


def test_discover_and_load_by_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [EntryPoint("demo", "agentic_bench.tasks.sample_trace:task", api.GROUP),
           EntryPoint("scorer:mean", "agentic_bench.api:sample_accuracy", api.GROUP),
           EntryPoint("scorer:gone", "no_such_module_xyz:thing", api.GROUP)]
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: eps)
    found = api.discover_plugins()
    assert set(found) == {("task", "demo"), ("scorer", "mean"), ("scorer", "gone")}
    assert set(api.discover_plugins("scorer")) == {("scorer", "mean"), ("scorer", "gone")}
    assert api.load_plugin("scorer", "mean") is api.sample_accuracy
    assert api.load_plugin("task", "demo").name == "sample"
    with pytest.raises(ConfigError, match=r"'scorer:gone'.*failed to load"):
        api.load_plugin("scorer", "gone")
    with pytest.raises(ConfigError, match="unknown reporter plugin"):
        api.load_plugin("reporter", "x")


def echo_sessions() -> list[Any]:
    return [api.make_session("a", ["say yes"], category="c1", answer="yes"),
            api.make_session("b", ["say no", "again"], category="c2", answer="no")]


async def two_turns(rec: Any, session: Any) -> str:
    reply = ""
    for i, turn in enumerate(session.turns):
        rec.start_turn()
        result = await rec.llm({"messages": [{"role": "user", "content": turn.user}]}, i, 0)
        reply = result.content
        rec.end_turn(i)
    return reply


def exact(session: Any, outcome: str) -> dict[str, Any]:
    return {"correct": outcome == session.references.answer, "reply": outcome}


def test_simple_workload_end_to_end() -> None:
    workload = api.simple_workload("t", echo_sessions(), two_turns, exact,
                                   accuracy_target=0.5, default_slos={"ttft_p99_ms": 10.0})
    assert workload.default_slos == {"ttft_p99_ms": 10.0, "accuracy": 0.5}
    records, acc = asyncio.run(api.run_offline(workload, api.FakeTransport(lambda b: "yes")))
    assert acc is not None and acc["headline"] == 0.5 and acc["target"] == 0.5
    assert acc["by_category"]["c1"]["correct"] == 1 and acc["by_category"]["c2"]["total"] == 1
    sessions = [r for r in records if r["type"] == "session"]
    assert [s["turns"] for s in sessions] == [1, 2] and all(s["status"] == "ok"
                                                            for s in sessions)
    samples = [r for r in records if r["type"] == "sample"]
    assert [s["reply"] for s in samples] == ["yes", "yes"]


def test_a_crashing_session_is_an_error_record_not_a_crash() -> None:
    async def crash(rec: Any, session: Any) -> str:
        rec.start_turn()
        await rec.llm({"messages": []}, 0, 0)
        raise RuntimeError("plugin bug")

    workload = api.simple_workload("t", echo_sessions(), crash, exact)
    records, acc = asyncio.run(api.run_offline(workload, api.FakeTransport(lambda b: "x")))
    assert acc is not None and acc["correct"] == 0 and acc["unanswered"] == 2
    turn = next(r for r in records if r["type"] == "turn")
    assert turn["status"] == "error" and "plugin bug" in turn["error"]
    assert all(r["status"] == "error" for r in records if r["type"] == "session")


def test_a_crashing_scorer_keeps_the_session_timing() -> None:
    def bad(session: Any, outcome: str) -> dict[str, Any]:
        raise KeyError("answer")

    workload = api.simple_workload("t", echo_sessions()[:1], two_turns, bad)
    records, _ = asyncio.run(api.run_offline(workload, api.FakeTransport(lambda b: "x")))
    assert next(r for r in records if r["type"] == "session")["status"] == "ok"
    sample = next(r for r in records if r["type"] == "sample")
    assert not sample["correct"] and "KeyError" in sample["error"]


def test_tool_calls_from_the_fake_transport() -> None:
    fake = api.FakeTransport(lambda b: {"tool_calls": [{"name": "f", "arguments": {"x": 1}}]})
    result = asyncio.run(fake.chat({"messages": []}))
    assert result.ok and result.tool_calls[0]["arguments"] == '{"x": 1}'
    assert result.finish_reason == "tool_calls"


def test_no_sessions_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="no sessions"):
        api.simple_workload("t", [], two_turns)


def test_sample_accuracy_without_samples() -> None:
    assert api.sample_accuracy([{"type": "turn"}]) is None


def test_a_workload_whose_model_calls_tools_asks_for_tool_routing() -> None:
    """#34: ``tool_calls=True`` sends the embedded endpoint to our tool-call routing (tau2's
    agent, Agentic Edge's native mode); by default a plugin's workload runs on llama-server."""
    assert api.simple_workload("t", echo_sessions(), two_turns, tool_calls=True).tool_routing
    assert not api.simple_workload("t", echo_sessions(), two_turns).tool_routing
