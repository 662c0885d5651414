"""Per-question accuracy fields (the ``sample`` record) and the run's accuracy block.

Answers: exact match and token F1 with HotpotQA's normalisation (rag_pipeline.scoring).
Retrieval: precision/recall/F1@k of the retrieved page titles (every round, first-seen order,
de-duplicated) against the gold supporting-fact titles; ``context`` scores the pages the answer
was generated from. A question whose pipeline failed is unanswered and scores 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from statistics import fmean
from typing import Any

from agentic_bench.metrics.percentiles import describe
from agentic_bench.tasks.rag_e2e.reference_retrieval import run_means
from rag_pipeline import PRF, answer_prf, exact_match, retrieval_prf

DEFAULT_KS = (2, 5, 10)
HEADLINES = ("f1", "em", "judge")
MLPERF_JUDGE_GATE = 33.95
METRIC_LABELS = {"f1": "answer token F1 (HotpotQA)", "em": "answer exact match (HotpotQA)",
                 "judge": "LLM-judge accuracy"}


def _prf(value: PRF) -> dict[str, float]:
    return {"precision": value.precision, "recall": value.recall, "f1": value.f1}


def question_scores(prediction: str, gold: str, retrieved_titles: Sequence[str],
                    context_titles: Sequence[str], gold_titles: Sequence[str],
                    ks: Sequence[int] = DEFAULT_KS) -> dict[str, Any]:
    """The scoring fields of one question's ``sample`` record."""
    answer = answer_prf(prediction, gold)
    unique_context = list(dict.fromkeys(context_titles))
    return {
        "em": exact_match(prediction, gold),
        "f1": answer.f1,
        "answer_precision": answer.precision,
        "answer_recall": answer.recall,
        "retrieval": {str(k): _prf(retrieval_prf(retrieved_titles, gold_titles, k)) for k in ks},
        "context": _prf(retrieval_prf(unique_context, gold_titles, max(1, len(unique_context)))),
    }


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def _spread(values: Sequence[float]) -> dict[str, float | int | None]:
    return describe(values)


def _mean_prf(items: Sequence[dict[str, float]]) -> dict[str, float | None]:
    return {m: _mean([i[m] for i in items]) for m in ("precision", "recall", "f1")}


