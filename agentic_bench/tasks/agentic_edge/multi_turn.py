"""BFCL v4 multi-turn samples: turns, ground truth, simulated-API setup, tools per turn.

Function docs come from ``bfcl_eval/data/multi_turn_func_doc/`` (one file per involved class,
BFCL's ``MULTI_TURN_FUNC_DOC_FILE_MAPPING``). ``miss_func`` entries hold functions out
(``missed_function: {turn: [names]}``, BFCL's ``populate_test_cases_with_predefined_functions``):
they are removed from the initial docs and added back at that turn, whose (empty) question is
replaced by BFCL's ``DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC``; the ground truth of the
turn before is empty (the model should not manage without the function).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge import bfcl_env
from agentic_bench.tasks.agentic_edge.data import read_jsonl, subset_file
from agentic_bench.tasks.agentic_edge.tools_convert import hinted_functions, to_openai_tools

MULTI_TURN_SUBSETS: tuple[str, ...] = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)


@dataclass(frozen=True)
class MultiTurnSample:
    """One multi-turn entry. ``turns[i]`` is BFCL's question turn ``i`` (may be empty for a
    holdout turn); ``ground_truth[i]`` its call strings (e.g. ``"cd(folder='document')"``).
    ``functions`` are the docs available from the start; ``missed_functions`` maps a turn index
    to the docs added at that turn. Treat as read-only (loaders cache instances)."""

    id: str
    subset: str
    turns: list[list[dict[str, Any]]]
    ground_truth: list[list[str]]
    involved_classes: list[str]
    initial_config: dict[str, Any]
    functions: list[dict[str, Any]]
    missed_functions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    excluded_function: list[str] = field(default_factory=list)

    @property
    def long_context(self) -> bool:
        return "long_context" in self.subset

    @property
    def num_turns(self) -> int:
        return len(self.turns)

    def all_functions(self) -> list[dict[str, Any]]:
        """Initial docs plus every held-out doc (the full tool set of the session)."""
        out = list(self.functions)
        for turn in sorted(self.missed_functions):
            out.extend(self.missed_functions[turn])
        return out


def _check_subset(subset: str) -> None:
    if subset not in MULTI_TURN_SUBSETS:
        known = ", ".join(MULTI_TURN_SUBSETS)
        raise ConfigError(f"unknown BFCL multi-turn subset {subset!r}; known: {known}")


@cache
def class_function_docs(class_name: str) -> tuple[dict[str, Any], ...]:
    """BFCL's function docs of one simulated API class."""
    backend = bfcl_env.import_bfcl("constants.executable_backend_config")
    try:
        file_name = backend.MULTI_TURN_FUNC_DOC_FILE_MAPPING[class_name]
    except KeyError:
        raise ConfigError(f"BFCL has no function docs for class {class_name!r}") from None
    return tuple(read_jsonl(bfcl_env.data_dir() / "multi_turn_func_doc" / file_name))


def _split_missed(
    docs: list[dict[str, Any]], missed: dict[str, list[str]]
) -> tuple[list[dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    remaining = list(docs)
    held: dict[int, list[dict[str, Any]]] = {}
    for turn, names in missed.items():
        held[int(turn)] = []
        for name in names:
            for i, doc in enumerate(remaining):
                if doc["name"] == name:
                    held[int(turn)].append(remaining.pop(i))
                    break
    return remaining, held


@cache
def _load_cached(subset: str) -> tuple[MultiTurnSample, ...]:
    _check_subset(subset)
    answers = {r["id"]: r["ground_truth"] for r in read_jsonl(subset_file(subset, answers=True))}
    samples = []
    for row in read_jsonl(subset_file(subset)):
        docs = [d for cls in row["involved_classes"] for d in class_function_docs(cls)]
        functions, held = _split_missed(copy.deepcopy(docs), row.get("missed_function", {}))
        samples.append(
            MultiTurnSample(
                id=row["id"],
                subset=subset,
                turns=row["question"],
                ground_truth=answers[row["id"]],
                involved_classes=list(row["involved_classes"]),
                initial_config=row["initial_config"],
                functions=functions,
                missed_functions=held,
                excluded_function=list(row.get("excluded_function", [])),
            )
        )
    return tuple(samples)


def load_multi_turn(subset: str, limit: int | None = None) -> list[MultiTurnSample]:
    """Samples of one multi-turn subset in file order (the first ``limit`` when given)."""
    samples = _load_cached(subset)
    return list(samples if limit is None else samples[: max(0, limit)])


def is_holdout_turn(sample: MultiTurnSample, turn: int) -> bool:
    return turn in sample.missed_functions


def turn_messages(sample: MultiTurnSample, turn: int) -> list[dict[str, Any]]:
    """The user message(s) that open turn ``turn`` (BFCL's holdout prompt on holdout turns)."""
    if is_holdout_turn(sample, turn):
        prompts = bfcl_env.import_bfcl("constants.default_prompts")
        return [{"role": "user", "content": prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC}]
    return [{"role": m["role"], "content": m.get("content") or ""} for m in sample.turns[turn]]


def functions_at_turn(sample: MultiTurnSample, turn: int) -> list[dict[str, Any]]:
    """Docs the model may use in turn ``turn`` (held-out docs join at their turn and stay)."""
    out = list(sample.functions)
    for held_turn in sorted(sample.missed_functions):
        if held_turn <= turn:
            out.extend(sample.missed_functions[held_turn])
    return out


def tools_at_turn(sample: MultiTurnSample, turn: int) -> list[dict[str, Any]]:
    """OpenAI tools for turn ``turn``: BFCL hints the initial docs only (its holdout docs are
    split off before hints are added), then ``convert_to_tool``."""
    docs = hinted_functions(sample.functions, sample.subset)
    for held_turn in sorted(sample.missed_functions):
        if held_turn <= turn:
            docs.extend(copy.deepcopy(sample.missed_functions[held_turn]))
    return to_openai_tools(docs)


def all_tools(sample: MultiTurnSample) -> list[dict[str, Any]]:
    """Tools of the whole session (every held-out function included)."""
    return tools_at_turn(sample, max(sample.num_turns - 1, 0))
