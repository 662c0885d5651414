"""95 % confidence intervals of a run's headline figures, resampling whole sessions.

Requests of one session are not independent (one conversation's history, one subagent tree,
one client stream), so the unit resampled is the **session** (an agent tree is one session):
a cluster bootstrap. Each replicate draws the run's ``S`` sessions with replacement and
recomputes the figure from every value of the drawn sessions — a latency percentile exactly as
the summary computes it (linear interpolation between closest ranks,
:mod:`agentic_bench.metrics.percentiles`), a mean, or a rate over the run's duration. The
interval is the percentile interval of :data:`RESAMPLES` replicates, drawn by SciPy's
``scipy.stats.bootstrap`` (``method="percentile"``) with the seeded generator :data:`SEED`,
so a folder gives the same intervals every time. Accuracy over 0/1 samples is a Wilson score
interval (SciPy's ``binomtest(...).proportion_ci(method="wilson")``).

Off the measured path: computed after the run from ``records.jsonl`` (read line by line, the
values of each session kept as plain numbers). Bounded on any run: at most
:data:`SESSION_BUDGET` sessions and about :data:`VALUE_BUDGET` request values enter the
bootstrap — a larger run keeps a seeded random subset of whole sessions (each in or out by a
hash of its id, :func:`kept_records` parsing only their lines), which can only widen the
interval; ``sessions_used`` and ``sessions_left_out`` say how many. Memory is then the kept
values (a few tens of MB at most) and time one scan of the file plus ``RESAMPLES × values``
operations per figure (benchmarks/soak_memory.py measures both on a million requests).

What gets an interval: TTFT, TPOT, request, turn and session latency (mean, p50, p90, p99);
requests/s, output tokens/s, sessions/s and goodput sessions/s — these from the rates of
:data:`WINDOWS` equal time windows of the run, resampled (batch means: a run always completes
its sessions, so resampling sessions would return the count, not its noise); the accuracy
headline (Wilson over 0/1 samples, or the task's own ``headline_interval``: rag-e2e and
rag-agent's mean F1, a bootstrap over questions); the goodput fraction (sessions meeting every
SLO / sessions: a Wilson score interval, each session one trial), from which a capacity search
decides (run/search.py).
docs/metrics.md, "Confidence intervals", says the same.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.metrics.declarations import field_of, in_latency_population
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.metrics.verdict import goodput_limits

CONFIDENCE = 0.95
RESAMPLES = 1000
SEED = 20261206
VALUE_BUDGET = 50_000  # request values at most (about: whole sessions are kept or left out)
SESSION_BUDGET = 20_000  # sessions at most
STATS = ("mean", "p50", "p90", "p99")
_Q = (0.50, 0.90, 0.99)
LATENCIES = ("ttft", "tpot", "request", "turn", "session")
METHOD = ("latency: cluster bootstrap over sessions; rates: bootstrap over 20 time windows "
          "(batch means); percentile intervals, scipy.stats.bootstrap; accuracy: Wilson score "
          "interval")


@dataclass
class _Session:
    values: dict[str, list[float]] = field(default_factory=dict)
    requests_ok: int = 0
    output_tokens: int = 0
    ok: bool = False
    violated: bool = False
    ends: list[tuple[int, int]] = field(default_factory=list)  # ok requests: (t_end, tokens)
    end_ns: int | None = None


@dataclass
class SessionValues:
    """Each session's latency values and counts, in the order first seen."""

    sessions: dict[str, _Session] = field(default_factory=dict)
    skipped: int = 0  # sessions left out by the value budget

    def get(self, sid: str) -> _Session:
        found = self.sessions.get(sid)
        if found is None:
            found = self.sessions[sid] = _Session()
        return found


