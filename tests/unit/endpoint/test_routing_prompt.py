"""#45 item 4: the routing prompt in plain Python is, character for character, what the
llama-cpp-python shim's Jinja template rendered (so the routing on ``llama-server`` prompts the
model as the shim did, without Jinja or llama-cpp-python). The shim was removed on 2026-12-06;
:data:`SHIM_RENDERED` are its renderings of :data:`CONVERSATIONS`, taken from its template
(``agentic_bench/endpoint/chatml_tools.py`` at commit 8447c1e) just before."""

from __future__ import annotations

from typing import Any

import pytest

from agentic_bench.endpoint.routing_prompt import html_safe_json, render_routing_prompt

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "required": ["city"],
    "properties": {"city": {"type": "string", "description": "a <city> & 'its' country"}}}}}
CALL = {"id": "c1", "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
CONVERSATIONS: list[tuple[list[dict[str, Any]], list[dict[str, Any]] | None]] = [
    ([{"role": "user", "content": "What is the weather in Paris?"}], [WEATHER]),
    ([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}], [WEATHER]),
    ([{"role": "user", "content": [{"type": "text", "text": "Paris?"}]},
      {"role": "assistant", "content": None, "tool_calls": [CALL, CALL]},
      {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
      {"role": "assistant", "content": "It is sunny."},
      {"role": "user", "content": "Thanks"}], [WEATHER]),
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "Hi \"there\""},
      {"role": "assistant", "content": "Hello"}], None),
]


def test_tojson_escapes_as_jinja_does() -> None:
    assert html_safe_json({"b": "<&'>", "a": 1}) == '{"a": 1, "b": "\\u003c\\u0026\\u0027\\u003e"}'


def test_a_tool_listing_and_the_reply_formats() -> None:
    prompt = render_routing_prompt(CONVERSATIONS[0][0], [WEATHER])
    assert prompt.startswith("<|im_start|>system\n\n\nYou have access to the following functions:")
    assert "\nfunctions.get_weather:\n{\"properties\": " in prompt
    assert "begin the message with 'message:'" in prompt
    assert prompt.endswith("What is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n")


def test_recorded_calls_render_as_named_calls() -> None:
    prompt = render_routing_prompt(CONVERSATIONS[2][0], [WEATHER])
    assert ('<|im_start|>assistant\nfunctions.get_weather:\n{"city": "Paris"}'
            'functions.get_weather:\n{"city": "Paris"}<|im_end|>\n') in prompt
    assert "<|im_start|>tool\nsunny<|im_end|>\n" in prompt
    assert "<|im_start|>assistant\nmessage:\nIt is sunny.<|im_end|>\n" in prompt


SHIM_RENDERED = [
    (
        '<|im_start|>system\n'
        '\n'
        '\n'
        'You have access to the following functions:\n'
        '\n'
        'functions.get_weather:\n'
        '{"properties": {"city": {"description": "a \\u003ccity\\u003e \\u0026 \\u0027its\\u00'
        '27 country", "type": "string"}}, "required": ["city"], "type": "object"}\n'
        '\n'
        '\n'
        'You can respond to users messages with either a single message or one or more fu'
        'nction calls.\n'
        '\n'
        "To respond with a message begin the message with 'message:', use the following f"
        'ormat:\n'
        '\n'
        'message:\n'
        '<message>\n'
        '\n'
        "To respond with one or more function calls begin the message with 'functions.<fu"
        "nction_name>:', use the following format:\n"
        '\n'
        'functions.<function_name>:\n'
        '{ "arg1": "value1", "arg2": "value2" }\n'
        'functions.<function_name>:\n'
        '{ "arg1": "value1", "arg2": "value2" }<|im_end|>\n'
        '<|im_start|>user\n'
        'What is the weather in Paris?<|im_end|>\n'
        '<|im_start|>assistant\n'
    ),
    (
        '<|im_start|>system\n'
        'Be brief.\n'
        '\n'
        'You have access to the following functions:\n'
        '\n'
        'functions.get_weather:\n'
        '{"properties": {"city": {"description": "a \\u003ccity\\u003e \\u0026 \\u0027its\\u00'
        '27 country", "type": "string"}}, "required": ["city"], "type": "object"}\n'
        '\n'
        '\n'
        'You can respond to users messages with either a single message or one or more fu'
        'nction calls.\n'
        '\n'
        "To respond with a message begin the message with 'message:', use the following f"
        'ormat:\n'
        '\n'
        'message:\n'
        '<message>\n'
        '\n'
        "To respond with one or more function calls begin the message with 'functions.<fu"
        "nction_name>:', use the following format:\n"
        '\n'
        'functions.<function_name>:\n'
        '{ "arg1": "value1", "arg2": "value2" }\n'
        'functions.<function_name>:\n'
        '{ "arg1": "value1", "arg2": "value2" }<|im_end|>\n'
        '<|im_start|>user\n'
        'Hi<|im_end|>\n'
        '<|im_start|>assistant\n'
    ),
    (
        '<|im_start|>system\n'
        '\n'
        '\n'
        'You have access to the following functions:\n'
        '\n'
        'functions.get_weather:\n'
        '{"properties": {"city": {"description": "a \\u003ccity\\u003e \\u0026 \\u0027its\\u00'
        '27 country", "type": "string"}}, "required": ["city"], "type": "object"}\n'
        '\n'
        '\n'
        'You can respond to users messages with either a single message or one or more fu'
        'nction calls.\n'
        '\n'
        "To respond with a message begin the message with 'message:', use the following f"
        'ormat:\n'
        '\n'
        'message:\n'
        '<message>\n'
        '\n'
        "To respond with one or more function calls begin the message with 'functions.<fu"
        "nction_name>:', use the following format:\n"
        '\n'
        'functions.<function_name>:\n'
        '{ "arg1": "value1", "arg2": "value2" }\n'
        'functions.<function_name>:\n'
        '{ "arg1": "value1", "arg2": "value2" }<|im_end|>\n'
        '<|im_start|>user\n'
        'Paris?<|im_end|>\n'
        '<|im_start|>assistant\n'
        'functions.get_weather:\n'
        '{"city": "Paris"}functions.get_weather:\n'
        '{"city": "Paris"}<|im_end|>\n'
        '<|im_start|>tool\n'
        'sunny<|im_end|>\n'
        '<|im_start|>assistant\n'
        'message:\n'
        'It is sunny.<|im_end|>\n'
        '<|im_start|>user\n'
        'Thanks<|im_end|>\n'
        '<|im_start|>assistant\n'
    ),
    (
        '<|im_start|>system\n'
        'S<|im_end|>\n'
        '<|im_start|>user\n'
        'Hi "there"<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Hello<|im_end|>\n'
        '<|im_start|>assistant\n'
    ),
]


@pytest.mark.parametrize("case", range(len(CONVERSATIONS)))
def test_same_text_as_the_shims_jinja_template(case: int) -> None:
    messages, tools = CONVERSATIONS[case]
    assert render_routing_prompt(messages, tools) == SHIM_RENDERED[case]
