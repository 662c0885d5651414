"""Tool-call routing on ``llama-server``: a reply starts as a message or as a named call.

Through ``llama-server``'s own tool calling the 135M model writes a tool call in 1 reply of 50
BFCL samples: llama.cpp's lazy grammar waits for a ``<tool_call>`` the model does not write
(benchmarks/results/agentic-edge/llama-server-vs-shim/). This module gives ``llama-server`` the
routing our llama-cpp-python chat-format shim had (removed on 2026-12-06), as a sequence of raw
``/completion`` requests on the same prompt, each with a grammar of ours:

1. the prompt is :func:`.routing_prompt.render_routing_prompt`'s (the tools listed under
   ``functions.<name>:``, a reply starts with ``message:`` or ``functions.<name>:``);
2. **routing**: greedy, under :func:`routing_grammar` (``message:`` | ``functions.<name>:`` for
   each tool; no ``message:`` with ``tool_choice: "required"``; skipped when ``tool_choice``
   names a function);
3. a message is generated after ``message:\\n`` (free text, or the ``response_format`` schema);
   a call's arguments after ``functions.<name>:\\n`` under that function's ``parameters`` as
   llama-server's ``json_schema`` (``{"type": "object"}`` if llama-server cannot convert it);
4. after a call, a free greedy peek of 3 tokens decides whether another call follows (up to
   :data:`MAX_TOOL_CALLS`); only then is the next name grammar-chosen.

The replies are turned back into OpenAI ``chat.completion.chunk`` deltas (``tool_calls`` with
id, type and name in the first delta of a call), then ``usage`` (``completion_tokens``: every
token generated after the routing step; ``cached_tokens``: llama-server's ``timings.cache_n`` of
the first request). :mod:`.routing_proxy` serves this in front of ``llama-server``. Standard
library only; the upstream is anything with :class:`Upstream`'s two methods.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Protocol

from agentic_bench.endpoint.routing_prompt import IM_END, render_routing_prompt

MAX_TOOL_CALLS = 8  # as the llama-cpp-python shim had

ANY_OBJECT: dict[str, Any] = {"type": "object"}
# OpenAI request fields passed to llama-server's /completion under the same name
SAMPLING_FIELDS = (
    "temperature", "top_p", "top_k", "min_p", "typical_p", "seed", "presence_penalty",
    "frequency_penalty", "repeat_penalty", "mirostat", "mirostat_tau", "mirostat_eta",
)  # fmt: skip


class UpstreamError(Exception):
    """llama-server answered ``status`` (not 200) with ``body``."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"llama-server answered HTTP {status}: {body[:300]}")
        self.status = status
        self.body = body


class Upstream(Protocol):
    """llama-server's ``POST /completion``: one JSON reply, or its streamed events."""

    async def complete(self, payload: dict[str, Any]) -> dict[str, Any]: ...

    def stream(self, payload: dict[str, Any]) -> AsyncGenerator[dict[str, Any], None]: ...


def routing_grammar(names: list[str], allow_message: bool, follow_up: bool) -> str:
    """GBNF whose root is ``functions.<name>:`` for one of ``names`` or, when allowed,
    ``message:`` (``<|im_end|>`` instead on a follow-up)."""
    alternatives = " | ".join(json.dumps(f"functions.{n}:") for n in names)
    other = json.dumps(IM_END) if follow_up else ('"message:"' if allow_message else None)
    return f"root ::= functions{f' | {other}' if other else ''}\nfunctions ::= {alternatives}\n"


def chosen_function(text: str, names: list[str]) -> str | None:
    """The function a routing reply names (``functions.NAME``, the ``:`` stop dropped), else
    None (a message, the end, or a name that is not a tool)."""
    name = text.strip().removesuffix(":")
    if not name.startswith("functions."):
        return None
    name = name[len("functions.") :]
    return name if name in names else None


def needs_routing(body: dict[str, Any]) -> bool:
    """A chat request whose reply may be a tool call: tools given, ``tool_choice`` not none."""
    tools = body.get("tools")
    return bool(tools) and isinstance(tools, list) and body.get("tool_choice") != "none"


