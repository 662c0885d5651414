"""Assistant replies → BFCL's decoded form ``[{func_name: {arg: value}}]``.

Nothing here raises on bad model output: a reply that cannot be decoded gives a
:class:`ParsedReply` with no calls and a reason string.

Model text is never passed to ``eval``/``exec``. Prompt-mode Python replies are decoded by
bfcl-eval's own ``default_decode_ast_prompting`` (``ast.parse`` based), but that decoder
evaluates binary-operator and lambda argument nodes; we parse the text first and refuse any
reply whose operators are not plain arithmetic on literal numbers (or ``+`` of literal
strings), or that holds a lambda, so what reaches BFCL's decoder is safe to evaluate.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentic_bench.tasks.agentic_edge import bfcl_env

Decoded = list[dict[str, dict[str, Any]]]
MAX_REPLY_CHARS = 200_000
_CALL_LIST_KEYS = ("tool_calls", "calls", "function_calls", "functions")
_ARITH_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_MAX_POW_EXPONENT = 64
_MAX_POW_BASE = 10**6


@dataclass(frozen=True)
class ParsedReply:
    """Decoded calls (BFCL form) and, when decoding failed, why."""

    calls: Decoded = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _failed(reason: str) -> ParsedReply:
    return ParsedReply(calls=[], error=reason)


# --- native tool calls ------------------------------------------------------------------------


def _tool_call_parts(call: Any) -> tuple[Any, Any]:
    if not isinstance(call, Mapping):
        raise ValueError(f"tool call is not an object: {call!r:.80}")
    fn = call.get("function", call)
    if not isinstance(fn, Mapping):
        raise ValueError("tool call has no function object")
    return fn.get("name"), fn.get("arguments", {})


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, str):
        raw = json.loads(raw) if raw.strip() else {}
    if not isinstance(raw, dict):
        raise ValueError(f"arguments are not a JSON object: {raw!r:.80}")
    return raw


def parse_native(tool_calls: list[Any] | None, names: Mapping[str, str]) -> ParsedReply:
    """OpenAI ``tool_calls`` (arguments as JSON strings) → decoded calls; names mapped back."""
    if not tool_calls:
        return ParsedReply()
    calls: Decoded = []
    try:
        for call in tool_calls:
            name, raw_args = _tool_call_parts(call)
            if not isinstance(name, str) or not name:
                raise ValueError("tool call without a function name")
            calls.append({names.get(name, name): _arguments(raw_args)})
    except (ValueError, TypeError) as exc:  # json.JSONDecodeError is a ValueError
        return _failed(f"invalid tool call: {exc}")
    return ParsedReply(calls=calls)


# --- JSON (schema-constrained) replies ---------------------------------------------------------


def _strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = text[3:]
        if text[:4].lower() == "json":
            text = text[4:]
        text = text.rsplit("```", 1)[0] if "```" in text else text
    return text.strip()


def _load_json(text: str) -> Any:
    text = _strip_fences(text)
    try:  # strict=False: a raw newline inside a string value is a model slip, not a wrong answer
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
        if not starts:
            raise
        value, _ = json.JSONDecoder(strict=False).raw_decode(text[min(starts) :])
        return value


def _json_items(data: Any) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in _CALL_LIST_KEYS:
            if isinstance(data.get(key), list):
                return list(data[key])
        if "name" in data or "function" in data:
            return [data]
    raise ValueError("expected a list of calls or an object with a 'tool_calls' list")


def _json_call(item: Any, names: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    if not isinstance(item, dict):
        raise ValueError(f"call is not an object: {item!r:.80}")
    if isinstance(item.get("function"), dict):  # OpenAI-shaped {"function": {...}}
        item = item["function"]
    name = item.get("name", item.get("function"))
    if not isinstance(name, str) or not name:
        raise ValueError("call without a function name")
    raw = item.get("arguments", item.get("parameters", {}))
    return {names.get(name, name): _arguments(raw)}


def parse_json_calls(content: str | None, names: Mapping[str, str]) -> ParsedReply:
    """A JSON reply (``{"tool_calls": [{"name", "arguments"}]}`` or a bare list) → calls."""
    if content is None or not content.strip():
        return _failed("empty reply")
    if len(content) > MAX_REPLY_CHARS:
        return _failed(f"reply longer than {MAX_REPLY_CHARS} characters")
    try:
        calls = [_json_call(item, names) for item in _json_items(_load_json(content))]
    except (ValueError, TypeError, RecursionError) as exc:
        return _failed(f"invalid JSON calls: {exc}")
    return ParsedReply(calls=calls)


# --- prompt mode (BFCL's textual format) -------------------------------------------------------


def _literal_kind(node: ast.AST) -> str | None:
    """'num' / 'str' when the expression is safe arithmetic on literals, else None."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            return "num"
        if isinstance(value, int | float | complex):
            return "num" if not isinstance(value, float) or math.isfinite(value) else None
        return "str" if isinstance(value, str) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        return "num" if _literal_kind(node.operand) == "num" else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITH_OPS):
        left, right = _literal_kind(node.left), _literal_kind(node.right)
        if isinstance(node.op, ast.Add) and left == right == "str":
            return "str"
        if left != "num" or right != "num":
            return None
        if isinstance(node.op, ast.Pow):
            return "num" if _small_power(node.left, node.right) else None
        return "num"
    return None


