"""MLPerf v6.1 Edge Agentic's scoring of one BFCL single-turn reply, rebuilt rule by rule.

The reference is mlcommons/endpoints (snapshot ea332753); each rule names its file and lines:

* **what is scored** (``evaluation/bfcl_v4_scorer.py`` 117-147, ``core/types.py`` 87-110 and
  152-173): when the reply has structured tool calls, the JSON list of those calls
  (``{"type": "function", "function": {"name", "arguments"}, "id"}``); otherwise the reply as
  text: reasoning followed by content, joined without a separator.
* **hallucination subsets** (``bfcl_v4_scorer.py`` 159-174, 314-315; ``extractor.py`` 412-456):
  the sample passes only when that text does *not* parse as a non-empty JSON list of objects
  that each carry a ``function`` object — so any structured call fails, even one whose
  arguments do not parse, and a text reply that happens to be such JSON fails too.
* **extraction** (``extractor.py`` 375-410): first the tool-call JSON above (arguments decoded
  from JSON when they parse, else kept as the string), then a JSON list of ``{"name",
  "arguments"}`` objects, then — last resort, also for a text-only reply in native mode —
  ``name(key=value, ...)`` calls found in the text (``extractor.py`` 485-592: balanced
  parentheses outside quotes, a skip list of common words and builtins, calls nested in an
  earlier call's arguments ignored, bare-identifier argument lists taken for signatures,
  ``ast.literal_eval`` per keyword with ``ast.unparse`` as fallback, ``{"_raw": text}`` when the
  argument list does not parse). Nothing extracted means ``[]``.
* **AST check** (``bfcl_v4_scorer.py`` 186-238): arguments still a string are JSON-decoded or
  become ``{}``; entries without ``name`` are dropped; names are passed as the model wrote them;
  bfcl-eval's ``ast_checker`` with the raw function docs, the subset's language (Java and
  JavaScript for ``simple_java`` / ``simple_javascript`` only) and underscore-to-dot names.

One departure: the reference lets an exception abort the whole scoring pass — from
``ast_checker``, from the extractor's ``json.dumps`` of arguments JSON cannot encode (a set
literal in a text call: ``extractor.py`` 554-555), or from ``ast.literal_eval`` raising what
``extractor.py`` 586-587 does not catch (``TypeError`` for ``f(a={[1]: 2})``), uncaught up to
``commands/benchmark/accuracy.py`` 284, so no ``accuracy_results.json`` is written; here that
sample alone scores 0, with the exception in its error text, and counts as completed.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from agentic_bench.tasks.agentic_edge import bfcl_env
from agentic_bench.tasks.agentic_edge.data import BfclSample
from agentic_bench.tasks.agentic_edge.scoring import Verdict

Call = dict[str, Any]  # {"name": str, "arguments": Any}

SKIP_NAMES = frozenset({
    "print", "return", "if", "for", "while", "def", "class", "import", "from", "with", "assert",
    "raise", "try", "except", "len", "str", "int", "float", "list", "dict", "set", "tuple",
    "type", "isinstance", "range", "enumerate", "zip", "map", "filter", "Note", "Example",
    "Here", "This", "The", "For",
})  # extractor.py 333-371
_CALL_START = re.compile(r"\b([A-Za-z_]\w*)\s*\(")  # extractor.py 373
_SIGNATURE_PART = re.compile(r"[A-Za-z_]\w*(?:\s*:\s*\w+)?")  # extractor.py 566
_JAVA_LIKE = {"simple_java": "JAVA", "simple_javascript": "JAVASCRIPT"}  # bfcl_v4_scorer.py 56


def scoring_text(content: str, tool_calls: list[dict[str, Any]], reasoning: str = "") -> str:
    """The text the reference scores for one reply (see the module docstring)."""
    if tool_calls:
        merged = []
        for call in tool_calls:
            fn: dict[str, Any] = {"arguments": call.get("arguments") or ""}
            if call.get("name"):
                fn["name"] = call["name"]
            entry: dict[str, Any] = {"type": "function", "function": fn}
            if call.get("id"):
                entry["id"] = call["id"]
            merged.append(entry)
        return json.dumps(merged, separators=(",", ":"))
    return (reasoning or "") + (content or "")


def _json_list(text: str) -> list[Any] | None:
    try:
        data = json.loads(text)
    except (ValueError, TypeError):
        return None
    return data if isinstance(data, list) else None


def _tool_call_json(text: str) -> list[Call] | None:
    data = _json_list(text)
    if data is None:
        return None
    calls: list[Call] = []
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("function"), dict):
            return None
        fn = item["function"]
        arguments = fn.get("arguments", "{}")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass
        calls.append({"name": fn.get("name", ""), "arguments": arguments})
    return calls or None


def has_structured_calls(text: str) -> bool:
    """``FunctionCallExtractor.has_native_tool_calls`` (extractor.py 412-420)."""
    return bool(text) and _tool_call_json(text.strip()) is not None


def _function_array(text: str) -> list[Call] | None:
    data = _json_list(text)
    if data is None:
        return None
    calls: list[Call] = []
    for item in data:
        if not isinstance(item, dict) or "name" not in item:
            return None
        calls.append({"name": item["name"], "arguments": item.get("arguments", {})})
    return calls or None


def _closing_paren(text: str, start: int) -> int | None:
    depth, i, single, double = 0, start, False, False
    while i < len(text):
        ch = text[i]
        if ch == "\\" and (single or double):
            i += 2
            continue
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif not single and not double:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return i
        i += 1
    return None


def _keyword_arguments(args: str) -> dict[str, Any]:
    if not args:
        return {}
    out: dict[str, Any] = {}
    try:
        tree = ast.parse(f"dict({args})", mode="eval")
    except (SyntaxError, ValueError):
        return {"_raw": args}
    if isinstance(tree.body, ast.Call):
        for kw in tree.body.keywords:
            if kw.arg is None:
                continue
            try:
                out[kw.arg] = ast.literal_eval(kw.value)
            except (ValueError, SyntaxError):
                out[kw.arg] = ast.unparse(kw.value)
    return out


def _text_calls(text: str) -> list[Call] | None:
    calls: list[Call] = []
    consumed: list[tuple[int, int]] = []
    for match in _CALL_START.finditer(text):
        if any(s <= match.start() < e for s, e in consumed):
            continue
        name = match.group(1)
        if name in SKIP_NAMES:
            continue
        opening = match.end() - 1
        closing = _closing_paren(text, opening)
        if closing is None:
            continue
        consumed.append((opening, closing + 1))
        args = text[opening + 1 : closing].strip()
        parts = [p.strip() for p in args.split(",")]
        if args and all(_SIGNATURE_PART.fullmatch(p) for p in parts if p):
            continue
        calls.append({"name": name, "arguments": _keyword_arguments(args)})
    return calls or None


class UnencodableCall(ValueError):
    """Extracted arguments JSON cannot encode (a set, bytes, a complex number)."""


def extract_calls(text: str) -> list[Call]:
    """``FunctionCallExtractor.extract`` with the scorer's default ``"[]"`` (as a list).

    The extractor hands the scorer a JSON string (``extractor.py`` 452-453, 479-480, 554-555:
    ``json.dumps``) and the scorer decodes it (``bfcl_v4_scorer.py`` 194-197: ``json.loads``):
    the calls go through that round trip here too, so a tuple argument becomes a list and an
    integer dict key a string. Raises :class:`UnencodableCall` where ``json.dumps`` fails."""
    if not isinstance(text, str) or not text.strip():
        return []
    text = text.strip()
    for step in (_tool_call_json, _function_array, _text_calls):
        calls = step(text)
        if calls is not None:
            try:
                decoded: list[Call] = json.loads(json.dumps(calls))
            except (TypeError, ValueError) as exc:
                raise UnencodableCall(str(exc)) from None
            return decoded
    return []


def checker_input(calls: list[Call]) -> list[dict[str, Any]]:
    """Extractor form → ``ast_checker`` form (bfcl_v4_scorer.py 213-225)."""
    out = []
    for call in calls:
        if not isinstance(call, dict) or "name" not in call:
            continue
        args = call.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {}
        out.append({call["name"]: args})
    return out


def score_reply(sample: BfclSample, text: str) -> tuple[Verdict, list[Call]]:
    """Verdict for the scored ``text`` of one answered sample, and the extracted calls."""
    if sample.expects_no_call:
        if has_structured_calls(text):
            return Verdict(False, "made a structured tool call", "irrelevance_error"), []
        return Verdict(True), []
    try:
        calls = extract_calls(text)
    except UnencodableCall as exc:  # see the module docstring: one sample, not the whole pass
        return Verdict(False, f"extracted arguments are not JSON-serializable: {exc}",
                       "extractor"), []
    except Exception as exc:  # literal_eval's TypeError etc.: the same departure, one sample
        return Verdict(False, f"extractor raised {type(exc).__name__}: {exc}", "extractor"), []
    checker = bfcl_env.import_bfcl("eval_checker.ast_eval.ast_checker")
    enums = bfcl_env.import_bfcl("constants.enums")
    language = enums.Language[_JAVA_LIKE.get(sample.subset, "PYTHON")]
    try:
        result = checker.ast_checker(sample.functions, checker_input(calls),
                                     sample.ground_truth, language, sample.subset,
                                     bfcl_env.CHECKER_MODEL_NAME)
    except Exception as exc:  # see the module docstring: one sample, not the whole pass
        return Verdict(False, f"checker raised {type(exc).__name__}: {exc}", "checker"), calls
    if result.get("valid"):
        return Verdict(True), calls
    error = result.get("error")
    text_error = "; ".join(map(str, error)) if isinstance(error, list) else str(error)
    return Verdict(False, text_error or "invalid", result.get("error_type")), calls
