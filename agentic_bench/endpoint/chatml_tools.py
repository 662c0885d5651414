"""``chatml-function-calling-stream``: llama-cpp-python's ``chatml-function-calling`` prompt with
streamed tool calls that work.

Why (measured against llama-cpp-python 0.3.36, SmolLM2-135M-Instruct): the upstream handler

- raises ``ValueError("Automatic streaming tool choice is not supported")`` for any streamed
  request with ``tool_choice="auto"`` whose reply is a tool call (the stream just breaks);
- ignores ``tools`` when ``tool_choice`` is absent (OpenAI's default is ``"auto"``);
- repeats the function name in every streamed ``tool_calls`` delta (OpenAI sends it once);
- constrains a plain ``message:`` reply in auto mode with the tool-name grammar (so it is empty);
- drops ``role: tool`` messages and lists the tools only when a system message exists;
- HTML-escapes message text (``"`` becomes ``&#34;``: its template environment autoescapes);
- sends no ``usage`` in streams.

This handler keeps the upstream prompt format and its grammar-constrained routing
(``message:`` vs ``functions.<name>:``) and fixes the points above. Its streamed chunks are
OpenAI ``chat.completion.chunk`` objects; the last one carries ``usage`` (``choices: []``), where
``completion_tokens`` counts every token generated after the routing decision and
``prompt_tokens_details.cached_tokens`` the prompt tokens llama.cpp reuses from its context (the
longest common prefix with what it evaluated last: a multi-turn conversation's second request
hits it). The template is
the upstream one (MIT, llama-cpp-python) plus a ``tool`` role and a guard for
``tool_calls: null``.

The server child is started as ``python -m agentic_bench.endpoint.chatml_tools <server args>``:
this registers the handler, then runs ``llama_cpp.server`` unchanged.
"""

from __future__ import annotations

import functools
import json
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any, cast

from agentic_bench.endpoint.routing_prompt import FORMAT_HELP, content_text

FORMAT_NAME = "chatml-function-calling-stream"
MAX_TOOL_CALLS = 8
IM_END = "<|im_end|>"

TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message.role }}\n"
    "{% if message.role == 'system' %}"
    "{{ message.content }}"
    "{% if tool_calls %}"
    "\n\nYou have access to the following functions:\n"
    "{% for tool in tools %}"
    "\nfunctions.{{ tool.function.name }}:\n"
    "{{ tool.function.parameters | tojson }}"
    "\n{% endfor %}"
    + FORMAT_HELP  # no Jinja syntax in it: rendered as written
    + "{% endif %}"
    "<|im_end|>\n"
    "{% endif %}"
    "{% if message.role == 'user' or message.role == 'tool' %}"
    "{{ message.content }}"
    "<|im_end|>\n"
    "{% endif %}"
    "{% if message.role == 'assistant' %}"
    "{% if message.content and message.content | length > 0 %}"
    "{% if tool_calls %}"
    "message:\n"
    "{% endif %}"
    "{{ message.content }}"
    "<|im_end|>\n"
    "{% endif %}"
    "{% if message.tool_calls %}"
    "{% for tool_call in message.tool_calls %}"
    "functions.{{ tool_call.function.name }}:\n"
    "{{ tool_call.function.arguments }}"
    "{% endfor %}"
    "<|im_end|>\n"
    "{% endif %}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_SAMPLING_KEYS = (
    "top_p", "top_k", "min_p", "typical_p", "presence_penalty", "frequency_penalty",
    "repeat_penalty", "tfs_z", "mirostat_mode", "mirostat_tau", "mirostat_eta",
    "logits_processor", "seed",
)  # fmt: skip


@functools.lru_cache(maxsize=1)
def _template() -> Any:
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(autoescape=False, undefined=jinja2.StrictUndefined)
    return env.from_string(TEMPLATE)  # compiled once: ~30 ms


def render_prompt(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    """The ChatML prompt; with tools, a system message listing them is ensured."""
    msgs = [{**m, "content": content_text(m.get("content")),
             "tool_calls": m.get("tool_calls") or []}
            for m in messages]  # the template reads tool_calls on every message
    if tools and not any(m.get("role") == "system" for m in msgs):
        msgs.insert(0, {"role": "system", "content": ""})
    return str(
        _template().render(
            messages=msgs, tools=tools or [], tool_calls=bool(tools), add_generation_prompt=True
        )
    )


def routing_grammar(names: list[str], allow_message: bool, follow_up: bool) -> str:
    """GBNF choosing ``message:`` (or end) versus ``functions.<name>:``."""
    alternatives = " | ".join(json.dumps(f"functions.{n}:") for n in names)
    other = json.dumps(IM_END) if follow_up else ('"message:"' if allow_message else None)
    root = "root ::= functions" + (f" | {other}" if other else "")
    return f"{root}\nfunctions ::= {alternatives}\n"


class _Chunker:
    """Builds OpenAI ``chat.completion.chunk`` dicts for one reply."""

    def __init__(self, model: str | None) -> None:
        self.id = f"chatcmpl-{uuid.uuid4()}"
        self.created = int(time.time())
        self.model = model or "smollm2"

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }

    def usage(self, prompt_tokens: int, completion_tokens: int,
              cached_tokens: int = 0) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached_tokens},
            },
        }


