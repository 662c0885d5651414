"""BFCL v4 single-turn samples read from the installed ``bfcl-eval`` package.

Files live in ``bfcl_eval/data/BFCL_v4_<subset>.json`` (JSON Lines), ground truth in
``bfcl_eval/data/possible_answer/BFCL_v4_<subset>.json`` (none for the irrelevance subsets).
``web_search``, ``memory``, ``format_sensitivity`` and ``live_relevance`` are not loaded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge import bfcl_env

Category = Literal["non_live", "live", "hallucination"]
Language = Literal["python", "java", "javascript"]

VERSION_PREFIX = "BFCL_v4"
CATEGORY_SUBSETS: dict[str, tuple[str, ...]] = {
    "non_live": (
        "simple_python",
        "simple_java",
        "simple_javascript",
        "multiple",
        "parallel",
        "parallel_multiple",
    ),
    "live": ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"),
    "hallucination": ("irrelevance", "live_irrelevance"),
}
CATEGORIES: tuple[str, ...] = tuple(CATEGORY_SUBSETS)
SINGLE_TURN_SUBSETS: tuple[str, ...] = tuple(s for subs in CATEGORY_SUBSETS.values() for s in subs)
SUBSET_CATEGORY: dict[str, str] = {s: c for c, subs in CATEGORY_SUBSETS.items() for s in subs}
IRRELEVANCE_SUBSETS = frozenset(CATEGORY_SUBSETS["hallucination"])


@dataclass(frozen=True)
class BfclSample:
    """One single-turn BFCL entry.

    ``messages`` is the first (only) turn of BFCL's ``question`` as OpenAI chat messages;
    ``functions`` are BFCL's own function docs (no language hints; see ``tools_convert``);
    ``ground_truth`` is the ``possible_answer`` list (``None`` for irrelevance subsets).
    Treat instances as read-only: loaders cache and share them.
    """

    id: str
    subset: str
    category: str
    language: str
    messages: list[dict[str, Any]]
    functions: list[dict[str, Any]]
    ground_truth: list[dict[str, Any]] | None

    @property
    def expects_no_call(self) -> bool:
        return self.subset in IRRELEVANCE_SUBSETS


def language_of(subset: str) -> str:
    """BFCL's language for a subset (its checker and prompt decoder depend on it)."""
    if "javascript" in subset:
        return "javascript"
    if "java" in subset:
        return "java"
    return "python"


def category_of(subset: str) -> str:
    try:
        return SUBSET_CATEGORY[subset]
    except KeyError:
        known = ", ".join(SINGLE_TURN_SUBSETS)
        raise ConfigError(f"unknown BFCL single-turn subset {subset!r}; known: {known}") from None


def subset_file(subset: str, *, answers: bool = False) -> Path:
    name = f"{VERSION_PREFIX}_{subset}.json"
    base = bfcl_env.data_dir()
    return base / "possible_answer" / name if answers else base / name


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a BFCL data file (one JSON object per line)."""
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def first_turn_messages(question: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The question as chat messages, every turn flattened in order (single-turn entries have
    one), ``None`` content as ``""`` — MLPerf's ``_build_messages_from_question``
    (``dataset_manager/predefined/bfcl_v4/__init__.py`` 112-129)."""
    return [{"role": m["role"], "content": m.get("content") or ""}
            for turn in question for m in turn]


@cache
def _load_subset_cached(subset: str) -> tuple[BfclSample, ...]:
    category = category_of(subset)
    rows = read_jsonl(subset_file(subset))
    answers: dict[str, Any] = {}
    if subset not in IRRELEVANCE_SUBSETS:
        answers = {
            row["id"]: row["ground_truth"] for row in read_jsonl(subset_file(subset, answers=True))
        }
    samples = []
    for row in rows:
        truth = None if subset in IRRELEVANCE_SUBSETS else answers.get(row["id"])
        if truth is None and subset not in IRRELEVANCE_SUBSETS:
            raise ConfigError(f"BFCL entry {row['id']} has no ground truth in possible_answer/")
        samples.append(
            BfclSample(
                id=row["id"],
                subset=subset,
                category=category,
                language=language_of(subset),
                messages=first_turn_messages(row["question"]),
                functions=row["function"],
                ground_truth=truth,
            )
        )
    return tuple(samples)


def load_subset(subset: str) -> list[BfclSample]:
    """All samples of one single-turn subset, in file order."""
    return list(_load_subset_cached(subset))


def load_single_turn(subsets: list[str] | tuple[str, ...] | None = None) -> list[BfclSample]:
    """Samples of the given subsets (default: all 12 gated single-turn subsets), subset order."""
    chosen = SINGLE_TURN_SUBSETS if subsets is None else tuple(subsets)
    out: list[BfclSample] = []
    for subset in chosen:
        out.extend(load_subset(subset))
    return out


def load_category(category: str) -> list[BfclSample]:
    """The single-turn samples of one BFCL category (all its subsets); a ConfigError naming the
    known categories for any other."""
    if category not in CATEGORY_SUBSETS:
        raise ConfigError(f"unknown BFCL category {category!r}; known: {', '.join(CATEGORIES)}")
    return load_single_turn(CATEGORY_SUBSETS[category])
