"""Multi-turn data, the simulated-API environment and the multi-turn checker wrapper."""

from __future__ import annotations

import builtins
import importlib.util
import json

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge import (
    MULTI_TURN_SUBSETS,
    ApiEnvironment,
    MultiTurnSample,
    all_tools,
    check_multi_turn,
    functions_at_turn,
    load_multi_turn,
    parse_call,
    render_call,
    tools_at_turn,
    turn_messages,
)

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None, reason="bfcl-eval is not installed"
)


def _gt_as_model(sample: MultiTurnSample) -> list[list[list[str]]]:
    """Ground truth in the checker's per-turn, per-step shape (one step per turn)."""
    return [[list(turn)] if turn else [] for turn in sample.ground_truth]


def test_load_multi_turn() -> None:
    for subset in MULTI_TURN_SUBSETS:
        samples = load_multi_turn(subset)
        assert len(samples) == 200
        first = samples[0]
        assert first.id == f"{subset}_0"
        assert len(first.turns) == len(first.ground_truth)
        assert first.involved_classes and first.functions
    assert len(load_multi_turn("multi_turn_base", limit=3)) == 3
    assert load_multi_turn("multi_turn_long_context", 1)[0].long_context
    with pytest.raises(ConfigError):
        load_multi_turn("multi_turn_composite")


def test_miss_func_holdout() -> None:
    sample = load_multi_turn("multi_turn_miss_func", 1)[0]
    assert set(sample.missed_functions) == {3}
    held = [d["name"] for d in sample.missed_functions[3]]
    assert held == ["sort"]
    names = lambda turn: {d["name"] for d in functions_at_turn(sample, turn)}  # noqa: E731
    assert "sort" not in names(0) and "sort" not in names(2)
    assert "sort" in names(3) and "sort" in names(4)
    assert sample.turns[3] == [] and sample.ground_truth[2] == []
    assert "updated some more functions" in turn_messages(sample, 3)[0]["content"]
    assert turn_messages(sample, 0)[0]["content"].startswith("Move 'final_report.pdf'")
    tool_names = lambda turn: {t["function"]["name"] for t in tools_at_turn(sample, turn)}  # noqa: E731
    assert "sort" not in tool_names(2) and "sort" in tool_names(3)
    assert {t["function"]["name"] for t in all_tools(sample)} == names(4)


def test_parse_call() -> None:
    assert parse_call("mv(source='a', destination='b')") == (
        "mv",
        [],
        {"source": "a", "destination": "b"},
    )
    assert parse_call("sort('final_report.pdf')") == ("sort", ["final_report.pdf"], {})
    for bad in ("os.system('x')", "f(x=open('y'))", "f(**kw)", "1 + 1", "f(x="):
        with pytest.raises(ValueError):
            parse_call(bad)


def test_environment_executes_ground_truth() -> None:
    for subset in MULTI_TURN_SUBSETS:
        for sample in load_multi_turn(subset, 3):
            env = ApiEnvironment.for_sample(sample)
            for turn in sample.ground_truth:
                for call in turn:
                    result = env.execute_call(call)
                    assert isinstance(result, str)
    sample = load_multi_turn("multi_turn_base", 1)[0]
    env = ApiEnvironment.for_sample(sample)
    assert json.loads(env.execute("cd", {"folder": "document"})) == {
        "current_working_directory": "document"
    }
    assert env.execute_call("mkdir(dir_name='temp')") == "None"
    moved = env.execute_call("mv(source='final_report.pdf', destination='temp')")
    assert "moved" in moved
    assert env.owner("post_tweet") == "TwitterAPI"
    assert env.bind_arguments("sort", ["final_report.pdf"]) == {"file_name": "final_report.pdf"}


def test_environment_refuses_unknown_and_non_literal_calls() -> None:
    env = ApiEnvironment.for_sample(load_multi_turn("multi_turn_base", 1)[0])
    assert env.execute("open", {"file": "/etc/passwd"}).startswith("Error during execution")
    assert env.execute("_load_scenario", {}).startswith("Error during execution")
    assert env.execute_call("__import__('os')").startswith("Error during execution")
    assert env.execute_call("cd(folder=str(1))").startswith("Error during execution")
    assert env.execute("cd", {"nonsense": 1}).startswith("Error during execution")
    with pytest.raises(ConfigError):
        ApiEnvironment(["NoSuchAPI"])


def test_checker_accepts_ground_truth() -> None:
    for subset in MULTI_TURN_SUBSETS:
        for sample in load_multi_turn(subset, 5):
            verdict = check_multi_turn(sample, _gt_as_model(sample))
            assert verdict.valid, (sample.id, verdict.error)
    # decoded-dict calls work too, and the same sample can be checked twice
    sample = load_multi_turn("multi_turn_base", 1)[0]
    decoded = []
    for turn in sample.ground_truth:
        calls = []
        for call in turn:
            name, args, kwargs = parse_call(call)
            calls.append(
                {name: ApiEnvironment.for_sample(sample).bind_arguments(name, args, kwargs)}
            )
        decoded.append([calls])
    assert check_multi_turn(sample, decoded).valid
    assert check_multi_turn(sample, decoded).valid


def test_checker_rejects_wrong_runs() -> None:
    sample = load_multi_turn("multi_turn_base", 1)[0]
    model = _gt_as_model(sample)
    wrong = [list(map(list, turn)) for turn in model]
    wrong[0][0][1] = "mkdir(dir_name='tmp')"
    verdict = check_multi_turn(sample, wrong)
    assert not verdict.valid and verdict.error_type
    empty_turn = [list(turn) for turn in model]
    empty_turn[1] = []
    assert check_multi_turn(sample, empty_turn).error_type == "multi_turn:empty_turn_model_response"
    assert check_multi_turn(sample, model[:-1]).error_type == "multi_turn:force_terminated"


def test_render_call_only_builds_safe_strings() -> None:
    allowed = frozenset({"cd", "mkdir"})
    assert render_call("cd(folder='a')", allowed) == "cd(folder='a')"
    assert render_call({"cd": {"folder": "a"}}, allowed) == "cd(folder='a')"
    assert render_call({"cd": '{"folder": "a"}'}, allowed) == "cd(folder='a')"
    assert render_call({"open": {"file": "x"}}, allowed) is None
    injected = {"cd": {"folder='a', x=__import__('builtins').setattr(1)#": 1}}
    assert render_call(injected, allowed) is None
    assert render_call({"cd": {"folder": float("nan")}}, allowed) is None
    assert render_call({"cd": {"folder": object()}}, allowed) is None
    assert render_call("cd(folder=__import__('os'))", allowed) is None
    sample = load_multi_turn("multi_turn_base", 1)[0]
    model = _gt_as_model(sample)
    model[0][0].append("__import__('builtins').setattr(__import__('builtins'), 'AE_MT', 1)")
    check_multi_turn(sample, model)
    assert not hasattr(builtins, "AE_MT")
