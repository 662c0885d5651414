"""Task goodput: scored tasks that were correct **and** met every SLO, per second.

A *task* is one session of a scored benchmark (an agentic-edge sample, a rag-e2e question, a
tau2 episode, a plugin's session with a verdict): it has a ``sample`` record carrying its
verdict — ``correct`` (plugins, tau2), ``bfcl_valid`` (agentic-edge) or ``em`` (rag-e2e's
exact match) — read by :func:`verdict_of`. A task counts toward **task goodput** when it was
scored correct and its session met every latency SLO exactly as the run's goodput decides it
(:func:`~agentic_bench.metrics.verdict.goodput_limits`: every request ok and within its
limits, every turn within ``turn_*`` limits, the session within ``session_*`` limits — so
``--slo session_p99_ms=X`` is a per-task ``session_ms <= X`` term).

Intervals: a run issues its tasks (the count is the plan, not a random draw); what varies is
which of them succeed, so the fraction correct and the fraction correct-within-SLO get Wilson
score intervals (each task one trial) and the task goodput's interval is the latter's scaled
by tasks per second (``scored / duration``).

A task that did not count gets one cause, the first that applies: ``timeout``,
``context_overflow`` (a request failed so), ``error`` (any other failed request or session),
``truncated`` (a reply ended with ``finish_reason`` ``length``), ``slo`` (correct but too
slow), ``wrong`` (answered in time, scored wrong).

With ``--trials K`` each task ran K times (records carry ``trial``): the block adds
pass@k/pass^k (:mod:`~agentic_bench.metrics.pass_k`) and each task's session-latency spread
across its trials. Both use exactly each task's trials 0 … K − 1: a ``--duration`` run cycles
on past trial K − 1 (its later sessions stay in ``scored``, ``accuracy`` and task goodput and
are counted in ``extra_trials``), and a task with fewer than K scored trials among 0 … K − 1
(the run ended first, or a session left no verdict) is left out of both and counted in
``tasks_fewer_trials`` — so every task in pass@k/pass^k has the same K trials.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from statistics import fmean, pstdev, pvariance
from typing import Any

from agentic_bench.metrics.declarations import in_latency_population
from agentic_bench.metrics.intervals import fraction_interval
from agentic_bench.metrics.pass_k import pass_k_block
from agentic_bench.metrics.verdict import goodput_limits

VERDICT_FIELDS = ("correct", "bfcl_valid", "em")  # the first a sample record has is its verdict
CAUSES = ("timeout", "context_overflow", "error", "truncated", "slo", "wrong")


def verdict_of(sample: dict[str, Any]) -> bool | None:
    """A ``sample`` record's verdict (None: it carries none of :data:`VERDICT_FIELDS`)."""
    for name in VERDICT_FIELDS:
        if name in sample and sample[name] is not None:
            return bool(sample[name])
    return None


def task_key(session_id: str) -> str:
    """The task a session ran: its id without the run's ``#index`` (the same task in every
    trial)."""
    return session_id.rsplit("#", 1)[0]


@dataclass
class TaskOutcome:
    """One scored session: its task, trial, verdict, whether it met every SLO, what went wrong
    in it and its session latency."""

    task: str
    trial: int = 0
    correct: bool | None = None
    ok: bool = False  # the session ended ok
    violated: bool = False  # a request failed or broke a limit, or a turn did
    errors: Counter[str] = field(default_factory=Counter)
    truncated: bool = False
    latency_ms: float | None = None
    session_met: bool = False

    @property
    def within_slo(self) -> bool:
        return self.ok and not self.violated and self.session_met

    @property
    def counts(self) -> bool:
        """Correct and within every SLO: one task of task goodput."""
        return bool(self.correct) and self.within_slo

    def cause(self) -> str | None:
        """Why the task did not count (None when it did)."""
        if self.counts:
            return None
        for kind in ("timeout", "context_overflow"):
            if self.errors[kind]:
                return kind
        if self.errors or not self.ok:
            return "error"
        if self.truncated:
            return "truncated"
        return "slo" if self.correct else "wrong"


def task_outcomes(records: list[dict[str, Any]],
                  slos: dict[str, float]) -> dict[str, TaskOutcome]:
    """Session id → :class:`TaskOutcome`, for every session with a verdict."""
    limits = goodput_limits(slos)
    seen: dict[str, TaskOutcome] = {}

    def of(sid: str) -> TaskOutcome:
        found = seen.get(sid)
        if found is None:
            found = seen[sid] = TaskOutcome(task_key(sid))
        return found

    for r in records:
        sid = r.get("session_id")
        if not isinstance(sid, str) or r.get("warmup"):
            continue
        rtype = r.get("type")
        if rtype == "step" and r.get("status") != "retried":
            out = of(sid)
            ok = r.get("status") == "ok"
            if not ok:
                out.errors[str(r.get("error_type") or "error")] += 1
            if r.get("kind") == "llm":
                out.truncated = out.truncated or r.get("finish_reason") == "length"
                out.violated = out.violated or not (ok and limits.met(r, "step"))
        elif rtype == "turn" and in_latency_population(r):
            if not limits.met(r, "turn"):
                of(sid).violated = True
        elif rtype == "session":
            out = of(sid)
            out.ok = r.get("status") == "ok"
            out.session_met = limits.met(r, "session")
            out.trial = int(r.get("trial", out.trial))
            if in_latency_population(r) and isinstance(r.get("latency_ms"), int | float):
                out.latency_ms = float(r["latency_ms"])
        elif rtype == "sample":
            out = of(sid)
            out.correct = verdict_of(r)
            out.trial = int(r.get("trial", out.trial))
    return {sid: o for sid, o in seen.items() if o.correct is not None}