class _TokenCounter:
    """Counts tokens generated by ``llama.generate`` (end-of-generation tokens excluded)."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.n = 0
        self.active = False

    def __enter__(self) -> _TokenCounter:
        import llama_cpp

        original = type(self.llama).generate.__get__(self.llama)
        vocab = self.llama._model.vocab
        is_eog = llama_cpp.llama_vocab_is_eog

        def counting(*args: Any, **kwargs: Any) -> Iterator[int]:
            for token in original(*args, **kwargs):
                if self.active and not is_eog(vocab, token):
                    self.n += 1
                yield token

        self.llama.generate = counting
        return self

    def __exit__(self, *exc: object) -> None:
        self.llama.__dict__.pop("generate", None)


def _stream(
    llama: Any,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    tool_choice: Any,
    params: dict[str, Any],
    temperature: float,
    max_tokens: int | None,
    stop: list[str],
    response_format: dict[str, Any] | None,
    model: str | None,
) -> Iterator[dict[str, Any]]:
    from llama_cpp import llama_chat_format, llama_grammar

    out = _Chunker(model)
    prompt = render_prompt(messages, tools if tool_choice != "none" else None)
    prompt_ids = llama.tokenize(prompt.encode("utf-8"), special=True)
    prompt_tokens = len(prompt_ids)
    cached = cached_prefix(list(llama.input_ids), prompt_ids)
    if prompt_tokens >= llama.n_ctx():
        yield overflow_event(prompt_tokens, llama.n_ctx(), max_tokens)
        return
    stops = [*stop, IM_END]
    names = [t["function"]["name"] for t in tools or []]
    yield out.chunk({"role": "assistant", "content": ""})

    def grammar_from(text: str) -> Any:
        return llama_grammar.LlamaGrammar.from_string(text, verbose=llama.verbose)

    def complete(text: str, grammar: Any, stream: bool, **kw: Any) -> Any:
        args = {**params, "temperature": temperature, "max_tokens": max_tokens, "stop": stops}
        return llama.create_completion(
            prompt=text, grammar=grammar, stream=stream, model=model, **{**args, **kw}
        )

    with _TokenCounter(llama) as counter:
        first: str | None = None
        if names and tool_choice != "none":
            if isinstance(tool_choice, dict):
                first = tool_choice["function"]["name"]
            else:
                decision = complete(
                    prompt,
                    grammar_from(routing_grammar(names, tool_choice != "required", False)),
                    False,
                    temperature=0.0,
                    max_tokens=None,
                    stop=[":"],
                )
                text = decision["choices"][0]["text"]
                first = text[len("functions.") :] if text.startswith("functions.") else None
        counter.active = True
        if first is None:  # a plain message
            grammar = None
            if response_format:
                grammar = llama_chat_format._grammar_for_response_format(
                    cast(Any, _json_object_format(response_format)), verbose=llama.verbose
                )
            body = prompt + ("message:\n" if names and tool_choice != "none" else "")
            finish = "stop"
            for chunk in complete(body, grammar, True):
                choice = chunk["choices"][0]
                if choice["text"]:
                    yield out.chunk({"content": choice["text"]})
                finish = choice["finish_reason"] or finish
            yield out.chunk({}, finish)
        else:
            yield from _stream_tool_calls(
                out, first, names, tools or [], prompt, complete, grammar_from,
                follow_up=not isinstance(tool_choice, dict),
            )  # fmt: skip
        yield out.usage(prompt_tokens, counter.n, cached)


def cached_prefix(evaluated: list[int], prompt: list[int]) -> int:
    """Prompt tokens llama.cpp will reuse from its context: the longest common prefix of what
    it last evaluated and the new prompt, at most all but the prompt's last token (it always
    evaluates one, as ``Llama.generate`` does)."""
    n = 0
    for a, b in zip(evaluated, prompt[:-1], strict=False):
        if a != b:
            break
        n += 1
    return n


def _stream_tool_calls(
    out: _Chunker,
    name: str | None,
    names: list[str],
    tools: list[dict[str, Any]],
    prompt: str,
    complete: Any,
    grammar_from: Any,
    follow_up: bool,
) -> Iterator[dict[str, Any]]:
    from llama_cpp import llama_grammar

    by_name = {t["function"]["name"]: t for t in tools}
    finish = "tool_calls"
    index = 0
    while name in by_name and index < MAX_TOOL_CALLS:
        prompt += f"functions.{name}:\n"
        schema = by_name[name]["function"].get("parameters") or {"type": "object"}
        try:
            grammar = llama_grammar.LlamaGrammar.from_json_schema(json.dumps(schema))
        except Exception:  # same fallback as upstream
            grammar = llama_grammar.LlamaGrammar.from_string(llama_grammar.JSON_GBNF)
        call_id = f"call_{uuid.uuid4().hex[:24]}"
        head = {"index": index, "id": call_id, "type": "function"}
        args: list[str] = []
        for chunk in complete(prompt, grammar, True):
            choice = chunk["choices"][0]
            if choice["text"]:
                fn = {"arguments": choice["text"]}
                if not args:
                    fn = {"name": name, **fn}
                yield out.chunk({"tool_calls": [{**head, "function": fn} if not args else
                                                {"index": index, "function": fn}]})
                args.append(choice["text"])
            if choice["finish_reason"] == "length":
                finish = "length"
        if not args:
            yield out.chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
        index += 1
        prompt += "".join(args) + "\n"
        if not follow_up or finish == "length":
            break
        name = _next_call(prompt, names, complete, grammar_from)
    yield out.chunk({}, finish)


def _next_call(prompt: str, names: list[str], complete: Any, grammar_from: Any) -> str | None:
    """After a call: another one, or the end? A free greedy peek first (the model ends with
    ``<|im_end|>`` when done); only when it starts another call is the name grammar-chosen.
    (A grammar that offers ``<|im_end|>`` as text makes this model repeat calls forever.)"""
    peek = complete(prompt, None, False, temperature=0.0, max_tokens=3, stop=[IM_END])
    if not peek["choices"][0]["text"].lstrip().startswith("func"):
        return None
    grammar = grammar_from(routing_grammar(names, False, True))
    nxt = complete(prompt, grammar, False, temperature=0.0, max_tokens=None, stop=[":", IM_END])
    text = nxt["choices"][0]["text"]
    return text[len("functions.") :] if text.startswith("functions.") else None


def _json_object_format(response_format: dict[str, Any]) -> dict[str, Any]:
    """OpenAI ``json_schema`` → llama-cpp-python's ``json_object`` + ``schema``."""
    if response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        schema = spec.get("schema") if isinstance(spec, dict) else None
        return {"type": "json_object", **({"schema": schema} if schema else {})}
    return response_format


