"""Accuracy aggregation on hand-made sample records, and the LLM-judge bookkeeping."""

from __future__ import annotations

from typing import Any

import pytest

from agentic_bench.tasks.rag_e2e import judge as judge_mod
from agentic_bench.tasks.rag_e2e.accuracy import question_scores, rag_accuracy
from agentic_bench.tasks.rag_e2e.judge import JudgeConfig, judge_samples, parse_verdict


def sample(qid: str, prediction: str, gold: str, category: str = "bridge",
           answered: bool = True, retrieved: tuple[str, ...] = ("A", "B"),
           gold_titles: tuple[str, ...] = ("A", "C"), **kw: Any) -> dict[str, Any]:
    return {"type": "sample", "task": "rag-e2e", "question_id": qid, "category": category,
            "answered": answered, "prediction": prediction, "gold": gold,
            **question_scores(prediction, gold, retrieved, retrieved[:1], gold_titles),
            "llm_calls": kw.get("llm_calls", 5), "rounds": kw.get("rounds", 1),
            "queries": kw.get("queries", ["q"])}


def test_question_scores_follow_hotpotqa() -> None:
    s = question_scores("The Eiffel Tower.", "eiffel tower", ["X", "Paris", "Paris", "Y"],
                        ["Paris"], ["Paris", "France"], ks=(1, 2, 10))
    assert s["em"] == 1.0 and s["f1"] == 1.0
    assert s["retrieval"]["1"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert s["retrieval"]["2"]["precision"] == 0.5 and s["retrieval"]["2"]["recall"] == 0.5
    assert s["retrieval"]["10"]["precision"] == pytest.approx(1 / 3)
    assert s["context"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3)}
    no = question_scores("no", "yes", [], [], ["A"])
    assert no["f1"] == 0.0 and no["retrieval"]["2"]["f1"] == 0.0


def test_aggregation_counts_unanswered_as_wrong() -> None:
    records = [
        sample("1", "Paris", "Paris", llm_calls=7, rounds=2),
        sample("2", "London city", "London", category="comparison", llm_calls=3),
        sample("3", "", "Rome", answered=False),
        {"type": "sample", "task": "other", "question_id": "x"},  # another task's record
        {"type": "step", "kind": "llm"},
    ]
    acc = rag_accuracy(records)
    assert acc is not None
    assert acc["questions"] == 3 and acc["answered"] == 2 and acc["unanswered"] == 1
    assert acc["exact_match"] == pytest.approx(1 / 3)
    assert acc["f1"] == pytest.approx((1 + 2 / 3) / 3)
    assert acc["headline"] == acc["f1"] and "F1" in acc["metric"]
    assert acc["llm_calls_per_question"]["mean"] == 5 and acc["rounds_per_question"]["max"] == 2
    assert acc["retrieval"]["@2"]["recall"] == pytest.approx(0.5)
    assert set(acc["by_category"]) == {"bridge", "comparison"}
    assert acc["by_category"]["bridge"]["questions"] == 2
    assert rag_accuracy(records, headline="em")["headline"] == pytest.approx(1 / 3)  # type: ignore[index]
    assert rag_accuracy([{"type": "step"}]) is None


def test_judge_headline_and_fallback() -> None:
    records = [sample("1", "Paris", "Paris")]
    judged = rag_accuracy(records, headline="judge", judge={"accuracy": 0.25})
    assert judged is not None and judged["headline"] == 0.25 and judged["judge"]["accuracy"] == 0.25
    broken = rag_accuracy(records, headline="judge", judge={"accuracy": None})
    assert broken is not None and broken["headline"] is None and broken["f1"] == 1.0


@pytest.mark.parametrize(("text", "verdict"), [
    ("CORRECT", True), ("incorrect.", False), ("The answer is Correct", True),
    ("INCORRECT, not correct", False), ("maybe", None), ("", None), ("correctness", None),
])
def test_parse_verdict(text: str, verdict: bool | None) -> None:
    assert parse_verdict(text) is verdict


def test_judge_errors_are_not_wrong_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []

    def fake(items: list[dict[str, Any]], cfg: JudgeConfig) -> dict[str, Any]:
        seen.extend(items)
        return {"endpoint": cfg.url, "model": "judge", "verdicts": [True, None, False],
                "errors": {"timeout": 1}, "error_examples": ["timeout: slow"]}

    monkeypatch.setattr(judge_mod, "_in_thread", fake)
    samples = [sample("1", "Paris", "Paris"), sample("2", "x", "y"), sample("3", "z", "w"),
               sample("4", "", "v", answered=False)]
    out = judge_samples(samples, JudgeConfig("http://judge/v1"), {"1": "Capital of France?"})
    assert [i["question"] for i in seen] == ["Capital of France?", "", ""]
    assert out["judged"] == 2 and out["correct"] == 1 and out["judge_errors"] == 1
    assert out["unanswered_counted_wrong"] == 1
    assert out["accuracy"] == pytest.approx(1 / 3)  # 1 correct of 2 judged + 1 unanswered


def test_judge_unreachable_reports_errors() -> None:
    out = judge_samples([sample("1", "Paris", "Paris")],
                        JudgeConfig("http://127.0.0.1:9/v1", model="m", timeout_s=2), {})
    assert out["judged"] == 0 and out["judge_errors"] == 1 and out["accuracy"] is None
