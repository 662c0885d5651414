"""Accuracy block of summary.json for agentic-edge, computed from the run's records.

Single-turn samples are scored over everything the run *planned* to issue: a planned sample
with no answer (an error, an interrupt, a duration cap) counts 0 under its subset, as MLPerf's
scorer does (mlcommons/endpoints ea332753 ``evaluation/bfcl_v4_scorer.py`` 330-350). The block
reports ``planned`` and ``completed`` (answered) and, when asked, the accuracy gate rows
(:mod:`~agentic_bench.tasks.agentic_edge.gates`).

The block scores each sample once, as MLPerf's scorer and gate do. With ``--trials K`` that is
the sample's **trial 0** (seed ``--seed``), whatever order the trials finished in; a sample
whose trial 0 left no record counts as not answered. Every trial is in the summary's ``tasks``
block (:mod:`~agentic_bench.metrics.scored_tasks`); this block says ``scored_trial`` 0 and how
many later-trial sample records it left out (``other_trials``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from agentic_bench.tasks.agentic_edge.aggregation import aggregate
from agentic_bench.tasks.agentic_edge.gates import gate_rows, reported

SCORED_TRIAL = 0  # --trials K: the trial this block scores (module doc)


def _scored_samples(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sample records of the scored trial (records without ``trial``: a run of one)."""
    return [r for r in records
            if r.get("type") == "sample" and r.get("trial", SCORED_TRIAL) == SCORED_TRIAL]


def _single_turn(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Sample id → its last sample record of the scored trial (a resumed, retried session
    replaces the first)."""
    out: dict[str, dict[str, Any]] = {}
    for r in _scored_samples(records):
        if r.get("category") != "multi_turn":
            out[r["sample_id"]] = r
    return out


def planned_from_counts(records: list[dict[str, Any]],
                        counts: Mapping[str, int]) -> dict[str, str]:
    """``planned`` for :func:`edge_accuracy` when only the per-subset planned counts are known
    (an earlier summary's ``subsets[s].total``): the recorded samples, plus a placeholder id for
    each planned sample of a subset that has no record."""
    samples = _single_turn(records)
    planned = {sid: r["subset"] for sid, r in samples.items()}
    for subset, total in counts.items():
        seen = sum(1 for r in samples.values() if r["subset"] == subset)
        planned.update({f"{subset}#never-issued-{i}": subset for i in range(total - seen)})
    return planned


def edge_accuracy(records: list[dict[str, Any]], tool_mode: str, target: float | None,
                  planned: Mapping[str, str] | None = None,
                  gated: bool = False) -> dict[str, Any] | None:
    """``planned``: sample id → subset for every single-turn sample the run meant to issue
    (missing ones score 0); ``gated``: add the accuracy gate rows (``target`` overrides the
    MLPerf thresholds)."""
    samples = _single_turn(records)
    multi = [r for r in _scored_samples(records) if r.get("category") == "multi_turn"]
    planned = dict(planned or {})
    if not samples and not multi and not planned:
        return None
    out: dict[str, Any] = {"metric": "bfcl overall (mean over samples)", "tool_mode": tool_mode,
                           "target": target}
    other = sum(1 for r in records if r.get("type") == "sample"
                and r.get("trial", SCORED_TRIAL) != SCORED_TRIAL)
    if other:  # --trials K: each sample once, its trial 0; every trial is in `tasks`
        out["metric"] = "bfcl overall (mean over samples, trial 0 of each)"
        out["scored_trial"] = SCORED_TRIAL
        out["other_trials"] = other
    if samples or planned:
        pairs = [(r["subset"], bool(r["bfcl_valid"])) for r in samples.values()]
        never = [sid for sid in planned if sid not in samples]
        pairs += [(planned[sid], False) for sid in never]
        out.update(aggregate(pairs))
        out["headline"] = out["overall"]
        # completed: MLPerf's total_samples (bfcl_v4_scorer.py 335) — every sample with a
        # COMPLETE, a failed request's empty one included (records before that rule: answered)
        completed = sum(1 for r in samples.values() if r.get("completed", r["answered"]))
        answered = sum(1 for r in samples.values() if r["answered"])
        out["planned"] = len(planned) if planned else len(samples)
        out["completed"] = completed
        out["answered"] = answered
        out["unanswered"] = len(samples) - answered + len(never)
        out["never_issued"] = len(never)
        out["reported"] = {"overall_accuracy": reported(out["overall"]),
                           "normalized_single_turn_score": reported(out["normalized"])}
        if gated:
            out["gates"] = gate_rows(out["overall"], out["normalized"], completed, target)
    if multi:
        by: dict[str, list[bool]] = defaultdict(list)
        for r in multi:
            by[r["subset"]].append(bool(r["bfcl_valid"]))
        total = [v for vs in by.values() for v in vs]
        out["multi_turn"] = {
            "accuracy": sum(total) / len(total), "correct": sum(total), "total": len(total),
            "subsets": {k: {"accuracy": sum(v) / len(v), "correct": sum(v), "total": len(v)}
                        for k, v in sorted(by.items())},
        }
        if not samples and not planned:
            out["metric"] = "bfcl multi-turn accuracy" + (" (trial 0 of each sample)"
                                                           if other else "")
            out["headline"] = out["multi_turn"]["accuracy"]
    return out


def edge_scores(records: list[dict[str, Any]], tool_mode: str, target: float | None,
                planned: Mapping[str, str] | None = None,
                gated: bool = False) -> dict[str, Any] | None:
    """The whole accuracy block: BFCL (:func:`edge_accuracy`) and, when the run replayed
    MLCommons' coding conversations, their inline IoU (``inline``, MLPerf's ``scores.json``)
    with the performance-run validity rows among the gates."""
    from agentic_bench.tasks.agentic_edge.coding_phase import inline_accuracy, perf_gate_rows

    acc = edge_accuracy(records, tool_mode, target, planned, gated)
    inline = inline_accuracy(records)
    if inline is None:
        return acc
    if acc is None:
        acc = {"metric": "inline IoU (MLPerf Edge Agentic performance phase)",
               "headline": inline["score"], "tool_mode": tool_mode, "target": target}
    acc["inline"] = inline
    acc["gates"] = [*acc.get("gates", []), *perf_gate_rows(inline)]
    return acc


def rescore(records: list[dict[str, Any]],
            previous: dict[str, Any] | None) -> dict[str, Any] | None:
    """The accuracy block recomputed from the records (``agentic-bench report``), with what
    records do not hold — tool mode, target, planned samples per subset, whether gated — taken
    from the run's earlier block."""
    previous = previous or {}
    counts = {s: int(v.get("total", 0)) for s, v in (previous.get("subsets") or {}).items()}
    gated = any(str(g.get("name", "")).startswith("bfcl_") for g in previous.get("gates") or [])
    return edge_scores(records, str(previous.get("tool_mode") or "native"),
                       previous.get("target"), planned_from_counts(records, counts), gated)