def _kept(sid: str, fraction: float) -> bool:
    """Whether session ``sid`` is in the budgeted subset (a hash of its id: deterministic)."""
    if fraction >= 1.0:
        return True
    digest = hashlib.blake2b(f"{SEED}:{sid}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64 < fraction


def collect(records: Iterable[dict[str, Any]], slos: dict[str, float],
            fraction: float = 1.0) -> SessionValues:
    """The per-session values of ``records`` (one pass), by the summary's population rule
    (:func:`in_latency_population`); ``fraction`` < 1 keeps that share of the sessions."""
    out = SessionValues()
    fields = {name: field_of(name) for name in LATENCIES}
    limits = goodput_limits(slos)  # the declared goodput metrics (the tally's rule)
    for rec in records:
        sid, kind = rec.get("session_id"), rec.get("type")
        if rec.get("left_out"):  # kept_records skipped this session's lines unparsed
            out.skipped += 1
            continue
        if not isinstance(sid, str) or rec.get("warmup") or kind not in (
                "step", "turn", "session"):
            continue
        if not _kept(sid, fraction):  # recomputed, never remembered: memory stays bounded
            out.skipped += kind == "session"
            continue
        s = out.get(sid)
        if kind == "step" and rec.get("kind") == "llm" and rec.get("status") != "retried":
            ok = rec.get("status") == "ok"
            if not ok or not limits.met(rec, "step"):
                s.violated = True  # a goodput session: every request ok and within limits
            if not ok:
                continue
            s.requests_ok += 1
            s.output_tokens += int(rec.get("output_tokens") or 0)
            if isinstance(rec.get("t_end_ns"), int):
                s.ends.append((rec["t_end_ns"], int(rec.get("output_tokens") or 0)))
            for name in ("ttft", "tpot", "request"):
                value = rec.get(fields[name])
                if isinstance(value, int | float):
                    s.values.setdefault(name, []).append(float(value))
        elif kind == "turn" and in_latency_population(rec):  # the tally's rule for turns
            if not limits.met(rec, "turn"):
                s.violated = True
            if isinstance(rec.get(fields["turn"]), int | float):
                s.values.setdefault("turn", []).append(float(rec[fields["turn"]]))
        elif kind == "session":
            s.ok = rec.get("status") == "ok"
            s.end_ns = rec.get("t_end_ns") if isinstance(rec.get("t_end_ns"), int) else None
            if in_latency_population(rec) and isinstance(rec.get(fields["session"]),
                                                         int | float):
                s.values.setdefault("session", []).append(float(rec[fields["session"]]))
    return out


def _weighted_figures(sorted_values: Any, sorted_owner: Any, weights: Any) -> Any:
    """mean, p50, p90, p99 of the values with each session's values repeated as many times as
    the replicate drew the session (``weights``: one row of per-session counts per replicate):
    the summary's own estimators on the resampled data. Memory: one row of values at a time."""
    import numpy as np

    out = np.empty((1 + len(_Q), len(weights)))
    for r, row in enumerate(weights):
        w = row[sorted_owner]  # each value's multiplicity, in sorted order
        cw = np.cumsum(w)
        n = cw[-1]
        out[0, r] = float(w @ sorted_values) / max(n, 1.0)
        for k, q in enumerate(_Q, start=1):
            h = (n - 1) * q
            lo = math.floor(h)
            # the value at expanded rank j: the first sorted value whose cumulative count > j
            v_lo = sorted_values[np.searchsorted(cw, lo, side="right")]
            v_hi = sorted_values[np.searchsorted(cw, min(lo + 1, n - 1), side="right")]
            out[k, r] = v_lo + (h - lo) * (v_hi - v_lo)
    return out


def _bootstrap(statistic: Any, sessions: int, outputs: int) -> list[tuple[float, float]]:
    import numpy as np
    from scipy import stats

    if sessions < 2:
        return [(math.nan, math.nan)] * outputs
    result = stats.bootstrap((np.arange(sessions),), statistic, n_resamples=RESAMPLES,
                             method="percentile", vectorized=True, batch=100,
                             confidence_level=CONFIDENCE, random_state=np.random.default_rng(SEED))
    lo, hi = np.atleast_1d(result.confidence_interval.low), np.atleast_1d(
        result.confidence_interval.high)
    return [(float(a), float(b)) for a, b in zip(lo, hi, strict=True)]


Statistic = Callable[..., Any]  # resampled session indices (batch, S) → figures (k, batch)
RATES = ("requests_per_s", "output_tokens_per_s", "sessions_per_s", "goodput_sessions_per_s")


def latency_statistic(values: SessionValues, name: str) -> Statistic | None:
    """mean, p50, p90, p99 of latency ``name`` over resampled sessions (None: under two
    values)."""
    import numpy as np

    owners = [(k, v) for k, s in enumerate(values.sessions.values())
              for v in s.values.get(name, ())]
    if len(owners) < 2:
        return None
    arr = np.array([v for _, v in owners], dtype=float)
    owner = np.array([k for k, _ in owners], dtype=np.int64)
    order = np.argsort(arr, kind="stable")
    sorted_values, sorted_owner = arr[order], owner[order]
    count = len(values.sessions)

    def statistic(idx: Any, axis: int = -1) -> Any:
        idx = np.atleast_2d(idx)
        weights = np.stack([np.bincount(row, minlength=count) for row in idx]).astype(float)
        return _weighted_figures(sorted_values, sorted_owner, weights)

    return statistic


WINDOWS = 20  # the measured span cut into this many equal windows for the rates


def rate_windows(values: SessionValues, fraction: float) -> Any:
    """The :data:`RATES` of each of :data:`WINDOWS` equal time windows of the run (requests
    and tokens by when each ended, sessions by when they ended) — rows of a batch-means
    estimate: a closed loop always completes its sessions, so resampling sessions would give
    the count, not its noise; the windows carry the rate's variation over time. None when the
    records hold no end times."""
    import numpy as np

    reqs = [(t, tok) for s in values.sessions.values() for t, tok in s.ends]
    sess = [(s.end_ns, float(s.ok and not s.violated)) for s in values.sessions.values()
            if s.end_ns is not None]
    if len(reqs) < 2:
        return None
    times = [t for t, _ in reqs] + [t for t, _ in sess]
    lo, hi = min(times), max(times)
    if hi <= lo:
        return None
    width_s = (hi - lo) / WINDOWS / 1e9
    out = np.zeros((WINDOWS, len(RATES)))

    def slot(t: int) -> int:
        return min(int((t - lo) * WINDOWS / (hi - lo)), WINDOWS - 1)

    for t, tok in reqs:
        out[slot(t), 0] += 1
        out[slot(t), 1] += tok
    for t, good in sess:
        out[slot(t), 2] += 1
        out[slot(t), 3] += good
    return out / (width_s * fraction)  # a budgeted subset stands for the whole run


def rate_statistic(values: SessionValues, duration_s: float,
                   fraction: float) -> Statistic | None:
    """The :data:`RATES` as means over resampled time windows (:func:`rate_windows`); the
    statistic's input indexes windows, not sessions."""
    import numpy as np

    windows = rate_windows(values, fraction)
    if windows is None or duration_s <= 0:
        return None

    def statistic(idx: Any, axis: int = -1) -> Any:
        idx = np.atleast_2d(idx)
        return windows[idx].mean(axis=1).T

    return statistic


def _latency(values: SessionValues, name: str) -> dict[str, list[float]] | None:
    statistic = latency_statistic(values, name)
    if statistic is None:
        return None
    bounds = _bootstrap(statistic, len(values.sessions), len(STATS))
    return {stat: [round(lo, 3), round(hi, 3)] for stat, (lo, hi) in zip(STATS, bounds,
                                                                          strict=True)}


def _rates(values: SessionValues, duration_s: float, fraction: float) -> dict[str, list[float]]:
    statistic = rate_statistic(values, duration_s, fraction)
    if statistic is None:
        return {}
    bounds = _bootstrap(statistic, WINDOWS, len(RATES))
    return {n: [round(lo, 4), round(hi, 4)] for n, (lo, hi) in zip(RATES, bounds, strict=True)}


def budget_fraction(summary: Summary | dict[str, Any]) -> float:
    """The share of sessions the budgets keep for a run of this summary."""
    counts = Summary.of(summary).counts
    requests, sessions = int(counts.requests_ok or 0), int(counts.sessions or 0)
    return min(1.0, VALUE_BUDGET / requests if requests else 1.0,
               SESSION_BUDGET / sessions if sessions else 1.0)


_SID = re.compile(rb'"session_id":\s*"([^"\\]*)"')


def kept_records(path: Path, fraction: float) -> Iterator[dict[str, Any]]:
    """The records of the file ``path`` (``.gz`` too) that :func:`collect` keeps at
    ``fraction``: a line of a session left out is skipped before it is parsed (its session id
    read from the raw line), so a long run's file costs one scan, not one parse per line."""
    import gzip

    import orjson

    opened: Any = gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")
    with opened as fh:
        for line in fh:
            if fraction < 1.0:
                found = _SID.search(line)
                if found is not None and not _kept(found.group(1).decode("utf-8", "replace"),
                                                   fraction):
                    if b'"type":"session"' in line:
                        yield {"type": "session", "left_out": True}
                    continue
            try:
                yield orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # a torn line


def accuracy_interval(correct: int, total: int) -> list[float] | None:
    """Wilson score interval of ``correct`` / ``total`` (SciPy's binomtest)."""
    if total <= 0:
        return None
    from scipy import stats

    ci = stats.binomtest(correct, total).proportion_ci(confidence_level=CONFIDENCE,
                                                       method="wilson")
    return [round(float(ci.low), 4), round(float(ci.high), 4)]


def fraction_interval(successes: int, total: int) -> tuple[float, float] | None:
    """Wilson score interval of ``successes`` / ``total`` at :data:`CONFIDENCE`, unrounded
    (SciPy's binomtest, as :func:`accuracy_interval`); None when ``total`` is 0. Each trial
    counts once: for the goodput fraction a trial is a session (met every SLO or not)."""
    if total <= 0:
        return None
    from scipy import stats

    ci = stats.binomtest(max(0, min(successes, total)), total).proportion_ci(
        confidence_level=CONFIDENCE, method="wilson")
    return float(ci.low), float(ci.high)


def goodput_fraction_interval(given: Summary | dict[str, Any]) -> list[float] | None:
    """The Wilson interval of the **goodput fraction** (SLO attainment): sessions that met every
    SLO (``goodput.sessions``) over sessions issued (``counts.sessions``); None without
    sessions. A capacity search decides each probe from it (run/search.py)."""
    summary = Summary.of(given)
    sessions = int(summary.counts.sessions or 0)
    met = int(summary.goodput.sessions or 0)
    bounds = fraction_interval(met, sessions)
    return None if bounds is None else [round(bounds[0], 4), round(bounds[1], 4)]


def intervals(records: Iterable[dict[str, Any]], given: Summary | dict[str, Any],
              slos: dict[str, float]) -> dict[str, Any]:
    """The ``intervals`` block of summary.json for a run (``records``: its records, read once;
    ``given``: its summary, for the duration, the request count and the accuracy)."""
    summary = Summary.of(given)
    fraction = budget_fraction(summary)
    values = collect(records, slos, fraction)
    used = len(values.sessions)
    block: dict[str, Any] = {
        "confidence": CONFIDENCE, "method": METHOD, "resamples": RESAMPLES, "seed": SEED,
        "sessions_used": used, "sessions_left_out": values.skipped,
        "latency_ms": {}, "throughput": {}}
    if used < 2:
        block["note"] = "fewer than 2 sessions: no interval"
        return block
    for name in LATENCIES:
        found = _latency(values, name)
        if found is not None:
            block["latency_ms"][name] = found
    block["throughput"] = _rates(values, float(summary.duration_s or 0.0), fraction)
    fraction_bounds = goodput_fraction_interval(summary)
    if fraction_bounds is not None:
        block["goodput_fraction"] = fraction_bounds
    acc = summary.accuracy or {}
    if isinstance(acc.get("correct"), int) and isinstance(acc.get("total"), int):
        block["accuracy"] = accuracy_interval(acc["correct"], acc["total"])
    elif isinstance(acc.get("headline_interval"), list):  # (the task's own: rag-e2e's F1)
        block["accuracy"] = acc["headline_interval"]
    return block


def shown(value: Any, bounds: list[float] | None, digits: int = 2) -> str:
    """``412.00 [398.10, 431.55]``: a figure with its interval, for text outputs."""
    def num(x: Any) -> str:
        return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else \
            f"{x:,.{digits}f}"

    if not bounds:
        return num(value)
    return f"{num(value)} [{num(bounds[0])}, {num(bounds[1])}]"


__all__ = [
    "CONFIDENCE",
    "LATENCIES",
    "METHOD",
    "RATES",
    "RESAMPLES",
    "SEED",
    "SESSION_BUDGET",
    "STATS",
    "VALUE_BUDGET",
    "WINDOWS",
    "SessionValues",
    "Statistic",
    "accuracy_interval",
    "budget_fraction",
    "collect",
    "fraction_interval",
    "goodput_fraction_interval",
    "intervals",
    "kept_records",
    "latency_statistic",
    "rate_statistic",
    "rate_windows",
    "shown",
]
