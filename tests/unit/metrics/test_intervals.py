"""#44: 95 % intervals resampling sessions, and A/B verdicts from the interval of B/A.

The coverage case is small and seeded (deterministic): sessions drawn from a known
distribution, the interval of p50 checked against the true median over 40 draws; the full
calibration on the simulator is benchmarks/interval_calibration.py."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agentic_bench.metrics.ab_verdict import MetricRef, Run, judge, parse_threshold, verdict
from agentic_bench.metrics.intervals import (
    accuracy_interval,
    collect,
    intervals,
    latency_statistic,
)
from agentic_bench.metrics.percentiles import describe


def _records(rng: random.Random, sessions: int, shift: float = 0.0,
             per_session: int = 3) -> list[dict[str, Any]]:
    """Sessions of requests whose TTFT is uniform on [80, 120] ms (+ ``shift``), each with
    one session-level offset too (requests of a session are correlated, as in real runs)."""
    out: list[dict[str, Any]] = []
    t = 0
    for s in range(sessions):
        offset = rng.uniform(-5, 5)
        for _ in range(per_session):
            ttft = 100 + shift + offset + rng.uniform(-20, 20)
            t += rng.randint(1, 2_000_000)  # completions at an uneven pace
            out.append({"type": "step", "kind": "llm", "status": "ok", "session_id": f"s{s}",
                        "ttft_ms": ttft, "tpot_ms": 1.0, "request_ms": ttft + 8,
                        "output_tokens": 8, "t_end_ns": t})
        out.append({"type": "session", "session_id": f"s{s}", "status": "ok",
                    "latency_ms": 300.0 + offset, "t_end_ns": t})
    return out


def _summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    ttft = [r["ttft_ms"] for r in records if r["type"] == "step"]
    return {"counts": {"requests_ok": len(ttft)}, "duration_s": 10.0,
            "latency_ms": {"ttft": describe(ttft)},
            "throughput": {"requests_per_s": len(ttft) / 10.0}}


def test_the_interval_brackets_the_figure_and_is_reproducible() -> None:
    records = _records(random.Random(1), 200)
    summary = _summary(records)
    block = intervals(records, summary, {})
    lo, hi = block["latency_ms"]["ttft"]["p50"]
    assert lo <= summary["latency_ms"]["ttft"]["p50"] <= hi and hi - lo < 5
    assert block["sessions_used"] == 200 and block["resamples"] == 1000
    assert intervals(records, summary, {}) == block  # seeded: the same every time
    assert block["throughput"]["requests_per_s"][0] < block["throughput"]["requests_per_s"][1]


def test_a_replicate_is_the_summary_estimator_on_the_resample() -> None:
    records = _records(random.Random(2), 30)
    values = collect(records, {})
    statistic = latency_statistic(values, "ttft")
    assert statistic is not None
    import numpy as np

    idx = np.array([[0, 0, 5, 7, *range(26)]])  # one resample of the 30 sessions
    got = statistic(idx)[:, 0]
    sessions = list(values.sessions.values())
    pooled = [v for k in idx[0] for v in sessions[k].values["ttft"]]
    want = describe(pooled)
    assert got == pytest.approx([want["mean"], want["p50"], want["p90"], want["p99"]])


def test_p50_intervals_cover_the_true_median_about_95_percent() -> None:
    rng = random.Random(7)
    covered = 0
    for _ in range(40):
        records = _records(rng, 60)
        lo, hi = intervals(records, _summary(records), {})["latency_ms"]["ttft"]["p50"]
        covered += lo <= 100.0 <= hi  # the true median: symmetric noise around 100 ms
    assert 34 <= covered <= 40  # 85-100 % of 40 (95 % nominal; binomial spread)


def test_verdicts_against_a_threshold() -> None:
    assert judge(1.02, 1.04, 0.01, True) == "WORSE"
    assert judge(1.02, 1.04, 0.05, True) == "SAME"
    assert judge(0.96, 0.98, 0.01, True) == "BETTER"
    assert judge(0.99, 1.03, 0.01, True) == "INCONCLUSIVE"
    assert judge(1.02, 1.04, 0.01, False) == "BETTER"  # throughput: higher is better
    assert parse_threshold("5%") == 0.05 and parse_threshold("0.02") == 0.02
    with pytest.raises(ValueError):
        parse_threshold("-1%")
    with pytest.raises(ValueError, match="unknown metric"):
        MetricRef.parse("ttft_p77_ms")


def test_a_known_3_percent_slowdown_is_worse_at_1_and_same_at_5_percent() -> None:
    rng = random.Random(3)
    a_rec, b_rec = _records(rng, 400), _records(rng, 400, shift=3.0)
    a = Run(_summary(a_rec), collect(a_rec, {}))
    b = Run(_summary(b_rec), collect(b_rec, {}))
    ttft = MetricRef.parse("ttft_mean_ms")
    assert verdict(ttft, a, b, 0.01)["verdict"] == "WORSE"
    assert verdict(ttft, a, b, 0.05)["verdict"] == "SAME"
    same = Run(_summary(c := _records(rng, 400)), collect(c, {}))
    assert verdict(ttft, a, same, 0.01)["verdict"] in ("SAME", "INCONCLUSIVE")


def test_a_long_run_keeps_a_seeded_subset_of_whole_sessions(tmp_path: Any) -> None:
    """The budgets bound a long run: lines of sessions left out are skipped unparsed, and the
    sessions kept are the same whether read from the file or from parsed records."""
    import orjson

    from agentic_bench.metrics.intervals import kept_records

    records = _records(random.Random(5), 400)
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    from_file = collect(kept_records(path, 0.25), {}, 0.25)
    from_list = collect(records, {}, 0.25)
    assert set(from_file.sessions) == set(from_list.sessions)
    assert 60 < len(from_file.sessions) < 140 and from_file.skipped == 400 - len(
        from_file.sessions)
    summary = {**_summary(records), "counts": {"requests_ok": 10**7, "sessions": 10**6}}
    from agentic_bench.metrics.intervals import SESSION_BUDGET, VALUE_BUDGET, budget_fraction

    assert budget_fraction(summary) == min(VALUE_BUDGET / 10**7, SESSION_BUDGET / 10**6)


def test_the_accuracy_interval_is_the_tasks_own_for_a_mean_f1_headline() -> None:
    """An accuracy block with no 0/1 counts (rag-e2e's mean F1) gives its own
    ``headline_interval`` (tasks/rag_e2e/accuracy.py); one with counts gets Wilson."""
    records = _records(random.Random(3), 20)
    summary = _summary(records)
    summary["accuracy"] = {"headline": 0.41, "headline_interval": [0.3, 0.52]}
    assert intervals(records, summary, {})["accuracy"] == [0.3, 0.52]
    summary["accuracy"] = {"headline": 0.5, "correct": 10, "total": 20,
                           "headline_interval": [0.0, 1.0]}
    assert intervals(records, summary, {})["accuracy"] == accuracy_interval(10, 20)
    summary["accuracy"] = {"headline": 0.41}
    assert "accuracy" not in intervals(records, summary, {})
