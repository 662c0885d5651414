"""The ground truth turned into a model answer (self-checks of the scorer, dry runs).

BFCL's ``possible_answer`` lists acceptable values per parameter (``""`` marks "may be
omitted"); nested dicts list options per key. The oracle takes the first acceptable value of each.
For Java and JavaScript subsets BFCL's checker expects every value as source text (``"true"``,
``"50L"``, ``new ArrayList<>(Arrays.asList(...))``), so values are rendered the way BFCL's
type converters parse them back.
"""

from __future__ import annotations

import json
from typing import Any

from agentic_bench.tasks.agentic_edge.data import BfclSample
from agentic_bench.tasks.agentic_edge.reply_parsing import Decoded

_OMIT = object()


def _first(options: Any) -> Any:
    if not isinstance(options, list):
        return _resolve(options)
    for option in options:
        if option != "":
            return _resolve(option)
    return _OMIT


def _resolve(value: Any) -> Any:
    """A chosen option with nested per-key option lists resolved (dicts, lists of dicts)."""
    if isinstance(value, dict):
        out = {}
        for key, options in value.items():
            chosen = _first(options)
            if chosen is not _OMIT:
                out[key] = chosen
        return out
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_resolve(v) for v in value]
    return value


def _java_scalar(value: Any) -> str:
    """Untyped Java literal (``parse_java_value``): strings quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def java_source(value: Any, jtype: str, item_type: str | None = None) -> str:
    """``value`` as Java source text for a parameter of BFCL type ``jtype``."""
    if isinstance(value, str) and jtype not in ("Array", "ArrayList", "HashMap"):
        return value
    if jtype == "boolean":
        return "true" if value else "false"
    if jtype == "long":
        return f"{value}L"
    if jtype == "float":
        return f"{value}f"
    if jtype == "Array" and isinstance(value, list):
        items = ", ".join(java_source(v, item_type or "String") for v in value)
        return f"new {item_type or 'Object'}[]{{{items}}}"
    if jtype == "ArrayList" and isinstance(value, list):
        if item_type == "String":
            items = ", ".join(f'"{v}"' for v in value)
        else:
            items = ", ".join(java_source(v, item_type or "any") for v in value)
        return f"new ArrayList<>(Arrays.asList({items}))"
    if jtype == "HashMap" and isinstance(value, dict):
        puts = " ".join(f'put("{k}", {_java_scalar(v)});' for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return _java_scalar(value) if not isinstance(value, str) else value


def js_source(value: Any, jstype: str) -> str:
    """``value`` as JavaScript source text for a parameter of BFCL type ``jstype``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if jstype == "Bigint":
        return f"{value}n"
    if isinstance(value, list | dict):
        return json.dumps(value)
    return str(value)


def _render(sample: BfclSample, name: str, args: dict[str, Any]) -> dict[str, Any]:
    doc = next((f for f in sample.functions if f["name"] == name), None)
    if doc is None or sample.language == "python":
        return args
    props = doc["parameters"]["properties"]
    out = {}
    for param, value in args.items():
        spec = props.get(param, {})
        ptype = spec.get("type", "String")
        if sample.language == "java":
            out[param] = java_source(value, ptype, spec.get("items", {}).get("type"))
        else:
            out[param] = js_source(value, ptype)
    return out


def oracle_decoded(sample: BfclSample) -> Decoded:
    """The ground truth as a decoded answer; ``[]`` for irrelevance subsets."""
    calls: Decoded = []
    for entry in sample.ground_truth or []:
        for name, params in entry.items():
            args: dict[str, Any] = {}
            for param, options in params.items():
                chosen = _first(options)
                if chosen is not _OMIT:
                    args[param] = chosen
            calls.append({name: _render(sample, name, args)})
    return calls
