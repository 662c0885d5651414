"""A/B verdicts across repeated runs: is B better or worse than A on a figure when each side is
a ``--repeat`` folder, judged from the runs' values rather than from one run's sessions.

A run's own interval (:mod:`agentic_bench.metrics.intervals`) covers its sessions' sampling
noise; what moves a figure from one run to the next (a warmer cache, another moment of a
shared GPU) only the spread between runs shows. Each side gives one value of the figure per
run (the run summary's point estimate); that value already carries the run's sampling noise,
so the spread between runs holds both.

**The test — Welch t on log values.** With ``x`` A's values and ``y`` B's, on the log scale
``d = mean(log y) − mean(log x)``, ``se² = s²(log x)/n_A + s²(log y)/n_B`` and the
Welch–Satterthwaite degrees of freedom; the 95 % interval of B / A is
``exp(d ± t(0.975, df) · se)``: the ratio of the two sides' geometric means (for spreads of a
few percent, within a hair of the ratio of the means). It needs no resampling, so it behaves
with 3 runs a side where a bootstrap over three values cannot (it could never be wider than the
three values allow); the t quantile at few degrees of freedom makes the interval honestly wide
instead (12.7 at one degree of freedom, 4.3 at two). The verdict is
:func:`~agentic_bench.metrics.ab_verdict.judge`'s, the same rule as for single runs.

**One side a single run.** Its one value has no spread of its own; it is taken to vary between
runs as the repeated side's values do (same harness, same machine): a pooled t with
``se² = s²(log y) · (1/n_A + 1/n_B)`` and ``n − 1`` degrees of freedom of the repeated side.
The row says so; with few runs it is mostly INCONCLUSIVE, which is the honest answer. One run on
both sides is not judged here: the bootstrap over sessions
(:func:`~agentic_bench.metrics.ab_verdict.verdict`) does that.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from agentic_bench.metrics.ab_verdict import MetricRef, judge, verdict_reason
from agentic_bench.metrics.intervals import CONFIDENCE

TEST = "Welch t on log values"
POOLED_TEST = "t on log values, the single run given the repeated side's between-run spread"
FEW_RUNS = 3  # fewer runs on a side than this: the row says the interval is wide for it


def _spread(values: Sequence[float]) -> float | None:
    return statistics.stdev(values) if len(values) >= 2 else None


def _side_text(label: str, values: Sequence[float]) -> str:
    sd = _spread(values)
    runs = f"{len(values)} run{'s' if len(values) != 1 else ''}"
    spread = "" if sd is None else f" ± {sd:.2f} sd"
    return f"{label} {statistics.fmean(values):.2f}{spread} ({runs})"


def log_ratio_interval(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float,
                                                                         float | None, str]:
    """The ratio of B's to A's geometric mean, its 95 % interval and the degrees of freedom
    (None when neither side spreads), and the test's name; positive values, one side at least
    two of them (module doc)."""
    from scipy import stats

    la, lb = [math.log(v) for v in a], [math.log(v) for v in b]
    na, nb = len(la), len(lb)
    d = statistics.fmean(lb) - statistics.fmean(la)
    if na >= 2 and nb >= 2:
        qa, qb = statistics.variance(la) / na, statistics.variance(lb) / nb
        se2, name = qa + qb, TEST
        df = se2 * se2 / (qa * qa / (na - 1) + qb * qb / (nb - 1)) if se2 > 0 else None
    else:
        repeated = la if na >= 2 else lb
        se2 = statistics.variance(repeated) * (1 / na + 1 / nb)
        df, name = (float(len(repeated) - 1) if se2 > 0 else None), POOLED_TEST
    half = 0.0 if df is None else float(stats.t.ppf(0.5 + CONFIDENCE / 2, df)) * math.sqrt(se2)
    return math.exp(d), math.exp(d - half), math.exp(d + half), df, name


def across_runs_verdict(metric: MetricRef, a: Sequence[float | None],
                        b: Sequence[float | None], threshold: float) -> dict[str, Any]:
    """One metric's row from the runs' values on each side (None: a run without the figure):
    the sides' means and between-run spreads, the ratio B / A and its interval, the verdict and
    one line of reason naming the test."""
    xa = [float(v) for v in a if v is not None]
    xb = [float(v) for v in b if v is not None]
    runs = f"across {len(xa)} vs {len(xb)} runs"
    row: dict[str, Any] = {
        "metric": metric.name, "threshold": threshold,
        "better": "lower" if metric.lower_is_better else "higher",
        "a": statistics.fmean(xa) if xa else None, "b": statistics.fmean(xb) if xb else None,
        "a_sd": _spread(xa), "b_sd": _spread(xb), "a_values": xa, "b_values": xb,
        "runs": [len(xa), len(xb)], "test": f"{runs}, {TEST}"}
    sides = f"{_side_text('A', xa)}, {_side_text('B', xb)}; " if xa and xb else ""
    row["a_shown"], row["b_shown"] = (_side_text("", x).strip() if x else "-" for x in (xa, xb))
    why = None
    if not xa or not xb:
        why = "no value of this figure in one side's runs"
    elif min(xa + xb) <= 0:
        why = f"{sides}a value ≤ 0: the test on log values needs positive values"
    elif len(xa) < 2 and len(xb) < 2:
        why = f"{sides}one run a side: no between-run spread to judge with (--repeat N)"
    if why is not None:
        return {**row, "verdict": "INCONCLUSIVE", "ratio": None, "interval": None,
                "reason": why}
    ratio, lo, hi, df, name = log_ratio_interval(xa, xb)
    found = judge(lo, hi, threshold, metric.lower_is_better)
    notes = ["no spread between runs: the interval is the point" if df is None
             else f"df {df:.1f}"]
    fewest = min(len(xa), len(xb))
    if df is not None and fewest < FEW_RUNS:
        notes.append(("one run on a side" if fewest < 2 else f"only {fewest} runs on a side")
                     + f": a wide interval (t at {df:.1f} degrees of freedom); "
                     f"{FEW_RUNS}+ runs on each side narrow it")
    reason = sides + verdict_reason(found, ratio, lo, hi, threshold, metric.lower_is_better,
                                    "more runs") + f" ({'; '.join(notes)})"
    return {**row, "test": f"{runs}, {name}", "verdict": found, "ratio": round(ratio, 5),
            "interval": [round(lo, 5), round(hi, 5)], "df": None if df is None else round(df, 2),
            "reason": reason}


__all__ = ["FEW_RUNS", "POOLED_TEST", "TEST", "across_runs_verdict", "log_ratio_interval"]
