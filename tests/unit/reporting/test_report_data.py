"""Records → plot data: CDFs, per-turn percentiles, breakdowns, load over time, accuracy."""

from __future__ import annotations

import pytest

from agentic_bench.metrics.percentiles import describe
from agentic_bench.reporting import report_data as rd


def test_latency_values_match_the_summary(synth) -> None:
    records = synth.make_records(fail_every=4)
    summary = synth.make_summary(records)
    values = rd.latency_values(records)
    for metric, stats in summary["latency_ms"].items():
        assert describe(values[metric]) == stats, metric


def test_cdf_points_small_is_exact_step_curve() -> None:
    pts = rd.cdf_points([3.0, 1.0, 2.0])
    assert pts[0] == (1.0, 0.0) and pts[-1] == (3.0, 1.0)
    assert (2.0, 2 / 3) in pts
    ys = [y for _, y in pts]
    assert ys == sorted(ys)
    assert rd.cdf_points([]) == []


def test_cdf_points_large_is_sampled_with_min_and_max() -> None:
    data = [float(i) for i in range(100_000)]
    pts = rd.cdf_points(data, max_points=200)
    assert len(pts) <= 201
    assert pts[1][0] == 0.0 and pts[-1] == (99_999.0, 1.0)
    mid = min(pts, key=lambda p: abs(p[1] - 0.5))
    assert abs(mid[0] - 50_000) < 1_000


def test_ttft_vs_input_strides_large_sets(synth) -> None:
    records = [synth.llm("s", 0, i, input_tokens=i) for i in range(50)]
    pts, total = rd.ttft_vs_input(records, limit=10)
    assert total == 50 and len(pts) == 10 and pts[0] == (0.0, 50.0)


def test_per_turn_percentiles(synth) -> None:
    records = synth.make_records(sessions=4, turns=3)
    rows = rd.per_turn(records)
    assert [r[0] for r in rows] == [0, 1, 2]
    assert all(r[1] == 4 and r[2] <= r[3] for r in rows)


def test_stage_breakdown_rows_and_means(synth) -> None:
    records = synth.make_records(sessions=4, turns=1)
    rows, stages, values = rd.stage_breakdown(records)
    assert rows == ["all", "rag", "tools"]
    assert set(stages) == {"embed", "retrieve", "rerank", "generate", "llm", "tool"}
    rag = dict(zip(stages, values[1], strict=True))
    assert rag["embed"] == pytest.approx(2.0) and rag["rerank"] == pytest.approx(6.0)
    assert rag["llm"] == 0.0 and rag["tool"] == 0.0  # tool-only stages absent for RAG rows
    assert rd.stage_breakdown([]) == ([], [], [])


def test_kind_breakdown_counts_errors(synth) -> None:
    records = [synth.tool("s", 0, 0, "tool", 10.0), synth.tool("s", 0, 10, "tool", 30.0),
               synth.tool("s", 0, 40, "tool", status="error")]
    (row,) = rd.kind_breakdown(records)
    assert row["kind"] == "tool" and row["count"] == 2 and row["errors"] == 1
    assert row["mean"] == pytest.approx(20.0) and row["total_s"] == pytest.approx(0.04)


def test_inflight_counts_overlaps(synth) -> None:
    records = [synth.llm("a", 0, 0.0, n_out=1, ttft=100.0),   # 0..100 ms
               synth.llm("b", 0, 50.0, n_out=1, ttft=100.0),  # 50..150 ms
               synth.llm("c", 0, 100.0, n_out=1, ttft=10.0)]  # 100..110 ms (starts as a ends)
    pts = rd.inflight_series(records)
    assert max(y for _, y in pts) == 2.0
    assert pts[-1][1] == 0.0
    assert all(y >= 0 for _, y in pts)


