"""#45 item 4: the tool-call routing on ``llama-server`` — the routing grammar, the requests sent
to ``/completion`` and the replies turned back into OpenAI ``tool_calls`` (a fake upstream
stands in for llama-server)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from agentic_bench.endpoint.tool_routing import (
    RoutedReply,
    UpstreamError,
    aggregate,
    chosen_function,
    needs_routing,
    routing_grammar,
    sampling,
)

CITY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"city": {"type": "string"}},
                               "required": ["city"]}
WEATHER: dict[str, Any] = {"type": "function",
                           "function": {"name": "get_weather", "parameters": CITY_SCHEMA}}
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}}
ASK = [{"role": "user", "content": "What is the weather in Paris?"}]


class FakeUpstream:
    """Scripted llama-server ``/completion`` replies; records every request."""

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)
        self.sent: list[dict[str, Any]] = []

    def _next(self, payload: dict[str, Any]) -> Any:
        self.sent.append(payload)
        reply = self.replies.pop(0)
        if isinstance(reply, UpstreamError):
            raise reply
        return reply

    async def complete(self, payload: dict[str, Any]) -> dict[str, Any]:
        return dict(self._next(payload))

    async def stream(self, payload: dict[str, Any]) -> AsyncGenerator[dict[str, Any], None]:
        pieces = self._next(payload)
        for piece in pieces[:-1]:
            yield {"content": piece, "stop": False}
        yield {"content": pieces[-1], "stop": True, "stop_type": "eos", "tokens_predicted": 5,
               "tokens_evaluated": 190, "timings": {"cache_n": 100}}


def decision(text: str) -> dict[str, Any]:
    return {"content": text, "tokens_predicted": 4, "tokens_evaluated": 190,
            "timings": {"cache_n": 120}}


def run(body: dict[str, Any], upstream: FakeUpstream) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        reply = RoutedReply(body, upstream)
        first = await reply.route()
        return [c async for c in reply.chunks(first)]

    return asyncio.run(go())


def deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in chunks if c.get("choices")]


def test_grammar_offers_each_named_call_and_a_message() -> None:
    grammar = routing_grammar(["get_weather", "get_time"], allow_message=True, follow_up=False)
    assert grammar.splitlines()[0] == 'root ::= functions | "message:"'
    assert grammar.splitlines()[1] == \
        'functions ::= "functions.get_weather:" | "functions.get_time:"'
    assert "message" not in routing_grammar(["f"], allow_message=False, follow_up=False)
    assert '"<|im_end|>"' in routing_grammar(["f"], allow_message=True, follow_up=True)


def test_a_name_with_quotes_is_escaped_in_the_grammar() -> None:
    assert '"functions.a\\"b:"' in routing_grammar(['a"b'], True, False)


def test_routing_reply_names_a_tool_or_nothing() -> None:
    names = ["get_weather"]
    assert chosen_function("functions.get_weather", names) == "get_weather"
    assert chosen_function("functions.get_weather:", names) == "get_weather"
    assert chosen_function("message", names) is None
    assert chosen_function("functions.rm_rf", names) is None


def test_only_requests_with_tools_are_routed() -> None:
    assert needs_routing({"tools": [WEATHER]})
    assert not needs_routing({"tools": [WEATHER], "tool_choice": "none"})
    assert not needs_routing({"messages": ASK})


def test_sampling_maps_openai_fields_to_completion_fields() -> None:
    out = sampling({"temperature": 0, "seed": 42, "max_completion_tokens": 1024, "stop": "X",
                    "top_k": 40, "model": "m"})
    assert out == {"temperature": 0, "seed": 42, "top_k": 40, "n_predict": 1024,
                   "stop": ["X", "<|im_end|>"], "cache_prompt": True}
    assert sampling({"max_tokens": 8, "max_completion_tokens": 99})["n_predict"] == 8


def test_a_call_streams_as_openai_tool_calls() -> None:
    upstream = FakeUpstream([decision("functions.get_weather"),
                             ['{"city": ', '"Paris"}', ""],
                             {"content": "", "tokens_predicted": 1}])  # the peek: the end
    chunks = run({"messages": ASK, "tools": [WEATHER], "stream": True, "temperature": 0,
                  "stream_options": {"include_usage": True}}, upstream)
    routing, arguments, peek = upstream.sent
    assert routing["temperature"] == 0.0 and routing["stop"][0] == ":"
    assert routing["grammar"].startswith('root ::= functions | "message:"')
    assert routing["prompt"].endswith("<|im_start|>assistant\n")
    assert "functions.get_weather:\n" in routing["prompt"]  # the tool is listed
    assert arguments["prompt"].endswith("<|im_start|>assistant\nfunctions.get_weather:\n")
    assert arguments["json_schema"] == CITY_SCHEMA
    assert peek["n_predict"] == 3
    calls = [d["tool_calls"][0] for d in deltas(chunks) if "tool_calls" in d]
    assert calls[0]["function"] == {"name": "get_weather", "arguments": '{"city": '}
    assert calls[0]["id"].startswith("call_") and calls[0]["type"] == "function"
    assert calls[1] == {"index": 0, "function": {"arguments": '"Paris"}'}}
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    usage = chunks[-1]["usage"]
    assert usage["prompt_tokens"] == 190 and usage["prompt_tokens_details"]["cached_tokens"] == 120
    assert usage["completion_tokens"] == 5 + 1  # arguments + peek, not the routing step
    message = aggregate(chunks)["choices"][0]["message"]
    assert message["content"] is None
    assert message["tool_calls"][0]["function"] == {"name": "get_weather",
                                                   "arguments": '{"city": "Paris"}'}
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}


def test_a_message_follows_message_colon() -> None:
    upstream = FakeUpstream([decision("message"), ["It is ", "sunny."]])
    chunks = run({"messages": ASK, "tools": [WEATHER], "max_tokens": 50}, upstream)
    body = upstream.sent[1]
    assert body["prompt"].endswith("<|im_start|>assistant\nmessage:\n")
    assert body["n_predict"] == 50 and "grammar" not in body and "json_schema" not in body
    assert "".join(d.get("content") or "" for d in deltas(chunks)) == "It is sunny."
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert not any("usage" in c for c in chunks)  # not asked for in a stream


def test_a_second_call_is_grammar_chosen_after_the_peek() -> None:
    upstream = FakeUpstream([decision("functions.get_weather"), ['{"city": "Paris"}'],
                             {"content": "func", "tokens_predicted": 2},
                             decision("functions.get_time"), ["{}"],
                             {"content": "", "tokens_predicted": 1}])
    message = aggregate(run({"messages": ASK, "tools": [WEATHER, TIME]}, upstream))
    names = [c["function"]["name"] for c in message["choices"][0]["message"]["tool_calls"]]
    assert names == ["get_weather", "get_time"]
    follow = upstream.sent[3]
    assert '"<|im_end|>"' in follow["grammar"] and "message" not in follow["grammar"]
    assert follow["prompt"].endswith('functions.get_weather:\n{"city": "Paris"}\n')


def test_required_offers_no_message_and_a_named_tool_skips_routing() -> None:
    upstream = FakeUpstream([decision("functions.get_time"), ["{}"], {"content": ""}])
    run({"messages": ASK, "tools": [WEATHER, TIME], "tool_choice": "required"}, upstream)
    assert "message" not in upstream.sent[0]["grammar"]
    forced = FakeUpstream([["{}"]])
    chunks = run({"messages": ASK, "tools": [WEATHER, TIME],
                  "tool_choice": {"type": "function", "function": {"name": "get_time"}}}, forced)
    assert len(forced.sent) == 1 and "grammar" not in forced.sent[0]  # no routing, no peek
    assert aggregate(chunks)["choices"][0]["message"]["tool_calls"][0]["function"]["name"] \
        == "get_time"
    with pytest.raises(UpstreamError):
        RoutedReply({"messages": ASK, "tools": [WEATHER],
                     "tool_choice": {"type": "function", "function": {"name": "nope"}}}, forced)


def test_a_schema_llama_server_rejects_falls_back_to_any_object() -> None:
    upstream = FakeUpstream([decision("functions.get_weather"), UpstreamError(400, "bad schema"),
                             ['{"city": "Paris"}'], {"content": ""}])
    message = aggregate(run({"messages": ASK, "tools": [WEATHER]}, upstream))
    assert upstream.sent[2]["json_schema"] == {"type": "object"}
    assert message["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] \
        == '{"city": "Paris"}'


def test_a_refused_routing_step_raises_before_anything_is_streamed() -> None:
    upstream = FakeUpstream([UpstreamError(400, '{"error": "exceeds the context"}')])
    with pytest.raises(UpstreamError) as caught:
        run({"messages": ASK, "tools": [WEATHER]}, upstream)
    assert caught.value.status == 400


def test_a_failure_mid_reply_is_an_error_event() -> None:
    upstream = FakeUpstream([decision("functions.get_weather"), UpstreamError(500, "crash")])
    chunks = run({"messages": ASK, "tools": [WEATHER]}, upstream)
    assert chunks[-1]["error"]["code"] == 500
