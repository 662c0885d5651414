"""The pure parts of the chatml-function-calling-stream handler (no model needed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("jinja2")

from agentic_bench.endpoint import chatml_tools

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def test_tools_listed_even_without_a_system_message() -> None:
    prompt = chatml_tools.render_prompt([{"role": "user", "content": "Weather in Paris?"}], TOOLS)
    assert prompt.startswith("<|im_start|>system\n")
    assert "functions.get_weather:" in prompt
    assert prompt.endswith("<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n")


def test_no_tools_is_plain_chatml() -> None:
    prompt = chatml_tools.render_prompt(
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}], None
    )
    assert prompt == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


CALL = {"name": "get_weather", "arguments": '{"city": "Paris"}'}


def test_tool_results_and_null_tool_calls_render() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": CALL}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny, 21 C"},
        {"role": "assistant", "content": "It is sunny.", "tool_calls": None},
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
    ]
    prompt = chatml_tools.render_prompt(messages, TOOLS)
    assert 'functions.get_weather:\n{"city": "Paris"}<|im_end|>' in prompt
    assert "<|im_start|>tool\nsunny, 21 C<|im_end|>" in prompt
    assert "message:\nIt is sunny.<|im_end|>" in prompt
    assert "<|im_start|>user\nThanks<|im_end|>" in prompt


def test_routing_grammar() -> None:
    g = chatml_tools.routing_grammar(["a", "b"], allow_message=True, follow_up=False)
    assert g == 'root ::= functions | "message:"\nfunctions ::= "functions.a:" | "functions.b:"\n'
    g = chatml_tools.routing_grammar(["a"], allow_message=False, follow_up=False)
    assert g.startswith("root ::= functions\n")


def test_aggregate_builds_a_chat_completion() -> None:
    out = chatml_tools._Chunker("smollm2")
    chunks = [
        out.chunk({"role": "assistant", "content": ""}),
        out.chunk({"tool_calls": [{"index": 0, "id": "c", "type": "function",
                                   "function": {"name": "get_weather", "arguments": '{"ci'}}]}),
        out.chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ty": "Paris"}'}}]}),
        out.chunk({}, "tool_calls"),
        out.usage(10, 5),
    ]  # fmt: skip
    response = chatml_tools._aggregate(iter(chunks))
    message = response["choices"][0]["message"]
    assert message["content"] is None
    assert message["tool_calls"][0]["function"] == {
        "name": "get_weather", "arguments": '{"city": "Paris"}'
    }  # fmt: skip
    assert response["choices"][0]["finish_reason"] == "tool_calls"
    assert response["usage"] == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
                                 "prompt_tokens_details": {"cached_tokens": 0}}
    json.dumps(response)


def test_json_schema_response_format_maps_to_json_object() -> None:
    rf = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    assert chatml_tools._json_object_format(rf) == {
        "type": "json_object", "schema": {"type": "object"}
    }  # fmt: skip
    assert chatml_tools._json_object_format({"type": "text"}) == {"type": "text"}


def test_unknown_forced_tool_is_rejected_eagerly() -> None:
    with pytest.raises(ValueError, match="nope"):
        chatml_tools.chatml_function_calling_stream(
            object(), [], tools=TOOLS,
            tool_choice={"type": "function", "function": {"name": "nope"}}, stream=True,
        )  # fmt: skip


def test_assistant_message_without_tool_calls_key_renders() -> None:
    from agentic_bench.endpoint.chatml_tools import render_prompt

    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    prompt = render_prompt([{"role": "user", "content": "hi"},
                            {"role": "assistant", "content": "hello"},
                            {"role": "user", "content": "again"}], tools)
    assert "hello" in prompt and prompt.rstrip().endswith("assistant")


def test_overflow_is_an_error_event_in_the_stream_and_a_value_error_otherwise() -> None:
    event = chatml_tools.overflow_event(5415, 4096, 1024)
    assert event["error"]["code"] == "context_length_exceeded"
    assert "maximum context length is 4096 tokens" in event["error"]["message"]
    with pytest.raises(ValueError, match=r"Requested tokens \(5415\) exceed context window of "
                                         r"4096"):
        chatml_tools._aggregate(iter([event]))


def test_cached_prefix_is_what_llama_cpp_reuses() -> None:
    assert chatml_tools.cached_prefix([], [1, 2, 3]) == 0
    assert chatml_tools.cached_prefix([1, 2, 3], [1, 2, 3, 4, 5]) == 3
    assert chatml_tools.cached_prefix([1, 2, 9, 9], [1, 2, 3, 4]) == 2
    assert chatml_tools.cached_prefix([1, 2, 3], [1, 2, 3]) == 2  # the last token is evaluated
