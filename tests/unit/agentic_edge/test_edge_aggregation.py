"""MLPerf aggregation on a hand-computed example."""

from __future__ import annotations

import pytest

from agentic_bench.tasks.agentic_edge import aggregate


def _results(subset: str, correct: int, total: int) -> list[tuple[str, bool]]:
    return [(subset, i < correct) for i in range(total)]


def test_hand_computed_example() -> None:
    results = (
        _results("simple_python", 3, 4)  # 0.75
        + _results("simple_java", 1, 2)  # 0.5
        + _results("simple_javascript", 0, 1)  # 0.0   -> simple = 1.25 / 3
        + _results("multiple", 2, 2)  # 1.0
        + _results("parallel", 1, 4)  # 0.25
        + _results("parallel_multiple", 1, 2)  # 0.5
        + _results("live_simple", 1, 2)
        + _results("live_multiple", 6, 8)  # live weighted: 7 / 10
        + _results("irrelevance", 1, 1)  # 1.0
        + _results("live_irrelevance", 1, 4)  # 0.25 -> hallucination 0.625
    )
    summary = aggregate(results)
    simple = (0.75 + 0.5 + 0.0) / 3
    non_live = (simple + 1.0 + 0.25 + 0.5) / 4
    live = 7 / 10
    halluc = (1.0 + 0.25) / 2
    cats = summary["categories"]
    assert cats["non_live"]["simple"] == pytest.approx(simple)
    assert cats["non_live"]["accuracy"] == pytest.approx(non_live)
    assert cats["live"]["accuracy"] == pytest.approx(live)
    assert cats["hallucination"]["accuracy"] == pytest.approx(halluc)
    assert summary["normalized"] == pytest.approx((non_live + live + halluc) / 3)
    correct = 3 + 1 + 0 + 2 + 1 + 1 + 1 + 6 + 1 + 1
    total = 4 + 2 + 1 + 2 + 4 + 2 + 2 + 8 + 1 + 4
    assert summary["overall"] == pytest.approx(correct / total)
    assert (summary["correct"], summary["total"]) == (correct, total)
    assert summary["subsets"]["live_multiple"] == {"accuracy": 0.75, "correct": 6, "total": 8}
    assert cats["live"]["correct"] == 7 and cats["live"]["total"] == 10
    assert list(summary["subsets"])[:2] == ["simple_python", "simple_java"]


def test_missing_subsets_are_left_out_of_means() -> None:
    summary = aggregate(_results("simple_python", 1, 2) + _results("irrelevance", 2, 2))
    assert summary["categories"]["non_live"]["accuracy"] == pytest.approx(0.5)
    assert summary["categories"]["live"]["accuracy"] is None
    assert summary["categories"]["hallucination"]["accuracy"] == pytest.approx(1.0)
    assert summary["normalized"] == pytest.approx(0.75)
    assert summary["overall"] == pytest.approx(0.75)


def test_empty() -> None:
    summary = aggregate([])
    assert summary["overall"] is None and summary["normalized"] is None
    assert summary["subsets"] == {}