def _wilson(successes: int, total: int) -> list[float] | None:
    bounds = fraction_interval(successes, total)
    return None if bounds is None else [round(bounds[0], 4), round(bounds[1], 4)]


def first_trials(outcomes: list[TaskOutcome],
                 trials: int) -> tuple[dict[str, list[TaskOutcome]], int, int]:
    """Each task's trials 0 … ``trials`` − 1 in trial order, for the tasks that have all of
    them; how many tasks lack one (left out); how many outcomes are of a later trial."""
    by_task: dict[str, dict[int, TaskOutcome]] = {}
    for o in outcomes:
        by_task.setdefault(o.task, {})
        if o.trial < trials:
            by_task[o.task][o.trial] = o
    full = {task: [kept[t] for t in range(trials)] for task, kept in by_task.items()
            if len(kept) == trials}
    later = sum(o.trial >= trials for o in outcomes)
    return full, len(by_task) - len(full), later


def task_goodput_block(records: list[dict[str, Any]], slos: dict[str, float],
                       duration_s: float, trials: int | None = None) -> dict[str, Any] | None:
    """The summary's ``tasks`` block (module doc); None when no session was scored.
    ``trials``: the run's ``--trials K`` (None: as many as the distinct trials in the
    records)."""
    outcomes = list(task_outcomes(records, slos).values())
    if not outcomes:
        return None
    scored = len(outcomes)
    correct = sum(bool(o.correct) for o in outcomes)
    counted = sum(o.counts for o in outcomes)
    per_s = scored / duration_s if duration_s > 0 else 0.0
    within = _wilson(counted, scored)
    causes = Counter(c for o in outcomes if (c := o.cause()) is not None)
    block: dict[str, Any] = {
        "scored": scored, "correct": correct, "correct_within_slo": counted,
        "accuracy": round(correct / scored, 6), "accuracy_interval": _wilson(correct, scored),
        "within_slo_fraction": round(counted / scored, 6), "within_slo_interval": within,
        "task_goodput_per_s": round(counted * per_s / scored, 6),
        "task_goodput_interval": None if within is None else
        [round(within[0] * per_s, 6), round(within[1] * per_s, 6)],
        "causes": {c: causes[c] for c in CAUSES if causes[c]},
        "slos": {k: v for k, v in slos.items() if k.endswith("_ms")},
    }
    if trials is None:
        trials = len({o.trial for o in outcomes})
    if trials > 1:
        by_task, fewer, later = first_trials(outcomes, trials)
        block["trials"] = trials
        block["tasks_fewer_trials"] = fewer
        block["extra_trials"] = later
        pass_k = pass_k_block({t: [bool(o.correct) for o in v] for t, v in by_task.items()})
        if pass_k is not None:  # the headline: k = K, the trials every task in it had
            top = pass_k["k"][str(pass_k["trials"])]
            block["pass_hat_k"], block["pass_at_k"] = top["pass_hat_k"], top["pass_at_k"]
            block["pass_k"] = pass_k
        block["latency_across_trials"] = _latency_spread(by_task)
    return block


def _latency_spread(by_task: dict[str, list[TaskOutcome]]) -> dict[str, Any] | None:
    """Each task's session latency across its trials: mean, population standard deviation
    (ms) and variance (ms²), and over tasks the mean and largest of those deviations."""
    rows = {}
    for task, outs in sorted(by_task.items()):
        values = [o.latency_ms for o in outs if o.latency_ms is not None]
        if len(values) >= 2:
            rows[task] = {"trials": len(values), "mean_ms": round(fmean(values), 3),
                          "std_ms": round(pstdev(values), 3),
                          "variance_ms2": round(pvariance(values), 3)}
    if not rows:
        return None
    stds = [r["std_ms"] for r in rows.values()]
    return {"tasks": len(rows), "mean_std_ms": round(fmean(stds), 3),
            "max_std_ms": round(max(stds), 3), "per_task": rows}


__all__ = ["CAUSES", "VERDICT_FIELDS", "TaskOutcome", "first_trials", "task_goodput_block",
           "task_key", "task_outcomes", "verdict_of"]
