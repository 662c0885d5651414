"""MLPerf / BFCL aggregation of single-turn verdicts into summary.json's accuracy block.

* per subset: correct / total;
* ``non_live``: hierarchical, unweighted — simple = mean(simple_python, simple_java,
  simple_javascript), then non_live = mean(simple, multiple, parallel, parallel_multiple)
  (BFCL's ``overall_accuracy_non_live``);
* ``live``: sample-weighted — correct / total over the four live subsets (BFCL's
  ``calculate_weighted_accuracy``);
* ``hallucination``: unweighted mean of irrelevance and live_irrelevance (BFCL's
  ``total_irrelevance``);
* ``overall``: correct / total over every scored sample; ``normalized``: mean of the category
  figures.

Departure from BFCL's leaderboard: a subset or category with no samples in the run is left out
of the means (BFCL counts it as 0); it appears with ``accuracy: null``. Callers score issued
samples that got no answer as incorrect before aggregating (``score_single(sample, None)``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentic_bench.tasks.agentic_edge.data import CATEGORY_SUBSETS, SUBSET_CATEGORY

SIMPLE_SUBSETS = ("simple_python", "simple_java", "simple_javascript")
NON_LIVE_GROUPS = ("simple", "multiple", "parallel", "parallel_multiple")


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _ratio(correct: int, total: int) -> float | None:
    return correct / total if total else None


def _subset_table(results: Iterable[tuple[str, bool]]) -> dict[str, dict[str, Any]]:
    counts: dict[str, list[int]] = {}
    for subset, valid in results:
        entry = counts.setdefault(subset, [0, 0])
        entry[0] += int(bool(valid))
        entry[1] += 1
    ordered = [s for subs in CATEGORY_SUBSETS.values() for s in subs if s in counts]
    ordered += sorted(s for s in counts if s not in SUBSET_CATEGORY)
    return {
        s: {"accuracy": _ratio(*counts[s]), "correct": counts[s][0], "total": counts[s][1]}
        for s in ordered
    }


def _sum(subsets: dict[str, dict[str, Any]], names: Iterable[str], key: str) -> int:
    return sum(subsets[n][key] for n in names if n in subsets)


def _acc(subsets: dict[str, dict[str, Any]], name: str) -> float | None:
    return subsets[name]["accuracy"] if name in subsets else None


def _categories(subsets: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    simple = _mean(_acc(subsets, s) for s in SIMPLE_SUBSETS)
    non_live = _mean(
        [
            simple,
            _acc(subsets, "multiple"),
            _acc(subsets, "parallel"),
            _acc(subsets, "parallel_multiple"),
        ]
    )
    live_names = CATEGORY_SUBSETS["live"]
    halluc = _mean(_acc(subsets, s) for s in CATEGORY_SUBSETS["hallucination"])
    figures = {
        "non_live": (non_live, "hierarchical unweighted mean (simple_* averaged first)"),
        "live": (
            _ratio(_sum(subsets, live_names, "correct"), _sum(subsets, live_names, "total")),
            "sample-weighted",
        ),
        "hallucination": (halluc, "unweighted mean of subsets"),
    }
    out: dict[str, dict[str, Any]] = {}
    for category, (accuracy, rule) in figures.items():
        names = CATEGORY_SUBSETS[category]
        out[category] = {
            "accuracy": accuracy,
            "correct": _sum(subsets, names, "correct"),
            "total": _sum(subsets, names, "total"),
            "rule": rule,
        }
    out["non_live"]["simple"] = simple
    return out


def aggregate(results: Iterable[tuple[str, bool]]) -> dict[str, Any]:
    """``(subset, valid)`` pairs → ``{"overall", "normalized", "categories", "subsets"}``."""
    subsets = _subset_table(results)
    categories = _categories(subsets)
    correct = sum(v["correct"] for v in subsets.values())
    total = sum(v["total"] for v in subsets.values())
    return {
        "overall": _ratio(correct, total),
        "normalized": _mean(c["accuracy"] for c in categories.values()),
        "correct": correct,
        "total": total,
        "categories": categories,
        "subsets": subsets,
    }
