"""BFCL function docs → OpenAI ``tools``, with bfcl-eval's own converter and name sanitising.

BFCL's generation pipeline adds language hints to the function docs before a model sees them
(``bfcl_eval.utils._func_doc_language_specific_pre_processing``: "Note that the provided function
is in Python 3 syntax.", Java/JavaScript parameters turned into strings with their real type in the
description). The checker, in turn, reads the *original* docs. We do the same: ``hinted_functions``
for requests, ``BfclSample.functions`` for scoring.

OpenAI function names must match ``^[a-zA-Z0-9_-]{1,64}$``: ``convert_to_tool`` replaces dots
with underscores (``math.factorial`` → ``math_factorial``); ``name_map`` maps them back.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from agentic_bench.tasks.agentic_edge import bfcl_env


def sanitize_name(name: str) -> str:
    """BFCL's rule for OpenAI-style names: every ``.`` becomes ``_``."""
    return re.sub(r"\.", "_", name)


def name_map(functions: list[dict[str, Any]]) -> dict[str, str]:
    """Sanitised name → original BFCL name (identity entries included)."""
    mapping: dict[str, str] = {}
    for fn in functions:
        original = fn["name"]
        mapping.setdefault(sanitize_name(original), original)
        mapping[original] = original
    return mapping


def hinted_functions(functions: list[dict[str, Any]], subset: str) -> list[dict[str, Any]]:
    """A copy of the docs with BFCL's language-specific hints (what BFCL shows the model)."""
    utils = bfcl_env.import_bfcl("utils")
    docs = copy.deepcopy(functions)
    return list(utils._func_doc_language_specific_pre_processing(docs, subset))


def to_openai_tools(
    functions: list[dict[str, Any]], *, subset: str | None = None
) -> list[dict[str, Any]]:
    """OpenAI chat ``tools`` for BFCL docs (hinted first when ``subset`` is given).

    Uses ``bfcl_eval.model_handler.utils.convert_to_tool(functions, GORILLA_TO_OPENAPI,
    ModelStyle.OPENAI_COMPLETIONS)`` — the exact conversion BFCL's OpenAI handler uses.
    """
    docs = hinted_functions(functions, subset) if subset else copy.deepcopy(functions)
    handler_utils = bfcl_env.import_bfcl("model_handler.utils")
    enums = bfcl_env.import_bfcl("constants.enums")
    mappings = bfcl_env.import_bfcl("constants.type_mappings")
    tools = handler_utils.convert_to_tool(
        docs, mappings.GORILLA_TO_OPENAPI, enums.ModelStyle.OPENAI_COMPLETIONS
    )
    return list(tools)


def tool_names(tools: list[dict[str, Any]]) -> list[str]:
    return [t["function"]["name"] for t in tools if isinstance(t.get("function"), dict)]
