"""A/B verdicts: is run B better or worse than run A on a figure, beyond a threshold, and how
sure are we.

For each metric, the 95 % interval of the ratio B / A comes from a two-sample bootstrap over
sessions (SciPy's ``scipy.stats.bootstrap`` with ``paired=False``: each replicate resamples A's
sessions and B's sessions independently and recomputes the figure on both — the estimators of
:mod:`agentic_bench.metrics.intervals`; percentile interval, :data:`RESAMPLES` replicates,
seeded). Against ``threshold`` t, for a figure where lower is better (latency):

* **WORSE** — the whole interval lies above 1 + t (B is slower by more than t, at 95 %);
* **BETTER** — the whole interval lies below 1 − t;
* **SAME** — the whole interval lies within [1 − t, 1 + t];
* **INCONCLUSIVE** — anything else: the evidence does not decide at this threshold.

Mirrored where higher is better (throughput). The interval covers the sessions' sampling noise
of each run, not drifts between runs that only repeated runs can show: when a side is a
``--repeat`` folder, :mod:`agentic_bench.metrics.ab_repeats` judges across its runs instead
(Welch t on log values), with the same :func:`judge`. docs/metrics.md, "A/B verdicts", states
what the false-verdict rate was measured to be.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentic_bench.metrics.intervals import (
    CONFIDENCE,
    LATENCIES,
    RATES,
    RESAMPLES,
    SEED,
    STATS,
    WINDOWS,
    SessionValues,
    Statistic,
    latency_statistic,
    rate_statistic,
)
from agentic_bench.metrics.summary_model import Summary

VERDICTS = ("BETTER", "WORSE", "SAME", "INCONCLUSIVE")
DEFAULT_METRICS = ("ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "request_p99_ms",
                   "session_p99_ms", "requests_per_s", "output_tokens_per_s")
_LATENCY = re.compile(rf"^({'|'.join(LATENCIES)})_({'|'.join(STATS)})_ms$")


@dataclass(frozen=True)
class MetricRef:
    """A figure compare can judge: ``ttft_p99_ms`` (a latency statistic) or ``requests_per_s``
    (a rate)."""

    name: str
    latency: str | None  # the latency's name, or None for a rate
    index: int  # which output of its statistic
    lower_is_better: bool

    @classmethod
    def parse(cls, name: str) -> MetricRef:
        found = _LATENCY.match(name)
        if found:
            return cls(name, found.group(1), STATS.index(found.group(2)), True)
        if name in RATES:
            return cls(name, None, RATES.index(name), False)
        known = [f"{lat}_{s}_ms" for lat in LATENCIES for s in STATS] + list(RATES)
        raise ValueError(f"unknown metric {name!r}: one of {', '.join(known)}")

    def value(self, given: Summary | dict[str, Any]) -> float | None:
        """The figure in a run's summary (its point estimate)."""
        summary = Summary.of(given)
        found: Any
        if self.latency is not None:
            found = summary.latency(self.latency, STATS[self.index])
        elif self.name == "goodput_sessions_per_s":
            found = summary.goodput.given("sessions_per_s")
        else:
            found = summary.throughput.given(self.name)
        return float(found) if isinstance(found, int | float) else None


@dataclass(frozen=True)
class Run:
    """What a verdict needs of one run: its summary and its per-session values."""

    summary: Summary | dict[str, Any]  # a summary.json read back: as a Summary (ab_compare)
    values: SessionValues
    fraction: float = 1.0  # the share of sessions the value budget kept


def _statistic(metric: MetricRef, run: Run) -> Statistic | None:
    if metric.latency is not None:
        return latency_statistic(run.values, metric.latency)
    duration_s = float(Summary.of(run.summary).duration_s or 0.0)
    return rate_statistic(run.values, duration_s, run.fraction)


