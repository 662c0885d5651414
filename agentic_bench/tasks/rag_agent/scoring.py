"""Scoring a rag-agent episode on the gold answer, and the run's accuracy block.

The answer is the model's last reply (HotpotQA's answer parsing: the first line, an
``Answer:`` prefix dropped), scored by exact match and token F1 with HotpotQA's normalisation
(rag-e2e's :func:`~agentic_bench.tasks.rag_e2e.accuracy.question_scores`); retrieval is scored
on the pages the agent's searches showed (``retrieval`` @k, first-seen order) and the pages it
opened (``context``) against the gold supporting titles. An unanswered question (an LLM or tool
failure, or still calling tools after ``--max-steps``) scores 0. With ``--judge-endpoint``,
rag-e2e's judge grades every answer after the run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import fmean
from typing import Any

from agentic_bench.metrics.percentiles import describe
from agentic_bench.tasks.rag_agent.tools import OPEN, SEARCH, ToolOutcome
from agentic_bench.tasks.rag_e2e.accuracy import (
    METRIC_LABELS,
    headline_interval,
    question_scores,
)
from rag_pipeline import Question, parse_answer

TASK = "rag-agent"


def episode_sample(session_id: str, question: Question, reply: str | None,
                   outcomes: Sequence[ToolOutcome], queries: Sequence[str], llm_calls: int,
                   stop: str, error: str | None) -> dict[str, Any]:
    """The per-question ``sample`` record: the answer, its scores and what the agent did."""
    answered = reply is not None and error is None
    prediction = parse_answer(reply) if answered and reply else ""
    found = list(dict.fromkeys(p for o in outcomes if o.tool == SEARCH for p in o.pages))
    opened = list(dict.fromkeys(p for o in outcomes if o.tool == OPEN for p in o.pages))
    return {
        "type": "sample", "task": TASK, "session_id": session_id, "question_id": question.id,
        "category": question.type or None, "answered": answered, "prediction": prediction,
        "gold": question.answer,
        **question_scores(prediction, question.answer, found, opened,
                          question.supporting_titles),
        "stop": stop, "llm_calls": llm_calls,
        "searches": sum(1 for o in outcomes if o.tool == SEARCH and o.error is None),
        "opens": sum(1 for o in outcomes if o.tool == OPEN and o.error is None),
        "tool_errors": sum(1 for o in outcomes if o.error is not None),
        "queries": list(queries), "found_pages": found[:10], "opened_pages": opened,
        "supporting_titles": list(question.supporting_titles), "error": error,
    }


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def agent_accuracy(records: Sequence[dict[str, Any]], headline: str = "f1",
                   judge: dict[str, Any] | None = None,
                   target: float | None = None) -> dict[str, Any] | None:
    """The ``accuracy`` block of summary.json from the run's rag-agent ``sample`` records."""
    samples = [r for r in records if r.get("type") == "sample" and r.get("task") == TASK]
    if not samples:
        return None
    headline = headline if headline in METRIC_LABELS else "f1"
    ks = sorted({k for s in samples for k in s.get("retrieval", {})}, key=int)
    out: dict[str, Any] = {
        "metric": METRIC_LABELS[headline], "headline": None, "questions": len(samples),
        "exact_match": _mean([float(s["em"]) for s in samples]),
        "f1": _mean([float(s["f1"]) for s in samples]),
        "answered": sum(1 for s in samples if s.get("answered")),
        "stops": dict(sorted(Counter(str(s.get("stop")) for s in samples).items())),
        "retrieval": {f"@{k}": {m: _mean([s["retrieval"][k][m] for s in samples])
                                for m in ("precision", "recall", "f1")} for k in ks},
        "opened_pages": {m: _mean([s["context"][m] for s in samples])
                         for m in ("precision", "recall", "f1")},
        "llm_calls_per_question": describe([float(s.get("llm_calls", 0)) for s in samples]),
        "searches_per_question": describe([float(s.get("searches", 0)) for s in samples]),
        "opens_per_question": describe([float(s.get("opens", 0)) for s in samples]),
        "tool_errors": sum(int(s.get("tool_errors", 0)) for s in samples),
        "target": target,
    }
    out["unanswered"] = out["questions"] - out["answered"]
    if judge is not None:
        out["judge"] = judge
    if headline == "judge":
        out["headline"] = (judge or {}).get("accuracy")
    else:
        out["headline"] = out["exact_match" if headline == "em" else "f1"]
        out["headline_interval"] = headline_interval(samples, headline)
    return out


def rescore(records: Sequence[dict[str, Any]],
            previous: dict[str, Any] | None) -> dict[str, Any] | None:
    """The accuracy block recomputed from the records (``agentic-bench report``); the headline,
    target and judge verdicts are the earlier block's (``report`` calls no judge)."""
    previous = previous or {}
    by_label = {label: key for key, label in METRIC_LABELS.items()}
    judge = previous.get("judge") if isinstance(previous.get("judge"), dict) else None
    return agent_accuracy(records, by_label.get(str(previous.get("metric")), "f1"), judge,
                          previous.get("target"))


__all__ = ["TASK", "agent_accuracy", "episode_sample", "rescore"]
