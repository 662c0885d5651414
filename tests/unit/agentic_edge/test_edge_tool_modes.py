"""Request builders and reply parsers of the three tool-calling modes."""

from __future__ import annotations

import builtins
import copy
import importlib.util
import json
from typing import Any

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge import (
    TOOL_MODES,
    BfclSample,
    build_request,
    load_subset,
    parse_reply,
    score_single,
)
from agentic_bench.tasks.agentic_edge.tools_convert import sanitize_name

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None, reason="bfcl-eval is not installed"
)


def _dotted_sample() -> BfclSample:
    return next(s for s in load_subset("simple_python") if "." in s.functions[0]["name"])


def _tool_call(name: str, arguments: object, call_id: str = "c1") -> dict[str, object]:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


# --- requests -----------------------------------------------------------------------------


def test_native_request_fields() -> None:
    sample = _dotted_sample()
    body = build_request(sample, "native")
    # MLPerf's request (bfcl_v4/__init__.py 576-612; online_edge_full_run.yaml; adapter 74-88)
    assert list(body) == ["messages", "temperature", "max_completion_tokens", "seed", "tools",
                          "tool_choice"]
    assert (body["temperature"], body["max_completion_tokens"], body["seed"]) == (0, 1024, 42)
    assert body["tool_choice"] == "auto"
    assert body["messages"] == sample.messages and body["messages"] is not sample.messages
    fn = body["tools"][0]["function"]
    assert body["tools"][0]["type"] == "function"
    assert fn["name"] == sample.functions[0]["name"].replace(".", "_")
    assert fn["parameters"]["type"] == "object"
    assert "Python 3 syntax" not in fn["description"]  # no BFCL language hints
    assert "." in sample.functions[0]["name"]  # the sample itself is not modified


