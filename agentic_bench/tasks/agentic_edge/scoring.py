"""Score one BFCL single-turn answer with bfcl-eval's own AST checker.

* non_live / live subsets: ``ast_checker(functions, decoded, ground_truth, language, subset,
  model)`` with the subset's language (Java/JavaScript values are checked as strings, as BFCL
  does). Function names are compared in OpenAI form (dots → underscores, ``underscore_to_dot``),
  so a decoded name may be given either way.
* irrelevance / live_irrelevance: valid iff no tool call was made (an undecodable reply counts
  as "no call", exactly like BFCL).
* an issued sample with no answer (``decoded is None``) scores 0 in every subset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentic_bench.tasks.agentic_edge import bfcl_env
from agentic_bench.tasks.agentic_edge.data import BfclSample
from agentic_bench.tasks.agentic_edge.reply_parsing import Decoded, ParsedReply, is_call_list
from agentic_bench.tasks.agentic_edge.tools_convert import sanitize_name

NO_ANSWER = "no answer"


@dataclass(frozen=True)
class Verdict:
    """One sample's verdict: valid or not, and why not (message and error type)."""

    valid: bool
    error: str | None = None
    error_type: str | None = None


def _is_empty(decoded: Any) -> bool:
    """BFCL's ``is_empty_output``: ``[]``, ``[{}]`` or anything not in call format."""
    if not is_call_list(decoded):
        return True
    return len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


def _canonical_names(decoded: Decoded, functions: list[dict[str, Any]]) -> Decoded:
    """Known BFCL names in the underscore form the checker expects (``underscore_to_dot``)."""
    known = {fn["name"] for fn in functions}
    return [
        {(sanitize_name(name) if name in known else name): args for name, args in call.items()}
        for call in decoded
    ]


def _error_text(error: Any) -> str:
    if isinstance(error, list):
        return "; ".join(str(e) for e in error) or "invalid"
    return str(error)


def score_single(sample: BfclSample, decoded: ParsedReply | Decoded | None) -> Verdict:
    """Verdict for one sample. ``decoded`` is a :class:`ParsedReply`, a raw decoded list, or
    ``None`` when the sample was issued but got no answer."""
    if decoded is None:
        return Verdict(False, NO_ANSWER, "no_answer")
    parse_error: str | None = None
    if isinstance(decoded, ParsedReply):
        parse_error = decoded.error
        calls: Any = decoded.calls
    else:
        calls = decoded
    if sample.expects_no_call:
        if _is_empty(calls):
            return Verdict(True)
        return Verdict(False, "made a function call when none should be made", "irrelevance_error")
    if parse_error is not None:
        return Verdict(False, parse_error, "ast_decoder:decoder_failed")
    if not is_call_list(calls):
        return Verdict(
            False, "not in function-call format", "ast_decoder:decoder_wrong_output_format"
        )
    checker = bfcl_env.import_bfcl("eval_checker.ast_eval.ast_checker")
    enums = bfcl_env.import_bfcl("constants.enums")
    language = {
        "java": enums.Language.JAVA,
        "javascript": enums.Language.JAVASCRIPT,
    }.get(sample.language, enums.Language.PYTHON)
    try:
        result = checker.ast_checker(
            sample.functions,
            _canonical_names(calls, sample.functions),
            sample.ground_truth,
            language,
            sample.subset,
            bfcl_env.CHECKER_MODEL_NAME,
        )
    except Exception as exc:  # the checker assumes well-typed output; anything else is invalid
        return Verdict(
            False, f"checker rejected the output: {type(exc).__name__}: {exc}", "checker"
        )
    if result.get("valid"):
        return Verdict(True)
    return Verdict(False, _error_text(result.get("error")), result.get("error_type"))
