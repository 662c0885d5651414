"""Score a multi-turn run with bfcl-eval's ``multi_turn_checker`` (state + response checks).

BFCL's checker executes call *strings* with ``eval``. Model output never reaches it as written:
each call (a decoded ``{name: {arg: value}}`` or a call string, which is parsed with ``ast``) is
re-rendered here from validated parts — a method name of the involved classes, identifier keyword
names, and plain literal values (``repr``) — so the only strings BFCL evaluates are ones we built.
Calls that fail validation are dropped (BFCL would record an execution error for them, which
changes no state), and steps left empty are dropped, as BFCL's runner does.

BFCL caches API instances in its module globals under a name built from the model name and the
entry id; each check uses a fresh name and removes its instances afterwards.
"""

from __future__ import annotations

import itertools
import json
import keyword
import math
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from agentic_bench.tasks.agentic_edge import bfcl_env
from agentic_bench.tasks.agentic_edge.api_environment import ApiEnvironment, parse_call
from agentic_bench.tasks.agentic_edge.multi_turn import MultiTurnSample
from agentic_bench.tasks.agentic_edge.scoring import Verdict

CallLike = str | Mapping[str, Any]
_MAX_DEPTH = 32
_lock = threading.Lock()
_counter = itertools.count()


def _plain_literal(value: Any, depth: int = 0) -> bool:
    if depth > _MAX_DEPTH:
        return False
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(_plain_literal(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(
            _plain_literal(k, depth + 1) and _plain_literal(v, depth + 1) for k, v in value.items()
        )
    return False


def _call_parts(call: CallLike) -> tuple[str, list[Any], dict[str, Any]]:
    if isinstance(call, str):
        return parse_call(call)
    if isinstance(call, Mapping) and len(call) == 1:
        name, params = next(iter(call.items()))
        if isinstance(params, str):
            params = json.loads(params)
        if isinstance(name, str) and isinstance(params, Mapping):
            return name, [], dict(params)
    raise ValueError("not a call")


def render_call(call: CallLike, allowed: frozenset[str]) -> str | None:
    """A safe, canonical call string for BFCL's executor, or ``None`` if the call is invalid."""
    try:
        name, args, kwargs = _call_parts(call)
    except (ValueError, TypeError):
        return None
    if name not in allowed:
        return None
    if not all(
        isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k) for k in kwargs
    ):
        return None
    if not all(_plain_literal(v) for v in [*args, *kwargs.values()]):
        return None
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def render_turns(
    sample: MultiTurnSample, model_calls: Sequence[Sequence[Sequence[CallLike]]]
) -> list[list[list[str]]]:
    """Per turn, per step, the rendered calls (invalid calls and empty steps removed)."""
    allowed = ApiEnvironment.for_sample(sample).function_names
    turns: list[list[list[str]]] = []
    for turn in model_calls:
        steps = []
        for step in turn:
            rendered = [r for r in (render_call(c, allowed) for c in step) if r is not None]
            if rendered:
                steps.append(rendered)
        turns.append(steps)
    return turns


def _cleanup(module: Any, prefix: str) -> None:
    for key in [k for k in vars(module) if k.startswith(prefix)]:
        del vars(module)[key]


def check_multi_turn(
    sample: MultiTurnSample, model_calls: Sequence[Sequence[Sequence[CallLike]]]
) -> Verdict:
    """``model_calls[turn][step]`` = the calls the model made in that step (decoded dicts or
    call strings). Valid iff BFCL's checker accepts every turn."""
    if len(model_calls) != len(sample.ground_truth):
        return Verdict(
            False,
            f"model result has {len(model_calls)} turns, ground truth {len(sample.ground_truth)}",
            "multi_turn:force_terminated",
        )
    decoded = render_turns(sample, model_calls)
    checker = bfcl_env.import_bfcl("eval_checker.multi_turn_eval.multi_turn_checker")
    utils = bfcl_env.import_bfcl("eval_checker.multi_turn_eval.multi_turn_utils")
    entry = {
        "id": sample.id,
        "initial_config": sample.initial_config,
        "involved_classes": sample.involved_classes,
    }
    with _lock:
        model_name = f"agentic_bench_mt{next(_counter)}"
        try:
            result = checker.multi_turn_checker(
                decoded, sample.ground_truth, entry, sample.subset, model_name
            )
        except Exception as exc:  # BFCL asserts on inconsistent instance sets
            return Verdict(False, f"checker failed: {type(exc).__name__}: {exc}", "checker")
        finally:
            _cleanup(utils, model_name + "_")
    if result.get("valid"):
        return Verdict(True)
    return Verdict(False, str(result.get("error_message", "invalid")), result.get("error_type"))