def _small_power(base: ast.AST, exponent: ast.AST) -> bool:
    if not (isinstance(base, ast.Constant) and isinstance(exponent, ast.Constant)):
        return False
    b, e = base.value, exponent.value
    if not isinstance(b, int | float) or not isinstance(e, int | float):
        return False  # (complex, str, bytes, None, ...: not a power that could blow up)
    return abs(e) <= _MAX_POW_EXPONENT and abs(b) <= _MAX_POW_BASE


def unsafe_python_reason(text: str) -> str | None:
    """Why BFCL's Python decoder must not see ``text`` (``None``: safe to hand over)."""
    cleaned = text.strip("`\n ")
    if not cleaned.startswith("["):
        cleaned = "[" + cleaned
    if not cleaned.endswith("]"):
        cleaned = cleaned + "]"
    try:
        tree = ast.parse(cleaned.strip().strip("'"), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"not a Python call list: {exc}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            return "lambda expressions are not accepted"
        if isinstance(node, ast.BinOp) and _literal_kind(node) is None:
            return "only arithmetic on literal numbers is accepted in arguments"
    return None


def parse_prompt_calls(content: str | None, language: str = "python") -> ParsedReply:
    """BFCL prompt-mode reply (``[f(a=1), g(b='x')]``) → calls, via BFCL's own decoder."""
    if content is None or not content.strip():
        return _failed("empty reply")
    if len(content) > MAX_REPLY_CHARS:
        return _failed(f"reply longer than {MAX_REPLY_CHARS} characters")
    if language == "python":
        reason = unsafe_python_reason(content)
        if reason is not None:
            return _failed(reason)
    handler_utils = bfcl_env.import_bfcl("model_handler.utils")
    enums = bfcl_env.import_bfcl("constants.enums")
    fmt = {"java": enums.ReturnFormat.JAVA, "javascript": enums.ReturnFormat.JAVASCRIPT}.get(
        language, enums.ReturnFormat.PYTHON
    )
    try:
        decoded = handler_utils.default_decode_ast_prompting(content, fmt, False)
    except Exception as exc:  # BFCL's decoders raise many kinds; all mean "no valid calls"
        return _failed(f"cannot decode calls: {type(exc).__name__}: {exc}")
    if not is_call_list(decoded):
        return _failed("decoded output is not a list of function calls")
    return ParsedReply(calls=decoded)


def is_call_list(decoded: Any) -> bool:
    """BFCL's ``is_function_calling_format_output``: ``[{name: {arg: value}}, ...]``."""
    if not isinstance(decoded, list):
        return False
    return all(
        isinstance(item, dict) and len(item) == 1 and isinstance(next(iter(item.values())), dict)
        for item in decoded
    )
