"""#44 item 3 for repeated runs: the A/B verdict across runs — Welch t on the log of each run's
value — reads a clear shift WORSE, the same distribution SAME, a wide spread INCONCLUSIVE, and
its 95 % interval holds the truth about 95 % of the time with three runs a side."""

from __future__ import annotations

import json
import math
import random

import pytest

from agentic_bench.metrics.ab_repeats import (
    POOLED_TEST,
    TEST,
    across_runs_verdict,
    log_ratio_interval,
)
from agentic_bench.metrics.ab_verdict import MetricRef

P99 = MetricRef.parse("session_p99_ms")
RATE = MetricRef.parse("requests_per_s")


def test_a_clear_shift_is_worse_the_same_spread_is_same_a_wide_one_inconclusive() -> None:
    base = [100.0, 101.0, 99.0]
    worse = across_runs_verdict(P99, base, [110.0, 111.0, 109.0], 0.05)
    assert worse["verdict"] == "WORSE" and worse["runs"] == [3, 3]
    assert worse["interval"][0] > 1.05 and worse["test"] == f"across 3 vs 3 runs, {TEST}"
    assert worse["a"] == pytest.approx(100.0) and worse["b_sd"] == pytest.approx(1.0)
    assert "A 100.00 ± 1.00 sd (3 runs), B 110.00 ± 1.00 sd (3 runs)" in worse["reason"]
    same = across_runs_verdict(P99, base, [100.2, 99.8, 100.6], 0.05)
    assert same["verdict"] == "SAME", same["reason"]
    wide = across_runs_verdict(P99, [80.0, 100.0, 120.0], [90.0, 115.0, 130.0], 0.05)
    assert wide["verdict"] == "INCONCLUSIVE" and "more runs would decide" in wide["reason"]
    # a rate: higher is better, so the same shift down is WORSE and up is BETTER
    assert across_runs_verdict(RATE, base, [90.0, 91.0, 89.0], 0.05)["verdict"] == "WORSE"
    assert across_runs_verdict(RATE, base, [110.0, 111.0, 109.0], 0.05)["verdict"] == "BETTER"


def test_the_interval_is_welchs_on_log_values() -> None:
    from scipy import stats

    a, b = [100.0, 104.0, 97.0, 101.0], [108.0, 103.0, 111.0]
    ratio, lo, hi, df, name = log_ratio_interval(a, b)
    welch = stats.ttest_ind([math.log(v) for v in b], [math.log(v) for v in a],
                            equal_var=False).confidence_interval(0.95)
    assert (lo, hi) == pytest.approx((math.exp(welch.low), math.exp(welch.high)))
    geometric = math.exp(sum(map(math.log, b)) / 3 - sum(map(math.log, a)) / 4)
    assert ratio == pytest.approx(geometric) and name == TEST and df is not None and df < 5


def test_one_run_against_repeated_ones_borrows_their_spread() -> None:
    rows = across_runs_verdict(P99, [100.0], [99.5, 100.5, 100.0], 0.05)
    assert rows["test"] == f"across 1 vs 3 runs, {POOLED_TEST}"
    assert rows["verdict"] == "SAME" and "one run on a side: a wide interval" in rows["reason"]
    ratio, lo, hi, df, _ = log_ratio_interval([100.0], [99.0, 101.0, 100.0])
    assert math.log(ratio / lo) == pytest.approx(math.log(hi / ratio))  # symmetric in logs
    assert df == 2.0  # the repeated side's n - 1
    s = math.sqrt(sum((math.log(v) - sum(map(math.log, (99, 101, 100))) / 3) ** 2
                      for v in (99, 101, 100)) / 2)
    assert math.log(hi / ratio) == pytest.approx(4.302653 * s * math.sqrt(1 + 1 / 3), rel=1e-5)
    shifted = across_runs_verdict(P99, [100.0], [150.0, 152.0, 149.0], 0.05)
    assert shifted["verdict"] == "WORSE"
    spread = across_runs_verdict(P99, [100.0], [90.0, 105.0, 118.0], 0.05)
    assert spread["verdict"] == "INCONCLUSIVE"


def test_what_cannot_be_judged_is_inconclusive_and_says_why() -> None:
    assert "one run a side" in across_runs_verdict(P99, [100.0], [101.0], 0.05)["reason"]
    zero = across_runs_verdict(RATE, [0.0, 1.0], [1.0, 1.0], 0.05)
    assert zero["verdict"] == "INCONCLUSIVE" and "positive values" in zero["reason"]
    missing = across_runs_verdict(P99, [None, None], [1.0, 2.0], 0.05)
    assert missing["verdict"] == "INCONCLUSIVE" and missing["a"] is None
    assert across_runs_verdict(P99, [100.0, None, 102.0], [100.0, 101.0], 0.05)["runs"] == [2, 2]
    flat = across_runs_verdict(P99, [100.0, 100.0], [100.0, 100.0, 100.0], 0.05)
    assert flat["interval"] == [1.0, 1.0] and "the interval is the point" in flat["reason"]
    two = across_runs_verdict(P99, [100.0, 101.0], [100.0, 101.0], 0.05)
    assert "only 2 runs on a side" in two["reason"]


@pytest.mark.parametrize(("n_a", "n_b", "sd_a", "sd_b"), [(3, 3, 0.03, 0.03),
                                                          (3, 5, 0.01, 0.05), (1, 4, 0.03, 0.03)])
def test_the_interval_holds_the_truth_about_95_percent_of_the_time(
        n_a: int, n_b: int, sd_a: float, sd_b: float) -> None:
    rng = random.Random(20261206)
    pairs, held = 600, 0
    for _ in range(pairs):
        a = [100 * rng.lognormvariate(0, sd_a) for _ in range(n_a)]
        b = [100 * rng.lognormvariate(0, sd_b) for _ in range(n_b)]
        _, lo, hi, _, _ = log_ratio_interval(a, b)
        held += lo <= 1.0 <= hi
    assert 0.92 <= held / pairs <= 0.985


def test_the_docs_coverage_figures_are_the_records() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    record = json.loads((root / "benchmarks" / "results" / "intervals" /
                         "repeat_verdicts.json").read_text())
    cases = {(c["runs_a"], c["runs_b"], c["log_sd_a"], c["log_sd_b"]): c
             for c in record["cases"]}
    doc = (root / "docs" / "metrics.md").read_text()
    section = doc[doc.index("### Across repeated runs"):doc.index("## Agentic Edge")]
    for key, field in (((3, 3, 0.03, 0.03), "welch_log_coverage"),
                       ((3, 3, 0.03, 0.03), "bootstrap_over_runs_coverage"),
                       ((5, 5, 0.03, 0.03), "welch_log_coverage"),
                       ((10, 10, 0.03, 0.03), "welch_log_coverage"),
                       ((1, 3, 0.03, 0.03), "welch_log_coverage")):
        assert f"{cases[key][field] * 100:.1f} %" in section, (key, field)
    ci = (root / "docs" / "ci.md").read_text()
    assert f"{cases[(3, 3, 0.03, 0.03)]['welch_log_coverage'] * 100:.1f} %" in ci
