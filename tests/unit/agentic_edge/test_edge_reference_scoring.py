"""MLPerf's per-sample scoring rules (mlcommons/endpoints ea332753), one test per edge case.

Each expected value below is what the reference's code gives for the input, worked out from
the cited lines: ``evaluation/extractor.py`` (FunctionCallExtractor), ``evaluation/
bfcl_v4_scorer.py`` (get_scoring_outputs, _score_hallucination, _score_ast) and
``core/types.py`` (merge_tool_calls, TextModelOutput.__str__).
"""

from __future__ import annotations

import json

import pytest

from agentic_bench.tasks.agentic_edge import load_subset, oracle_decoded
from agentic_bench.tasks.agentic_edge.reference_scoring import (
    checker_input,
    extract_calls,
    has_structured_calls,
    score_reply,
    scoring_text,
)
from agentic_bench.tasks.agentic_edge.tools_convert import sanitize_name

pytest.importorskip("bfcl_eval")


def _call(name: str, arguments: str, cid: str = "c0") -> dict[str, str]:
    return {"id": cid, "name": name, "arguments": arguments}


def test_scored_text_is_the_tool_calls_json_else_reasoning_then_content() -> None:
    # bfcl_v4_scorer.py 139-143: tool calls win over any prose around them
    text = scoring_text("Sure, here it is.", [_call("f", '{"a": 1}')], reasoning="think")
    assert json.loads(text) == [{"type": "function", "function": {"arguments": '{"a": 1}',
                                                                  "name": "f"}, "id": "c0"}]
    # core/types.py 152-173: reasoning then output, no separator
    assert scoring_text("answer", [], reasoning="think ") == "think answer"
    assert scoring_text("", []) == ""


def test_extractor_priority_1_tool_calls_json() -> None:
    # extractor.py 321-325 (its own doctest)
    text = ('[{"id":"call_1","type":"function","function":{"name":"get_weather",'
            '"arguments":"{\\"city\\":\\"London\\"}"}}]')
    assert extract_calls(text) == [{"name": "get_weather", "arguments": {"city": "London"}}]
    # malformed arguments stay a string (extractor.py 444-448)
    bad = scoring_text("", [_call("f", '{"a": ')])
    assert extract_calls(bad) == [{"name": "f", "arguments": '{"a": '}]
    # ... and become {} before the checker (bfcl_v4_scorer.py 219-225)
    assert checker_input(extract_calls(bad)) == [{"f": {}}]


def test_extractor_priority_2_and_3_and_nothing() -> None:
    assert extract_calls('[{"name": "f", "arguments": {"x": 2}}]') == [
        {"name": "f", "arguments": {"x": 2}}]
    # extractor.py 327-330 (its own doctest)
    assert extract_calls("get_weather(city='London')") == [
        {"name": "get_weather", "arguments": {"city": "London"}}]
    # skip list, nested calls consumed by the outer one, signatures ignored
    assert extract_calls("print(x) then f(a=g(1), b=[1, 2])") == [
        {"name": "f", "arguments": {"a": "g(1)", "b": [1, 2]}}]
    assert extract_calls("The signature is f(city, country: str)") == []
    assert extract_calls("call f(a=1, ") == []
    assert extract_calls("f(a=1, 2)") == [{"name": "f", "arguments": {"_raw": "a=1, 2"}}]
    assert extract_calls("just prose") == []
    assert extract_calls("   ") == []


def test_irrelevance_fails_any_structured_call_even_with_unparsable_arguments() -> None:
    sample = load_subset("irrelevance")[0]
    malformed = scoring_text("", [_call("f", "{not json")])
    assert has_structured_calls(malformed)
    verdict, _ = score_reply(sample, malformed)
    assert not verdict.valid and verdict.error_type == "irrelevance_error"
    # text — even text naming a function call — is not a structured call
    assert score_reply(sample, "I cannot help. f(a=1)")[0].valid
    assert score_reply(sample, "")[0].valid
    # the reference's documented limitation: text that *is* tool-call JSON counts as a call
    assert not score_reply(sample, '[{"function": {"name": "f"}}]')[0].valid


def test_native_text_only_reply_is_parsed_for_calls() -> None:
    sample = load_subset("simple_python")[0]
    (name, args), = oracle_decoded(sample)[0].items()
    text = f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"
    verdict, calls = score_reply(sample, text)
    assert calls and calls[0]["name"] == name
    assert verdict.valid, verdict


def test_structured_oracle_answers_pass_and_wrong_ones_fail() -> None:
    for subset in ("simple_python", "multiple", "parallel", "live_simple"):
        sample = load_subset(subset)[1]
        calls = [_call(sanitize_name(n), json.dumps(a), f"c{i}")
                 for i, c in enumerate(oracle_decoded(sample)) for n, a in c.items()]
        assert score_reply(sample, scoring_text("", calls))[0].valid, subset
        assert not score_reply(sample, scoring_text("no call", []))[0].valid, subset


def test_text_calls_go_through_the_references_json_round_trip() -> None:
    """#31 Edge item 3: the extractor returns ``json.dumps(calls)`` (extractor.py 554-555) and
    the scorer ``json.loads`` it (bfcl_v4_scorer.py 194-197): a tuple argument is a list by the
    time ast_checker sees it. simple_python_13 (interval: array) is valid there, and was
    ``type_error:simple`` here."""
    sample = next(x for x in load_subset("simple_python") if x.id == "simple_python_13")
    text = "calculate_area_under_curve(function='x**2', interval=(1.0, 3.0))"
    assert extract_calls(text) == [{"name": "calculate_area_under_curve",
                                    "arguments": {"function": "x**2", "interval": [1.0, 3.0]}}]
    verdict, _ = score_reply(sample, text)
    assert verdict.valid, verdict
    assert extract_calls("f(d={1: 'a'})") == [{"name": "f", "arguments": {"d": {"1": "a"}}}]


def test_arguments_json_cannot_encode_score_zero_for_that_sample_alone() -> None:
    """The reference's json.dumps raises on a set and aborts its whole scoring pass; here the
    one sample scores 0 with the reason (the module's named departure)."""
    sample = next(x for x in load_subset("simple_python") if x.id == "simple_python_13")
    verdict, calls = score_reply(sample, "calculate_area_under_curve(function={1, 2})")
    assert not verdict.valid and verdict.error_type == "extractor" and calls == []
    assert "not JSON-serializable" in (verdict.error or "")
