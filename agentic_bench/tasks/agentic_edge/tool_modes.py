"""Three ways of asking an OpenAI-compatible chat endpoint for BFCL function calls.

Each mode has a request builder (the body fields besides ``model``/sampling parameters) and a
reply parser into BFCL's decoded form. Keys each mode sends:

``native`` (MLPerf v6.1 Edge Agentic's request, byte for byte in the fields that matter)
    ``messages`` (the question's messages), ``temperature: 0``, ``max_completion_tokens: 1024``,
    ``seed: 42``, ``tools`` (bfcl-eval's ``convert_to_tool`` of the raw docs, no language hints;
    dots in names become underscores) and ``tool_choice: "auto"``. The run scores the reply with
    MLPerf's own rules (:mod:`~agentic_bench.tasks.agentic_edge.reference_scoring`);
    :func:`parse_reply` decodes the ``tool_calls`` for other uses (names mapped back).
``json-schema``
    ``messages`` with a system prompt listing the functions (JSON) and the answer format, and a
    ``response_format`` constraining the reply to ``{"tool_calls": [{"name": <enum of function
    names>, "arguments": {...}}]}``. Two ``response_format`` styles: ``"json_object"`` (default) —
    ``{"type": "json_object", "schema": S}``, accepted by llama.cpp's ``llama-server`` (the embedded
    endpoint) and llama-cpp-python's server; ``"json_schema"`` — ``{"type": "json_schema",
    "json_schema": {"name": "function_calls", "schema": S, "strict": false}}`` for OpenAI, vLLM,
    SGLang and llama-server (llama-cpp-python rejects that type). No ``tools`` are sent.
``prompt``
    ``messages`` with BFCL's default prompting system prompt
    (``system_prompt_pre_processing_chat_model``: Python call-list format, functions as JSON), no
    ``tools``. The reply text is decoded with BFCL's ``default_decode_ast_prompting`` (Java and
    JavaScript subsets with BFCL's tree-sitter parsers), behind a safety check.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge import bfcl_env
from agentic_bench.tasks.agentic_edge.data import BfclSample
from agentic_bench.tasks.agentic_edge.reply_parsing import (
    ParsedReply,
    parse_json_calls,
    parse_native,
    parse_prompt_calls,
)
from agentic_bench.tasks.agentic_edge.tools_convert import (
    hinted_functions,
    name_map,
    to_openai_tools,
)

ToolMode = Literal["native", "json-schema", "prompt"]
TOOL_MODES: tuple[str, ...] = ("native", "json-schema", "prompt")
ResponseFormatStyle = Literal["json_object", "json_schema"]
JSON_SCHEMA_NAME = "function_calls"

_JSON_FORMAT_INSTRUCTION = (
    "Respond only with a JSON object of the form "
    '{"tool_calls": [{"name": "func_name1", "arguments": {"param1": "value1", "param2": '
    '"value2"}}, {"name": "func_name2", "arguments": {"param": "value"}}]}. '
    "Use the exact function names listed below. If none of the functions can be used, or the "
    'question lacks the parameters required by the function, respond with {"tool_calls": []}.'
)


def _check_mode(mode: str) -> None:
    if mode not in TOOL_MODES:
        raise ConfigError(f"unknown tool mode {mode!r}; use one of {', '.join(TOOL_MODES)}")


def _with_system_prompt(messages: list[dict[str, Any]], prompt: str) -> list[dict[str, Any]]:
    """BFCL's merge rule: prepend to an existing leading system message, else insert one."""
    out = copy.deepcopy(messages)
    if out and out[0].get("role") == "system":
        out[0]["content"] = prompt + "\n\n" + (out[0].get("content") or "")
    else:
        out.insert(0, {"role": "system", "content": prompt})
    return out


_SCHEMA_KEYS = ("type", "properties", "required", "items", "enum")


