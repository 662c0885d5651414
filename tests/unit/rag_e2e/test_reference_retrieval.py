"""MLPerf's retrieval metrics (mlcommons/inference b66003e1, e2e-rag/evaluation.py 36-104,
averaged as multi_shot_retrieval.py 1800-1840), checked against a literal transcription of
the rule on hand-made rankings, quirks included."""

from __future__ import annotations

import random

import pytest

from agentic_bench.tasks.rag_e2e.reference_retrieval import question_metrics, run_means


def transcription(expected: list[str], retrieved: list[str],
                  k_values: tuple[int, ...] = (1, 3, 5, 10)) -> dict[str, float]:
    """evaluation.py 49-104, line by line in plain Python."""
    expected_set = {u for u in expected if u and u.strip()}
    if not expected_set:
        out = {f"precision@{k}": 1.0 if len(retrieved) == 0 else 0.0 for k in k_values}
        out |= {f"recall@{k}": 1.0 for k in k_values}
        out |= {f"f1@{k}": 1.0 if len(retrieved) == 0 else 0.0 for k in k_values}
        out |= {"average_precision": 1.0 if len(retrieved) == 0 else 0.0}
        return out
    metrics: dict[str, float] = {}
    num_retrieved = len(retrieved)
    for k in [*k_values, num_retrieved]:
        label = "N" if k == num_retrieved else str(k)
        rel = len(expected_set & set(retrieved[:k]))
        p = rel / k if k > 0 else 0.0
        r = rel / len(expected_set)
        metrics[f"precision@{label}"] = p
        metrics[f"recall@{label}"] = r
        metrics[f"f1@{label}"] = 2 * p * r / (p + r) if p + r > 0 else 0.0
    ap, found = 0.0, 0
    for i, u in enumerate(retrieved):
        if u in expected_set:
            found += 1
            ap += found / (i + 1)
    metrics["average_precision"] = ap / len(expected_set)
    return metrics


CASES = [
    (["A", "B"], ["A", "X", "B"]),
    (["A", "B"], ["X", "Y", "Z", "W", "A"]),  # N = 5: reported as @N only, no @5
    (["A"], []),  # nothing retrieved: N = 0
    (["A", "", " "], ["A"]),  # blank gold entries dropped
    ([], []),  # no gold, nothing retrieved: precision 1
    ([], ["A"]),  # no gold, something retrieved: precision 0, recall 1
    (["A", "B", "C"], ["C", "B", "A", "D", "E", "F", "G", "H", "I", "J", "K", "L"]),
]


@pytest.mark.parametrize(("expected", "retrieved"), CASES)
def test_matches_the_transcription(expected: list[str], retrieved: list[str]) -> None:
    assert question_metrics(expected, retrieved) == transcription(expected, retrieved)


def test_quirks_stated_in_the_docstring() -> None:
    five = question_metrics(["A", "B"], ["X", "Y", "Z", "W", "A"])
    assert "precision@5" not in five and five["precision@N"] == pytest.approx(0.2)
    assert five["precision@10"] == pytest.approx(0.1)  # divides by k, not by what was found
    assert question_metrics([], [])["precision@3"] == 1.0
    assert "precision@N" not in question_metrics([], ["A"])


def test_random_rankings_match() -> None:
    rng = random.Random(7)
    pages = [f"p{i}" for i in range(15)]
    for _ in range(300):
        gold = rng.sample(pages, rng.randint(0, 4))
        got = rng.sample(pages, rng.randint(0, 12))
        assert question_metrics(gold, got) == transcription(gold, got)


def test_run_mean_counts_missing_keys_as_zero_over_all_questions() -> None:
    a = question_metrics(["A"], ["A", "B", "C", "D", "E"])  # no @5 key
    b = question_metrics(["A"], ["A"])
    means = run_means([a, b])
    assert means["precision@5"] == pytest.approx((0 + 1 / 5) / 2)  # only b has @5
    assert means["precision@N"] == pytest.approx((1 / 5 + 1 / 1) / 2)
    assert run_means([]) == {}


def test_the_accuracy_runs_set_figure() -> None:
    """mlcommons/inference b66003e1 e2e-rag/accuracy_eval.py 129-150: precision, recall and F1
    of the retrieved set against the expected set; all 0 without expected pages; precision 0
    when nothing was retrieved; duplicates count once."""
    from agentic_bench.tasks.rag_e2e.reference_retrieval import set_metrics

    got = set_metrics(["G", "H", "Z"], ["A", "B", "G", "H", "G"])
    assert got["precision"] == 0.5 and got["recall"] == pytest.approx(2 / 3)
    assert got["f1"] == pytest.approx(4 / 7)
    assert set_metrics([], ["A"]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert set_metrics(["A"], []) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
