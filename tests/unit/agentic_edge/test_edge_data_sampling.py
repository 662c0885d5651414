"""BFCL single-turn loading and MLPerf-style sampling."""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest
from mlperf_selection import reference_selection

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge import (
    CATEGORY_SUBSETS,
    SINGLE_TURN_SUBSETS,
    load_category,
    load_single_turn,
    load_subset,
    mlperf_counts,
    plan_counts,
    sample_single_turn,
    stratified_counts,
)

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None, reason="bfcl-eval is not installed"
)

EXPECTED_DEFAULT = {
    "simple_python": 248,
    "simple_java": 62,
    "simple_javascript": 31,
    "multiple": 124,
    "parallel": 124,
    "parallel_multiple": 124,
    "live_simple": 25,
    "live_multiple": 105,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "irrelevance": 24,
    "live_irrelevance": 88,
}


def test_category_sizes_match_bfcl_v4() -> None:
    assert len(load_category("non_live")) == 1150
    assert len(load_category("live")) == 1351
    assert len(load_category("hallucination")) == 1124
    assert len(load_single_turn()) == 3625


def test_sample_fields() -> None:
    sample = load_subset("simple_java")[0]
    assert sample.id == "simple_java_0"
    assert (sample.subset, sample.category, sample.language) == ("simple_java", "non_live", "java")
    assert sample.messages and sample.messages[-1]["role"] == "user"
    assert sample.functions and "parameters" in sample.functions[0]
    assert sample.ground_truth and isinstance(sample.ground_truth[0], dict)
    js = load_subset("simple_javascript")[0]
    assert js.language == "javascript"
    for subset in CATEGORY_SUBSETS["hallucination"]:
        assert all(s.ground_truth is None and s.expects_no_call for s in load_subset(subset))
    assert all(isinstance(m["content"], str) for s in load_single_turn() for m in s.messages)


def test_unknown_subset_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        load_subset("web_search")


def test_default_sampling_is_mlperf_995() -> None:
    chosen = sample_single_turn()
    assert len(chosen) == 995
    assert dict(Counter(s.subset for s in chosen)) == EXPECTED_DEFAULT
    by_cat = Counter(s.category for s in chosen)
    assert by_cat == {"non_live": 713, "live": 170, "hallucination": 112}
    assert len({s.id for s in chosen}) == 995


def test_default_selection_is_exactly_mlperfs_995_ids_in_issue_order() -> None:
    expected = reference_selection()
    assert len(expected) == 995
    assert [s.id for s in sample_single_turn()] == expected
    assert expected[0] == "irrelevance_0" and expected[-1].startswith("simple_python_")


def test_random_selection_is_seeded_not_mlperf_and_keeps_file_order() -> None:
    first = [s.id for s in sample_single_turn(selection="random")]
    assert first == [s.id for s in sample_single_turn(selection="random", seed=42)]
    assert first != [s.id for s in sample_single_turn(selection="random", seed=7)]
    assert len(first) == 995 and set(first) != set(reference_selection())
    # shares 501 ids with MLPerf's (the figure of issue #19), subsets in BFCL's category order
    assert len(set(first) & set(reference_selection())) == 501
    assert first[0].startswith("simple_python_")
    assert [s.id for s in sample_single_turn() if s.subset == "multiple"] == [
        f"multiple_{i}" for i in range(124)
    ]


def test_floor_takes_tiny_subsets_whole() -> None:
    chosen = Counter(s.subset for s in sample_single_turn())
    assert chosen["live_parallel"] == len(load_subset("live_parallel")) == 16
    assert chosen["live_parallel_multiple"] == len(load_subset("live_parallel_multiple")) == 24
    assert mlperf_counts({"live_parallel": 25, "live_simple": 26}) == {
        "live_parallel": 25,
        "live_simple": 2,
    }


def test_quick_is_50_stratified_over_all_subsets() -> None:
    chosen = sample_single_turn(quick=True)
    counts = Counter(s.subset for s in chosen)
    assert len(chosen) == 50
    assert set(counts) == set(SINGLE_TURN_SUBSETS)
    assert min(counts.values()) >= 4


def test_n_override_is_proportional_with_floor() -> None:
    chosen = sample_single_turn(n=400)
    counts = Counter(s.subset for s in chosen)
    assert len(chosen) == 400
    sizes = {s: len(load_subset(s)) for s in SINGLE_TURN_SUBSETS}
    assert all(counts[s] >= min(25, sizes[s]) for s in SINGLE_TURN_SUBSETS)
    assert counts["live_multiple"] > counts["simple_javascript"]
    assert len(sample_single_turn(n=10_000)) == 3625


def test_stratified_counts_edge_cases() -> None:
    avail = {"a": 100, "b": 10, "c": 0}
    assert sum(stratified_counts(avail, 30).values()) == 30
    assert stratified_counts(avail, 5)["c"] == 0
    assert stratified_counts(avail, 500) == avail
    assert plan_counts(avail, n=20) == stratified_counts(avail, 20)
    with pytest.raises(ConfigError):
        stratified_counts(avail, 0)