def _grammar_schema(schema: Any) -> Any:
    """The parts of a parameter schema a decoding grammar needs (types, fields, enums)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {k: schema[k] for k in _SCHEMA_KEYS if k in schema}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _grammar_schema(v) for k, v in out["properties"].items()}
    if "items" in out:
        out["items"] = _grammar_schema(out["items"])
    return out


def calls_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """JSON schema of the json-schema mode's reply: a list of calls, each constrained to one
    function's name and *that function's parameter schema* (required fields included); with no
    functions, only the empty list."""
    variants = []
    for tool in tools:
        fn = tool.get("function", tool)
        params = _grammar_schema(fn.get("parameters") or {"type": "object"})
        params.setdefault("type", "object")
        variants.append({
            "type": "object",
            "properties": {"name": {"type": "string", "enum": [fn["name"]]},
                           "arguments": params},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        })
    calls: dict[str, Any]
    if not variants:  # no functions offered: the empty list is the only valid reply
        # (an empty ``anyOf`` compiles to an empty grammar rule, and llama.cpp's server
        # segfaults on the grammar it cannot parse: live_irrelevance_120-9-0 and kin)
        calls = {"type": "array", "items": {"type": "object"}, "maxItems": 0}
    else:
        calls = {"type": "array",
                 "items": variants[0] if len(variants) == 1 else {"anyOf": variants}}
    return {
        "type": "object",
        "properties": {"tool_calls": calls},
        "required": ["tool_calls"],
        "additionalProperties": False,
    }


def response_format(schema: dict[str, Any], style: ResponseFormatStyle) -> dict[str, Any]:
    if style == "json_object":
        return {"type": "json_object", "schema": schema}
    if style == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": JSON_SCHEMA_NAME, "schema": schema, "strict": False},
        }
    raise ConfigError(f"unknown response_format style {style!r}; use json_object or json_schema")


def json_system_prompt(functions: list[dict[str, Any]]) -> str:
    """Persona and task from BFCL's classic prompt, our JSON answer format, the functions."""
    prompts = bfcl_env.import_bfcl("constants.default_prompts")
    style = prompts.PROMPT_STYLE_TEMPLATES["classic"]
    tools = style["available_tools"].format(
        format="json", functions=json.dumps(functions, indent=4)
    )
    return f"{style['persona']} {style['task']}\n\n{_JSON_FORMAT_INSTRUCTION}\n\n{tools}"


# MLPerf v6.1 Edge Agentic's sampling fields (``online_edge_full_run.yaml``: temperature 0,
# seed 42, max_new_tokens 1024, sent as ``max_completion_tokens`` by
# ``openai/openai_msgspec_adapter.py`` 74-88), in the reference request's field order
REFERENCE_SAMPLING: dict[str, Any] = {"temperature": 0, "max_completion_tokens": 1024,
                                      "seed": 42}


def native_request(sample: BfclSample) -> dict[str, Any]:
    """MLPerf's request (``dataset_manager/predefined/bfcl_v4/__init__.py`` 91-129, 576-612):
    the question's messages, bfcl-eval's ``convert_to_tool`` of the *raw* function docs (no
    language hints, BFCL's own parameter types), ``tool_choice: "auto"``, and its sampling."""
    return {
        "messages": copy.deepcopy(sample.messages),
        **REFERENCE_SAMPLING,
        "tools": to_openai_tools(sample.functions),
        "tool_choice": "auto",
    }


def json_schema_request(
    sample: BfclSample, style: ResponseFormatStyle = "json_object"
) -> dict[str, Any]:
    docs = hinted_functions(sample.functions, sample.subset)
    schema = calls_schema(to_openai_tools(sample.functions, subset=sample.subset))
    return {
        "messages": _with_system_prompt(sample.messages, json_system_prompt(docs)),
        "response_format": response_format(schema, style),
    }


def prompt_request(sample: BfclSample) -> dict[str, Any]:
    handler_utils = bfcl_env.import_bfcl("model_handler.utils")
    docs = hinted_functions(sample.functions, sample.subset)
    messages = handler_utils.system_prompt_pre_processing_chat_model(
        copy.deepcopy(sample.messages), docs, sample.id
    )
    return {"messages": messages}


def build_request(
    sample: BfclSample, mode: ToolMode, *, style: ResponseFormatStyle = "json_object"
) -> dict[str, Any]:
    """Chat-completion body fields for ``sample`` in ``mode`` (no model or sampling fields)."""
    _check_mode(mode)
    if mode == "native":
        return native_request(sample)
    if mode == "json-schema":
        return json_schema_request(sample, style)
    return prompt_request(sample)


def parse_reply(
    sample: BfclSample,
    mode: ToolMode,
    *,
    content: str | None = None,
    tool_calls: list[Any] | None = None,
) -> ParsedReply:
    """The assistant reply (text and/or OpenAI ``tool_calls``) → BFCL decoded calls."""
    _check_mode(mode)
    if mode == "native":
        return parse_native(tool_calls, name_map(sample.functions))
    if mode == "json-schema":
        return parse_json_calls(content, name_map(sample.functions))
    language = "python" if sample.expects_no_call else sample.language
    return parse_prompt_calls(content, language)