def sampling(body: dict[str, Any]) -> dict[str, Any]:
    """The request's sampling fields as ``/completion`` takes them (``n_predict``, ``stop``)."""
    out = {k: body[k] for k in SAMPLING_FIELDS if body.get(k) is not None}
    limit = body.get("max_tokens")
    if limit is None:
        limit = body.get("max_completion_tokens")
    out["n_predict"] = int(limit) if limit is not None else -1
    stop = body.get("stop")
    out["stop"] = [*([stop] if isinstance(stop, str) else list(stop or [])), IM_END]
    out["cache_prompt"] = True
    return out


def response_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a plain message must follow (OpenAI ``response_format``), if any."""
    fmt = body.get("response_format")
    if not isinstance(fmt, dict):
        return None
    if fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        return schema if isinstance(schema, dict) else ANY_OBJECT
    return ANY_OBJECT if fmt.get("type") == "json_object" else None


class ChunkWriter:
    """OpenAI ``chat.completion.chunk`` dicts for one reply."""

    def __init__(self, model: str | None) -> None:
        self.id = f"chatcmpl-{uuid.uuid4()}"
        self.created = int(time.time())
        self.model = model or "smollm2"

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                "model": self.model, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                                  "finish_reason": finish_reason}]}

    def usage(self, prompt: int, completion: int, cached: int) -> dict[str, Any]:
        usage = {"prompt_tokens": prompt, "completion_tokens": completion,
                 "total_tokens": prompt + completion,
                 "prompt_tokens_details": {"cached_tokens": cached}}
        return {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                "model": self.model, "choices": [], "usage": usage}


class RoutedReply:
    """One chat request with tools, answered through ``upstream`` (module docstring)."""

    def __init__(self, body: dict[str, Any], upstream: Upstream) -> None:
        self.upstream = upstream
        tools = [t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("function")]
        self.by_name = {str(t["function"]["name"]): t["function"] for t in tools}
        self.names = list(self.by_name)
        choice = body.get("tool_choice") or "auto"
        named = (choice.get("function") or {}) if isinstance(choice, dict) else {}
        self.forced: str | None = named.get("name")
        if self.forced is not None and self.forced not in self.by_name:
            raise UpstreamError(400, json.dumps({"error": {
                "message": f"tool_choice names {self.forced!r}, which is not in tools",
                "type": "invalid_request_error"}}))
        self.allow_message = choice != "required"
        self.prompt = render_routing_prompt(list(body.get("messages") or []), tools)
        self.params = sampling(body)
        self.message_schema = response_schema(body)
        self.out = ChunkWriter(body.get("model"))
        self.include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        self.prompt_tokens = 0
        self.cached_tokens = 0
        self.completion_tokens = 0

    def _note_prompt(self, final: dict[str, Any]) -> None:
        if not self.prompt_tokens:
            self.prompt_tokens = int(final.get("tokens_evaluated") or 0)
            self.cached_tokens = int((final.get("timings") or {}).get("cache_n") or 0)

    async def _pick(self, prompt: str, follow_up: bool) -> str | None:
        grammar = routing_grammar(self.names, self.allow_message and not follow_up, follow_up)
        reply = await self.upstream.complete({
            "prompt": prompt, "grammar": grammar, "temperature": 0.0, "n_predict": 64,
            "stop": [":", IM_END], "cache_prompt": True})
        self._note_prompt(reply)
        if follow_up:
            self.completion_tokens += int(reply.get("tokens_predicted") or 0)
        return chosen_function(str(reply.get("content") or ""), self.names)

    async def route(self) -> str | None:
        """The routing step (raises :class:`UpstreamError` before anything is streamed)."""
        if self.forced is not None or not self.names:
            return self.forced
        return await self._pick(self.prompt, follow_up=False)

    async def chunks(self, first: str | None) -> AsyncGenerator[dict[str, Any], None]:
        yield self.out.chunk({"role": "assistant", "content": ""})
        try:
            if first is None:
                async for chunk in self._message():
                    yield chunk
            else:
                async for chunk in self._calls(first):
                    yield chunk
        except UpstreamError as exc:
            yield {"error": {"message": str(exc), "type": "server_error", "code": exc.status}}
            return
        if self.include_usage:
            yield self.out.usage(self.prompt_tokens, self.completion_tokens, self.cached_tokens)

    async def _generate(self, payload: dict[str, Any]) -> AsyncIterator[tuple[str, str | None]]:
        """(text, finish) pairs of one streamed completion; finish only on the last."""
        async with contextlib.aclosing(self.upstream.stream(payload)) as events:
            async for event in events:
                text = str(event.get("content") or "")
                if event.get("stop"):
                    self._note_prompt(event)
                    self.completion_tokens += int(event.get("tokens_predicted") or 0)
                    yield text, "length" if event.get("stop_type") == "limit" else "stop"
                    return
                if text:
                    yield text, None

    async def _message(self) -> AsyncIterator[dict[str, Any]]:
        payload = {**self.params, "stream": True,
                   "prompt": self.prompt + ("message:\n" if self.names else "")}
        if self.message_schema is not None:
            payload["json_schema"] = self.message_schema
        finish = "stop"
        async for text, end in self._generate(payload):
            if text:
                yield self.out.chunk({"content": text})
            finish = end or finish
        yield self.out.chunk({}, finish)

    async def _arguments(self, prompt: str, name: str) -> AsyncIterator[tuple[str, str | None]]:
        schema = self.by_name[name].get("parameters") or ANY_OBJECT
        payload = {**self.params, "stream": True, "prompt": prompt, "json_schema": schema}
        try:
            async for pair in self._generate(payload):
                yield pair
        except UpstreamError as exc:  # a schema llama.cpp cannot convert: any JSON object
            if exc.status != 400 or schema is ANY_OBJECT:
                raise
            async for pair in self._generate({**payload, "json_schema": ANY_OBJECT}):
                yield pair

    async def _calls(self, name: str | None) -> AsyncIterator[dict[str, Any]]:
        prompt, index, finish = self.prompt, 0, "tool_calls"
        while name is not None and index < MAX_TOOL_CALLS:
            prompt += f"functions.{name}:\n"
            head = {"index": index, "id": f"call_{uuid.uuid4().hex[:24]}", "type": "function"}
            args: list[str] = []
            async for text, end in self._arguments(prompt, name):
                if text:
                    fn = {"arguments": text} if args else {"name": name, "arguments": text}
                    yield self.out.chunk({"tool_calls": [{**head, "function": fn} if not args
                                                         else {"index": index, "function": fn}]})
                    args.append(text)
                if end == "length":
                    finish = "length"
            if not args:
                yield self.out.chunk({"tool_calls": [{**head, "function": {"name": name,
                                                                            "arguments": ""}}]})
            index += 1
            prompt += "".join(args) + "\n"
            if self.forced is not None or finish == "length":
                break
            name = await self._next_call(prompt)
        yield self.out.chunk({}, finish)

    async def _next_call(self, prompt: str) -> str | None:
        """Another call, or the end? A free greedy peek first (a grammar offering the end as
        text made this model repeat the same call, in the llama-cpp-python shim)."""
        peek = await self.upstream.complete({"prompt": prompt, "temperature": 0.0,
                                             "n_predict": 3, "stop": [IM_END],
                                             "cache_prompt": True})
        self.completion_tokens += int(peek.get("tokens_predicted") or 0)
        if not str(peek.get("content") or "").lstrip().startswith("func"):
            return None
        return await self._pick(prompt, follow_up=True)


def aggregate(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A non-streamed ``chat.completion`` from a routed reply's chunks."""
    content: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish: str | None = None
    usage: dict[str, Any] | None = None
    head = chunks[0]
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or ():
            delta = choice["delta"]
            content.append(delta.get("content") or "")
            for call in delta.get("tool_calls") or ():
                slot = calls.setdefault(call["index"], {"id": call.get("id"), "type": "function",
                                                        "function": {"name": "", "arguments": ""}})
                slot["function"]["name"] += call["function"].get("name", "")
                slot["function"]["arguments"] += call["function"].get("arguments", "")
            finish = choice["finish_reason"] or finish
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    out = {"id": head["id"], "object": "chat.completion", "created": head["created"],
           "model": head["model"], "choices": [{"index": 0, "message": message,
                                                "logprobs": None, "finish_reason": finish}]}
    if usage is not None:
        out["usage"] = usage
    return out