def judge(lo: float, hi: float, threshold: float, lower_is_better: bool) -> str:
    """The verdict of a ratio interval [lo, hi] (B / A) at ``threshold`` (module doc)."""
    up, down = 1.0 + threshold, 1.0 - threshold
    if down <= lo and hi <= up:
        return "SAME"
    if lo > up:
        return "WORSE" if lower_is_better else "BETTER"
    if hi < down:
        return "BETTER" if lower_is_better else "WORSE"
    return "INCONCLUSIVE"


def verdict(metric: MetricRef, a: Run, b: Run, threshold: float) -> dict[str, Any]:
    """One metric's row: the two values, the ratio and its interval, the verdict, one line of
    reason."""
    import numpy as np
    from scipy import stats

    va, vb = metric.value(a.summary), metric.value(b.summary)
    row: dict[str, Any] = {"metric": metric.name, "a": va, "b": vb, "threshold": threshold,
                           "better": "lower" if metric.lower_is_better else "higher",
                           "test": "bootstrap over sessions" if metric.latency is not None
                           else "bootstrap over time windows"}
    fa, fb = _statistic(metric, a), _statistic(metric, b)
    if fa is None or fb is None or not va or vb is None:
        return {**row, "verdict": "INCONCLUSIVE", "ratio": None, "interval": None,
                "reason": "not enough sessions (or no value) in one of the runs"}
    k = metric.index

    def ratio(idx_a: Any, idx_b: Any, axis: int = -1) -> Any:
        top = fb(np.atleast_2d(idx_b))[k]
        bottom = fa(np.atleast_2d(idx_a))[k]
        return top / np.where(bottom == 0, np.nan, bottom)

    units = (len(a.values.sessions), len(b.values.sessions)) if metric.latency is not None \
        else (WINDOWS, WINDOWS)  # a rate resamples time windows (metrics/intervals.py)
    result = stats.bootstrap(
        (np.arange(units[0]), np.arange(units[1])), ratio,
        n_resamples=RESAMPLES, method="percentile", vectorized=True, paired=False, batch=100,
        confidence_level=CONFIDENCE, random_state=np.random.default_rng(SEED))
    lo, hi = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return {**row, "verdict": "INCONCLUSIVE", "ratio": vb / va, "interval": None,
                "reason": "the ratio's interval is undefined (a zero value in a resample)"}
    found = judge(lo, hi, threshold, metric.lower_is_better)
    reason = verdict_reason(found, vb / va, lo, hi, threshold, metric.lower_is_better,
                            "more sessions (or repeated runs)")
    return {**row, "verdict": found, "ratio": round(vb / va, 5),
            "interval": [round(lo, 5), round(hi, 5)], "reason": reason}


def verdict_reason(found: str, ratio: float, lo: float, hi: float, threshold: float,
                   lower_is_better: bool, what_would_decide: str) -> str:
    """The line that says why ``found`` (a verdict of :func:`judge`)."""
    span = f"B/A {ratio:.3f} [{lo:.3f}, {hi:.3f}]"
    return {
        "SAME": f"{span} lies within ±{threshold:.1%}",
        "WORSE": f"{span} lies wholly beyond {threshold:.1%} the wrong way "
                 f"({'higher' if lower_is_better else 'lower'} is worse)",
        "BETTER": f"{span} lies wholly beyond {threshold:.1%} the right way",
        "INCONCLUSIVE": f"{span} straddles ±{threshold:.1%}: {what_would_decide} would decide",
    }[found]


def parse_threshold(text: str) -> float:
    """``5%`` or ``0.05`` → 0.05; ValueError for anything else or a negative."""
    value = float(text.strip().removesuffix("%")) / (100.0 if text.strip().endswith("%")
                                                      else 1.0)
    if not 0.0 <= value < 1.0:
        raise ValueError(f"--threshold {text!r}: expected a fraction in [0, 1), e.g. 5% or 0.05")
    return value


__all__ = ["DEFAULT_METRICS", "VERDICTS", "MetricRef", "Run", "judge", "parse_threshold",
           "verdict", "verdict_reason"]
