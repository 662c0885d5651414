"""Aggregation and gate against a transcription of MLPerf's formulas (mlcommons/endpoints
ea332753), fed the same per-sample vectors — unanswered samples and the rounding edge included.
"""

from __future__ import annotations

import random
from statistics import mean
from typing import Any

import pytest

from agentic_bench.metrics import RunInfo, summarize
from agentic_bench.tasks.agentic_edge.data import CATEGORY_SUBSETS
from agentic_bench.tasks.agentic_edge.gates import MIN_COMPLETED, gate_rows
from agentic_bench.tasks.agentic_edge.run_summary import edge_accuracy

SUBSETS = [s for subs in CATEGORY_SUBSETS.values() for s in subs]


def reference_breakdown(scored: list[tuple[str, float]], missing: list[str]) -> dict[str, Any]:
    """Transcription of ``evaluation/bfcl_v4_scorer.py`` ``score()``:

    * 305-328: per-sample scores collected per subset; 335: ``n_completed = len(all_scores)``;
    * 344-350: every issued sample without a completion adds 0.0 under its subset;
    * 352-354: subset = mean; 356-383: live sample-weighted, non_live hierarchical (simple_*
      averaged first, then the mean with the other present subsets), hallucination unweighted;
    * 386-388: normalized = mean of the present categories; 400: overall = mean of all scores;
    * 401-411: percentages rounded to 2 decimals; ``total_samples`` = completed.
    """
    by: dict[str, list[float]] = {}
    scores: list[float] = []
    for subset, s in scored:
        by.setdefault(subset, []).append(s)
        scores.append(s)
    completed = len(scores)
    for subset in missing:
        by.setdefault(subset, []).append(0.0)
        scores.append(0.0)
    sub = {k: mean(v) for k, v in by.items()}
    cats: dict[str, float] = {}
    for cat, subs in CATEGORY_SUBSETS.items():
        present = [s for s in subs if s in sub]
        if not present:
            continue
        if cat == "live":
            cats[cat] = sum(sub[s] * len(by[s]) for s in present) / sum(len(by[s]) for s in present)
        elif cat == "non_live":
            simple = [sub[s] for s in present if s.startswith("simple_")]
            top = ([mean(simple)] if simple else []) + [
                sub[s] for s in present if not s.startswith("simple_")]
            cats[cat] = mean(top)
        else:
            cats[cat] = mean(sub[s] for s in present)
    return {"overall_accuracy": round(mean(scores) * 100, 2),
            "normalized_single_turn_score": round(mean(cats.values()) * 100, 2),
            "total_samples": completed}


def reference_gate(breakdown: dict[str, Any]) -> bool:
    """``compliance/checker.py`` 191-240 with ``models.py`` 157-167 and ``rules.py`` 322:
    rounded measured >= golden x 0.97 (unrounded), and total_samples >= 995."""
    return (breakdown["overall_accuracy"] >= 86.23 * 0.97
            and breakdown["normalized_single_turn_score"] >= 87.96 * 0.97
            and breakdown["total_samples"] >= 995)


def _records(scored: list[tuple[str, str, bool, bool]]) -> list[dict[str, Any]]:
    return [{"type": "sample", "sample_id": sid, "subset": subset, "category": "x",
             "bfcl_valid": ok, "answered": answered} for sid, subset, ok, answered in scored]


@pytest.mark.parametrize("seed", range(12))
def test_aggregation_matches_the_reference_on_random_vectors(seed: int) -> None:
    rng = random.Random(seed)
    planned: dict[str, str] = {}
    scored: list[tuple[str, str, bool, bool]] = []
    for i in range(rng.randint(30, 400)):
        subset = rng.choice(SUBSETS[: rng.randint(3, len(SUBSETS))])
        sid = f"{subset}_{i}"
        planned[sid] = subset
        roll = rng.random()
        if roll < 0.1:
            continue  # planned, never issued (stopped run)
        answered = roll >= 0.15  # an error: issued, no answer
        scored.append((sid, subset, answered and rng.random() < 0.7, answered))
    acc = edge_accuracy(_records(scored), "native", None, planned, gated=True)
    assert acc is not None
    # the reference sees a completion for every answered sample, nothing for the rest
    ref = reference_breakdown([(s, float(ok)) for _, s, ok, a in scored if a],
                              [planned[sid] for sid in planned
                               if sid not in {x[0] for x in scored if x[3]}])
    assert acc["reported"] == {k: ref[k] for k in acc["reported"]}
    assert acc["completed"] == ref["total_samples"]
    assert acc["planned"] == len(planned)
    rows = {r["name"]: r["ok"] for r in acc["gates"]}
    assert rows == {
        "bfcl_overall_accuracy": ref["overall_accuracy"] >= 86.23 * 0.97,
        "bfcl_normalized_single_turn_score": ref["normalized_single_turn_score"] >= 87.96 * 0.97,
        "bfcl_completed_samples": ref["total_samples"] >= 995,
    }
    assert all(rows.values()) is reference_gate(ref)


@pytest.mark.parametrize(("overall", "ok"), [(0.8364, False), (0.83645, False),
                                              (0.8365, True), (0.83649, True),
                                              (0.836449, False)])