def _reference_tools(functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """bfcl_v4/__init__.py 91-109: bfcl-eval's convert_to_tool of the raw docs."""
    from bfcl_eval.constants.enums import ModelStyle
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
    from bfcl_eval.model_handler.utils import convert_to_tool

    return convert_to_tool(copy.deepcopy(functions), GORILLA_TO_OPENAPI,
                           ModelStyle.OPENAI_COMPLETIONS)


def test_native_requests_of_the_995_match_the_reference() -> None:
    from agentic_bench.tasks.agentic_edge import sample_single_turn

    hinted = 0
    for sample in sample_single_turn():
        body = build_request(sample, "native")
        assert body["tools"] == _reference_tools(sample.functions), sample.id
        hinted += sum("syntax" in (t["function"].get("description") or "")
                      for t in body["tools"])
    assert hinted == 0


def test_native_java_tools_keep_bfcl_types() -> None:
    sample = load_subset("simple_java")[0]
    params = build_request(sample, "native")["tools"][0]["function"]["parameters"]
    assert params == _reference_tools(sample.functions)[0]["function"]["parameters"]


def test_json_schema_request_both_styles() -> None:
    sample = _dotted_sample()
    body = build_request(sample, "json-schema")
    assert set(body) == {"messages", "response_format"}
    assert body["messages"][0]["role"] == "system"
    assert sample.functions[0]["name"] in body["messages"][0]["content"]
    fmt = body["response_format"]
    assert fmt["type"] == "json_object"
    item = fmt["schema"]["properties"]["tool_calls"]["items"]
    assert item["properties"]["name"]["enum"] == [sanitize_name(sample.functions[0]["name"])]
    assert item["required"] == ["name", "arguments"]
    assert item["properties"]["arguments"]["required"] == sample.functions[0]["parameters"].get(
        "required", [])
    openai_style = build_request(sample, "json-schema", style="json_schema")["response_format"]
    assert openai_style["type"] == "json_schema"
    assert openai_style["json_schema"]["schema"] == fmt["schema"]
    with pytest.raises(ConfigError):
        build_request(sample, "json-schema", style="yaml")  # type: ignore[arg-type]


def test_json_schema_constrains_each_function_to_its_parameters() -> None:
    sample = next(s for s in load_subset("multiple") if len(s.functions) > 1)
    fmt = build_request(sample, "json-schema")["response_format"]
    variants = fmt["schema"]["properties"]["tool_calls"]["items"]["anyOf"]
    assert len(variants) == len(sample.functions)
    for variant, fn in zip(variants, sample.functions, strict=True):
        assert variant["properties"]["name"]["enum"] == [sanitize_name(fn["name"])]
        assert set(variant["properties"]["arguments"]["properties"]) == set(
            fn["parameters"]["properties"])


def test_json_schema_without_functions_admits_only_the_empty_list() -> None:
    sample = next(s for s in load_subset("live_irrelevance") if not s.functions)
    calls = build_request(sample, "json-schema")["response_format"]["schema"]["properties"][
        "tool_calls"]
    assert calls["maxItems"] == 0 and "anyOf" not in calls["items"]


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                    reason="llama-cpp-python is not installed")
def test_every_json_schema_grammar_has_no_empty_rule() -> None:
    """An empty rule (``x ::= ``) is a grammar llama.cpp cannot parse, and its server crashed
    on it (SIGSEGV) in the full json-schema run: every sample's grammar must be well formed."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from agentic_bench.tasks.agentic_edge import load_single_turn

    bad = []
    for sample in load_single_turn():
        schema = build_request(sample, "json-schema")["response_format"]["schema"]
        rules = json_schema_to_gbnf(json.dumps(schema)).splitlines()
        if any(line.rstrip().endswith("::=") for line in rules):
            bad.append(sample.id)
    assert bad == []


def test_prompt_request_uses_bfcl_system_prompt() -> None:
    sample = load_subset("simple_python")[0]
    body = build_request(sample, "prompt")
    assert set(body) == {"messages"}
    system = body["messages"][0]
    assert system["role"] == "system"
    assert "[func_name1(params_name1=params_value1" in system["content"]
    assert sample.functions[0]["name"] in system["content"]
    assert body["messages"][1:] == sample.messages
    with_system = next(s for s in load_subset("live_simple") if s.messages[0]["role"] == "system")
    merged = build_request(with_system, "prompt")["messages"]
    assert len(merged) == len(with_system.messages)
    assert merged[0]["content"].endswith(with_system.messages[0]["content"])


def test_unknown_mode() -> None:
    with pytest.raises(ConfigError):
        build_request(load_subset("simple_python")[0], "xml")  # type: ignore[arg-type]
    assert TOOL_MODES == ("native", "json-schema", "prompt")


# --- native replies -------------------------------------------------------------------------


def test_native_parser() -> None:
    sample = load_subset("simple_python")[0]
    reply = parse_reply(
        sample,
        "native",
        content="Sure!",
        tool_calls=[_tool_call("calculate_triangle_area", {"base": 10, "height": 5})],
    )
    assert reply.ok and reply.calls == [{"calculate_triangle_area": {"base": 10, "height": 5}}]
    assert score_single(sample, reply).valid
    assert parse_reply(sample, "native", content="The area is 25.").calls == []
    bad = parse_reply(sample, "native", tool_calls=[_tool_call("f", "{not json")])
    assert not bad.ok and bad.calls == [] and "invalid tool call" in (bad.error or "")
    assert not parse_reply(sample, "native", tool_calls=[_tool_call("f", "[1, 2]")]).ok
    assert not parse_reply(sample, "native", tool_calls=["oops"]).ok


def test_native_parser_maps_sanitised_names_back() -> None:
    sample = _dotted_sample()
    original = sample.functions[0]["name"]
    call = _tool_call(original.replace(".", "_"), {"x": 1})
    reply = parse_reply(sample, "native", tool_calls=[call])
    assert list(reply.calls[0]) == [original]


# --- json-schema replies --------------------------------------------------------------------


def test_json_parser_shapes() -> None:
    sample = _dotted_sample()
    original = sample.functions[0]["name"]
    sanitised = original.replace(".", "_")
    obj = json.dumps({"tool_calls": [{"name": sanitised, "arguments": {"n": 5}}]})
    assert parse_reply(sample, "json-schema", content=obj).calls == [{original: {"n": 5}}]
    bare = json.dumps([{"name": original, "arguments": {"n": 5}}])
    assert parse_reply(sample, "json-schema", content=bare).calls == [{original: {"n": 5}}]
    fenced = "```json\n" + bare + "\n```"
    assert parse_reply(sample, "json-schema", content=fenced).calls == [{original: {"n": 5}}]
    string_args = json.dumps({"tool_calls": [{"name": original, "arguments": '{"n": 5}'}]})
    assert parse_reply(sample, "json-schema", content=string_args).calls == [{original: {"n": 5}}]
    empty = parse_reply(sample, "json-schema", content='{"tool_calls": []}')
    assert empty.ok and empty.calls == []


@pytest.mark.parametrize(
    "content",
    [None, "", "I cannot help", '{"answer": 1}', '{"tool_calls": [{"arguments": {}}]}', "[1, 2]"],
)
def test_json_parser_failures_are_reasons(content: str | None) -> None:
    reply = parse_reply(load_subset("simple_python")[0], "json-schema", content=content)
    assert not reply.ok and reply.calls == [] and reply.error


# --- prompt-mode replies --------------------------------------------------------------------


def test_prompt_parser_python() -> None:
    sample = load_subset("simple_python")[0]
    reply = parse_reply(
        sample, "prompt", content="[calculate_triangle_area(base=10, height=5, unit='units')]"
    )
    assert reply.ok
    assert reply.calls == [{"calculate_triangle_area": {"base": 10, "height": 5, "unit": "units"}}]
    bare = parse_reply(sample, "prompt", content="calculate_triangle_area(base=10, height=5)")
    assert score_single(sample, bare).valid
    arithmetic = parse_reply(
        sample, "prompt", content="[calculate_triangle_area(base=5+5, height=5)]"
    )
    assert arithmetic.calls[0]["calculate_triangle_area"]["base"] == 10
    dotted = parse_reply(sample, "prompt", content="[math.factorial(number=5)]")
    assert dotted.calls == [{"math.factorial": {"number": 5}}]


@pytest.mark.parametrize(
    "content",
    [
        "The area of the triangle is 25 square units.",
        "",
        "[f(a=(__import__('builtins').setattr(__import__('builtins'), 'AE_PWNED', 1) or 1) + 1)]",
        "[f(a=(lambda: 1))]",
        "[f(a=9**9**9)]",
        "[f(a='x' * 10)]",
    ],
)
def test_prompt_parser_refuses_without_raising(content: str) -> None:
    reply = parse_reply(load_subset("simple_python")[0], "prompt", content=content)
    assert not reply.ok and reply.calls == [] and reply.error
    assert not hasattr(builtins, "AE_PWNED")


def test_prompt_parser_java_and_irrelevance() -> None:
    java = load_subset("simple_java")[0]
    name = java.functions[0]["name"]
    reply = parse_reply(java, "prompt", content=f'[{name}(a="x", flag=true)]')
    assert reply.ok and reply.calls == [{name: {"a": "x", "flag": "true"}}]
    irrelevant = load_subset("irrelevance")[0]
    prose = parse_reply(irrelevant, "prompt", content="None of the functions can be used.")
    assert score_single(irrelevant, prose).valid
    call = parse_reply(irrelevant, "prompt", content=f"[{irrelevant.functions[0]['name']}(x=1)]")
    assert not score_single(irrelevant, call).valid