def overflow_event(prompt_tokens: int, n_ctx: int, max_tokens: int | None) -> dict[str, Any]:
    """The error event a stream carries when the prompt does not fit the context.

    llama-cpp-python's server has sent ``200`` and its headers before the handler runs, so a
    refusal can only travel in the stream: one OpenAI-style ``{"error": ...}`` event (as vLLM
    sends mid-stream), with the server's own wording, instead of a stream that breaks off.
    """
    message = (f"This model's maximum context length is {n_ctx} tokens. However, you "
               f"requested {prompt_tokens + (max_tokens or 0)} tokens ({prompt_tokens} in the "
               f"messages, {max_tokens} in the completion). Please reduce the length of the "
               "messages or completion.")
    return {"error": {"message": message, "type": "invalid_request_error",
                      "code": "context_length_exceeded", "prompt_tokens": prompt_tokens}}


def _aggregate(chunks: Iterator[dict[str, Any]]) -> dict[str, Any]:
    """A non-streamed ``chat.completion`` from this handler's own chunks."""
    content: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish, usage, head = None, None, None
    for chunk in chunks:
        if "error" in chunk:  # raised as llama.cpp does: its server answers 400 with it
            n_ctx = chunk["error"]["message"].split(" tokens.")[0].rsplit(" ", 1)[-1]
            raise ValueError(f"Requested tokens ({chunk['error']['prompt_tokens']}) exceed "
                             f"context window of {n_ctx}")
        head = head or chunk
        usage = chunk.get("usage") or usage
        for choice in chunk["choices"]:
            delta = choice["delta"]
            content.append(delta.get("content") or "")
            for tc in delta.get("tool_calls") or ():
                slot = calls.setdefault(
                    tc["index"],
                    {"id": tc.get("id"), "type": "function",
                     "function": {"name": "", "arguments": ""}},
                )  # fmt: skip
                slot["function"]["name"] += tc["function"].get("name", "")
                slot["function"]["arguments"] += tc["function"].get("arguments", "")
            finish = choice["finish_reason"] or finish
    assert head is not None
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {
        "id": head["id"],
        "object": "chat.completion",
        "created": head["created"],
        "model": head["model"],
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": usage,
    }