def _block(samples: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ks = sorted({k for s in samples for k in s.get("retrieval", {})}, key=int)
    return {
        "questions": len(samples),
        "exact_match": _mean([s["em"] for s in samples]),
        "f1": _mean([s["f1"] for s in samples]),
        "retrieval": {f"@{k}": _mean_prf([s["retrieval"][k] for s in samples
                                          if k in s.get("retrieval", {})]) for k in ks},
        "context": _mean_prf([s["context"] for s in samples if "context" in s]),
    }


def headline_interval(samples: Sequence[dict[str, Any]], headline: str) -> list[float] | None:
    """The 95 % interval of an ``em`` or ``f1`` headline over the run's questions (each
    question one unit): Wilson for exact match (0/1), a seeded percentile bootstrap of the mean
    for token F1 (metrics/pass_k.py); None for the judge's, or under two questions. The run's
    ``intervals.accuracy`` takes it (metrics/intervals.py)."""
    if headline not in ("em", "f1") or len(samples) < 2:
        return None
    if headline == "em":
        from agentic_bench.metrics.intervals import accuracy_interval

        return accuracy_interval(sum(1 for s in samples if float(s["em"]) >= 1.0),
                                 len(samples))
    from agentic_bench.metrics.pass_k import bootstrap_mean_interval

    return bootstrap_mean_interval([float(s["f1"]) for s in samples])


def judge_gate_rows(accuracy: float | None) -> list[dict[str, Any]]:
    """MLPerf E2E-RAG's accuracy gate on the judge figure as ``accuracy.txt`` reports it
    (percent, 4 decimals) — 33.95, absolute (inference_policies, inference_rules.adoc)."""
    value = None if accuracy is None else round(accuracy * 100, 4)
    return [{"name": "rag_judge_accuracy", "value": value, "limit": MLPERF_JUDGE_GATE,
             "op": ">=", "ok": value is not None and value >= MLPERF_JUDGE_GATE,
             "rule": "MLPerf v6.1 E2E-RAG gate (set on FRAMES with the reference models; "
                     "--accuracy-target replaces it)"}]


def rag_accuracy(records: Sequence[dict[str, Any]], headline: str = "f1",
                 judge: dict[str, Any] | None = None,
                 target: float | None = None) -> dict[str, Any] | None:
    """The ``accuracy`` block of summary.json from the run's ``sample`` records.

    ``judge`` (from :mod:`.judge`) is merged in; ``headline`` picks the number the
    ``accuracy`` SLO checks: mean token F1 (default), exact match, or judge accuracy. A judge
    headline without a ``target`` carries MLPerf's gate as a constraint row.
    """
    samples = [r for r in records if r.get("type") == "sample" and r.get("task") == "rag-e2e"]
    if not samples:
        return None
    answered = [s for s in samples if s.get("answered")]
    out: dict[str, Any] = {"metric": "", "headline": None, **_block(samples)}
    out["answered"] = len(answered)
    out["unanswered"] = len(samples) - len(answered)
    out["llm_calls_per_question"] = _spread([float(s.get("llm_calls", 0)) for s in answered])
    out["rounds_per_question"] = _spread([float(s.get("rounds", 0)) for s in answered])
    out["queries_per_question"] = _spread([float(len(s.get("queries", []))) for s in answered])
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in samples:
        by[str(s.get("category") or "unknown")].append(s)
    out["by_category"] = {name: _block(group) for name, group in sorted(by.items())}
    if all("mlperf_retrieval" in s for s in samples):  # records from before it lack it
        out["mlperf_retrieval"] = run_means([s["mlperf_retrieval"] for s in samples])
    if samples and all("mlperf_set_retrieval" in s for s in samples):  # accuracy_eval.py 262-268
        out["mlperf_set_retrieval"] = {
            m: fmean(s["mlperf_set_retrieval"][m] for s in samples)
            for m in ("precision", "recall", "f1")}
    cache = [s["response_cache"] for s in samples if s.get("response_cache")]
    if cache:
        out["response_cache"] = {"hits": sum(c["hits"] for c in cache),
                                 "misses": sum(c["misses"] for c in cache)}
    if judge is not None:
        out["judge"] = judge
    headline = headline if headline in METRIC_LABELS else "f1"
    out["metric"] = METRIC_LABELS[headline]
    if headline == "judge":  # no verdicts at all → no headline (an accuracy gate then fails)
        out["headline"] = (judge or {}).get("accuracy")
        if target is None:
            out["gates"] = judge_gate_rows(out["headline"])
    else:
        out["headline"] = out["exact_match" if headline == "em" else "f1"]
        out["headline_interval"] = headline_interval(samples, headline)
    return out


def scored_in_run(loadgen: str | None, loadgen_mode: str | None) -> bool:
    """Whether this run scores accuracy: every run but a LoadGen performance or TEST09 one.
    MLPerf E2E-RAG judges the accuracy run only (mlcommons/inference b66003e1
    ``e2e-rag/reference_mlperf.py`` 255-271 run ``accuracy_eval.py`` under ``--accuracy``);
    a performance run draws its 824 samples with replacement and is never judged or gated."""
    return loadgen != "mlperf" or loadgen_mode == "accuracy"


def unscored_block(gates: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The accuracy block of a run that does not score (:func:`scored_in_run`): no figures,
    no judge, no accuracy gate; only the configuration rows the run carries."""
    return {"metric": "", "headline": None, "scored": False, "rule": UNSCORED_RULE,
            **({"gates": list(gates)} if gates else {})}


UNSCORED_RULE = ("MLPerf E2E-RAG scores and gates accuracy in the LoadGen accuracy run only "
                 "(reference_mlperf.py 255-271); this run is not judged")


def rescore(records: Sequence[dict[str, Any]],
            previous: dict[str, Any] | None) -> dict[str, Any] | None:
    """The accuracy block recomputed from the ``sample`` records (``agentic-bench report``).

    What the records do not hold is taken from the run's earlier block: which headline, the
    target, and the judge's verdicts (a judge is another model; ``report`` does not call it).
    """
    previous = previous or {}
    if previous.get("scored") is False:  # a LoadGen performance/TEST09 run stays unscored
        return dict(previous)
    by_label = {label: key for key, label in METRIC_LABELS.items()}
    headline = by_label.get(str(previous.get("metric")), "f1")
    judge = previous.get("judge") if isinstance(previous.get("judge"), dict) else None
    out = rag_accuracy(records, headline, judge, previous.get("target"))
    if out is not None:
        out["target"] = previous.get("target")
        kept = [g for g in previous.get("gates") or [] if g.get("name") == "mlperf_configuration"]
        if kept:  # the --mlperf row is about the configuration, which the records do not hold
            out["gates"] = [*out.get("gates", []), *kept]
    return out