def test_rounding_edge_of_the_overall_gate(overall: float, ok: bool) -> None:
    rows = {r["name"]: r for r in gate_rows(overall, 0.90, 995)}
    assert rows["bfcl_overall_accuracy"]["ok"] is ok
    ref = {"overall_accuracy": round(overall * 100, 2), "normalized_single_turn_score": 90.0,
           "total_samples": 995}
    assert reference_gate(ref) is ok
    assert rows["bfcl_overall_accuracy"]["limit"] == 86.23 * 0.97


def test_normalized_gate_and_the_minimum_count() -> None:
    rows = {r["name"]: r for r in gate_rows(0.9, 0.8532, 995)}
    assert rows["bfcl_normalized_single_turn_score"]["ok"] is False  # 85.32 < 85.3212
    rows = {r["name"]: r for r in gate_rows(0.9, 0.8533, MIN_COMPLETED - 1)}
    assert rows["bfcl_normalized_single_turn_score"]["ok"] is True
    assert rows["bfcl_completed_samples"]["ok"] is False
    target = {r["name"]: r for r in gate_rows(0.5, 0.1, 995, target=0.5)}
    assert target["bfcl_overall_accuracy"]["ok"] and "bfcl_normalized_single_turn_score" \
        not in target


def test_gates_are_constraint_rows_of_the_verdict() -> None:
    planned = {f"simple_python_{i}": "simple_python" for i in range(995)}
    records = _records([(sid, "simple_python", True, True) for sid in planned][:990])
    acc = edge_accuracy(records, "native", None, planned, gated=True)
    summary = summarize(records, RunInfo("agentic-edge", True, 1.0, accuracy=acc))
    rows = {r["name"]: r for r in summary["constraints"]}
    assert rows["bfcl_completed_samples"] == {**rows["bfcl_completed_samples"], "value": 990,
                                              "ok": False}
    assert rows["bfcl_overall_accuracy"]["value"] == 99.5  # 5 never issued score 0
    assert summary["result"] == "INVALID"


def test_a_run_that_meets_every_gate_reads_valid() -> None:
    planned = {f"{s}_{i}": s for s in ("simple_python", "live_simple", "irrelevance")
               for i in range(332)}
    wrong = {"simple_python_0", "live_simple_0", "irrelevance_0"}  # 99.70 / 99.70
    records = _records([(sid, s, sid not in wrong, True) for sid, s in planned.items()])
    acc = edge_accuracy(records, "native", None, planned, gated=True)
    summary = summarize(records, RunInfo("agentic-edge", True, 1.0, accuracy=acc))
    assert acc is not None and acc["reported"]["overall_accuracy"] == 99.7
    assert summary["result"] == "VALID", summary["constraints"]


def test_rescore_counts_planned_samples_that_never_ran_from_the_earlier_block() -> None:
    from agentic_bench.tasks.agentic_edge.run_summary import rescore

    planned = {f"simple_python_{i}": "simple_python" for i in range(10)}
    records = _records([(f"simple_python_{i}", "simple_python", True, True) for i in range(6)])
    first = edge_accuracy(records, "native", None, planned, gated=True)
    assert first is not None and first["overall"] == 0.6
    again = rescore(records, first)
    assert again is not None
    assert (again["overall"], again["planned"], again["completed"]) == (0.6, 10, 6)
    assert [g["name"] for g in again["gates"]] == [g["name"] for g in first["gates"]]


def test_with_trials_the_block_scores_trial_0_of_each_sample_whatever_finished_last() -> None:
    """--trials 2: trial 0 right, trial 1 wrong. The block (and MLPerf's gate) scores each
    sample once — its trial 0 — in either completion order; before, the last record won."""
    first = [{**r, "trial": 0} for r in _records([("a", "simple_python", True, True),
                                                  ("b", "simple_python", True, True)])]
    second = [{**r, "trial": 1} for r in _records([("a", "simple_python", False, True),
                                                   ("b", "simple_python", False, True)])]
    multi = [{"type": "sample", "sample_id": "m", "subset": "multi_turn_base",
              "category": "multi_turn", "bfcl_valid": t == 0, "trial": t} for t in (0, 1)]
    planned = {"a": "simple_python", "b": "simple_python"}
    for records in (first + second + multi, second + first + multi[::-1]):
        acc = edge_accuracy(records, "native", None, planned, gated=True)
        assert acc is not None
        assert acc["overall"] == 1.0 and acc["planned"] == acc["completed"] == 2
        assert acc["scored_trial"] == 0 and acc["other_trials"] == 3
        assert "trial 0 of each" in acc["metric"]
        assert acc["multi_turn"]["total"] == 1 and acc["multi_turn"]["accuracy"] == 1.0
    # a sample whose trial 0 left no record is unanswered, not replaced by its trial 1
    acc = edge_accuracy([first[0], *second], "native", None, planned)
    assert acc is not None and acc["overall"] == 0.5 and acc["never_issued"] == 1


def test_without_trials_the_block_says_nothing_of_them() -> None:
    acc = edge_accuracy(_records([("a", "simple_python", True, True)]), "native", None)
    assert acc is not None and "scored_trial" not in acc
    assert acc["metric"] == "bfcl overall (mean over samples)"