def test_inflight_bins_keep_the_peak(synth) -> None:
    records = [synth.llm(f"s{i}", 0, i * 1.0, n_out=1, ttft=3.0) for i in range(5000)]
    pts = rd.inflight_series(records, bins=100)
    assert len(pts) == 200
    assert max(y for _, y in pts) == 3.0


def test_throughput_series_rates(synth) -> None:
    records = [synth.llm(f"s{i}", 0, i * 100.0, n_out=1, ttft=10.0) for i in range(100)]
    records += [synth.llm("bad", 0, 5000.0, status="error", n_out=1, ttft=10.0)]
    width, series = rd.throughput_series(records)
    assert set(series) == {"ok", "failed"}
    total = sum(y * width for _, y in series["ok"][::2])
    assert total == pytest.approx(100)
    assert rd.throughput_series([]) == (0.0, {})


def test_error_rows(synth) -> None:
    records = [synth.llm("a", 0, 0, status="error"), synth.llm("b", 0, 0, status="error"),
               synth.tool("c", 0, 0, status="error")]
    assert rd.error_rows(records) == [
        ("http_status", "llm", 2, "HTTP 500: injected failure"),
        ("tool_error", "tool", 1, "tool failed")]


def test_accuracy_groups_generic(synth) -> None:
    groups = dict(rd.accuracy_groups(synth.ACCURACY))
    assert groups["categories"] == [("non_live", 0.7), ("live", 0.55)]
    assert groups["subsets"] == [("simple_python", 0.8)]  # None accuracy left out
    nested = {"headline": 1.0, "per_domain": {"retail": 0.5, "airline": 0.25},
              "by": {"split": {"dev": {"f1": 0.4}, "test": {"f1": 0.6}}}}
    groups = dict(rd.accuracy_groups(nested))
    assert groups["per_domain"] == [("retail", 0.5), ("airline", 0.25)]
    assert groups["by.split"] == [("dev", 0.4), ("test", 0.6)]
    assert rd.accuracy_groups(None) == [] and rd.accuracy_groups({"headline": 0.3}) == []


def test_rag_accuracy_draws_scores_not_counts_and_labels_retrieval() -> None:
    """#30 item 10: the rag-e2e block's per-category entries start with a question count and
    its per-question figures are distributions (count, mean, min, p50): neither is drawn as an
    accuracy; retrieval at k is three labelled bars."""
    from agentic_bench.reporting.report_figures import accuracy_figures

    acc = {"metric": "mean token F1", "headline": 0.4, "questions": 10, "f1": 0.4,
           "by_category": {"numerical": {"questions": 6, "exact_match": 0.1, "f1": 0.3},
                           "temporal": {"questions": 4, "exact_match": 0.2, "f1": 0.55}},
           "retrieval": {"@1": {"precision": 0.5, "recall": 0.2, "f1": 0.28},
                         "@5": {"precision": 0.3, "recall": 0.6, "f1": 0.4}},
           "llm_calls_per_question": {"count": 10, "mean": 2.5, "min": 1.0, "p50": 2.0,
                                      "p90": 4.0, "p95": 4.0, "p99": 4.0, "max": 4.0}}
    groups = dict(rd.accuracy_groups(acc))
    assert groups == {"by_category": [("numerical", 0.3), ("temporal", 0.55)]}
    assert rd.group_metric(acc, "by_category") == "f1"
    assert rd.prf_groups(acc) == [("retrieval", [("@1", [0.5, 0.2, 0.28]),
                                                 ("@5", [0.3, 0.6, 0.4])])]
    assert [p for p, _ in rd.accuracy_spreads(acc)] == ["llm_calls_per_question"]
    html = accuracy_figures(acc)
    assert "by category: F1" in html and "numerical F1: 30.0%" in html
    assert "retrieval: precision, recall, F1" in html and "@5 recall: 60.0%" in html
    assert 'id="table-accuracy-spreads"' in html and "plot-accuracy-llm" not in html
    assert "6.0%" not in html  # a count never drawn as an accuracy