def chatml_function_calling_stream(
    llama: Any,
    messages: list[dict[str, Any]],
    functions: list[dict[str, Any]] | None = None,
    function_call: Any = None,
    tools: list[dict[str, Any]] | None = None,
    tool_choice: Any = None,
    temperature: float = 0.2,
    stream: bool = False,
    stop: str | list[str] | None = None,
    response_format: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    model: str | None = None,
    **kwargs: Any,
) -> Any:
    """A llama-cpp-python chat completion handler (see the module docstring)."""
    if functions is not None and not tools:
        tools = [{"type": "function", "function": f} for f in functions]
    if function_call is not None and tool_choice is None:
        tool_choice = (
            {"type": "function", "function": {"name": function_call["name"]}}
            if isinstance(function_call, dict)
            else function_call
        )
    if tools and tool_choice is None:
        tool_choice = "auto"
    if isinstance(tool_choice, dict):
        wanted = (tool_choice.get("function") or {}).get("name")
        if wanted not in {t["function"]["name"] for t in tools or []}:
            raise ValueError(f"tool_choice names {wanted!r}, which is not in tools")
    stops = [stop] if isinstance(stop, str) else list(stop or [])
    params = {k: kwargs[k] for k in _SAMPLING_KEYS if kwargs.get(k) is not None}
    chunks = _stream(
        llama, messages, tools or None, tool_choice, params, temperature, max_tokens, stops,
        response_format, model,
    )  # fmt: skip
    return chunks if stream else _aggregate(chunks)


def register() -> str:
    """Register the handler with llama-cpp-python (idempotent); returns its format name."""
    from llama_cpp import llama_chat_format as typed_format

    # our handler takes plain dicts where llama-cpp-python's signature names its TypedDicts
    llama_chat_format: Any = typed_format
    llama_chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        FORMAT_NAME, chatml_function_calling_stream, overwrite=True
    )
    return FORMAT_NAME


def accept_max_completion_tokens() -> type[Any]:
    """Let llama-cpp-python's server honour OpenAI's ``max_completion_tokens``.

    Its request model knows only ``max_tokens`` and silently drops the newer name, so a request
    with ``max_completion_tokens: 1024`` (MLPerf Edge Agentic's) would run to the end of the
    context. The request class is replaced, before the server app imports it, by a subclass that
    copies ``max_completion_tokens`` into ``max_tokens`` when the latter is absent (llama.cpp's
    own ``llama-server`` and OpenAI do the same). The same subclass takes vLLM's ``top_k: -1``
    ("no top-k filter", which MLPerf E2E-RAG sends) as llama.cpp's ``0`` (the same: llama.cpp
    skips top-k for k <= 0) instead of rejecting the request. Idempotent; returns the class in
    use.
    """
    from llama_cpp.server import types as server_types
    from pydantic import model_validator

    original = server_types.CreateChatCompletionRequest
    if getattr(original, "_accepts_max_completion_tokens", False):
        return original

    class CreateChatCompletionRequest(original):  # type: ignore[misc, valid-type]
        _accepts_max_completion_tokens = True

        @model_validator(mode="before")
        @classmethod
        def _max_completion_tokens(cls, data: Any) -> Any:
            if not isinstance(data, dict):
                return data
            if data.get("max_tokens") is None and data.get("max_completion_tokens") is not None:
                data = {**data, "max_tokens": data["max_completion_tokens"]}
            top_k = data.get("top_k")
            if isinstance(top_k, int) and not isinstance(top_k, bool) and top_k < 0:
                data = {**data, "top_k": 0}
            return data

    server_types.CreateChatCompletionRequest = CreateChatCompletionRequest  # type: ignore[misc]
    return CreateChatCompletionRequest


def serve_main(argv: list[str] | None = None) -> None:
    """``python -m agentic_bench.endpoint.chatml_tools ARGS``: the server with this handler."""
    from agentic_bench.endpoint.llama_server import watch_parent_from_env

    watch_parent_from_env()
    register()
    accept_max_completion_tokens()  # before llama_cpp.server.app imports the request model
    from llama_cpp.server import __main__ as server

    sys.argv = ["llama_cpp.server", *(sys.argv[1:] if argv is None else argv)]
    start: Any = server.main  # untyped upstream
    start()


if __name__ == "__main__":
    serve_main()
