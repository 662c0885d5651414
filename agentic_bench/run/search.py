"""Capacity under SLO: the largest load at which enough sessions stay within the SLOs.

``--search concurrency=LO:HI`` (or ``rate=LO:HI``) runs the workload at chosen load points and
looks for the largest one whose **goodput fraction** — sessions that met every ``--slo`` limit
(all requests ok, TTFT / TPOT / turn limits) over sessions issued — is at least
``--search-fraction`` (0.95 by default). Each probe is decided from the fraction's **95 %
interval**, not its point value (issue #44 item 5): the Wilson score interval of the sessions
pooled over the probe's runs (metrics/intervals.py :func:`fraction_interval`, each session one
trial). PASS when the whole interval is at or above the fraction, FAIL when it is wholly below,
UNSURE otherwise — and an UNSURE probe runs again (``--search-max-runs``, 3 runs in all by
default) until it is decided or the runs are spent. A probe that did not reach its load is
UNSURE (no evidence either way) and is not run again. The search:

1. *brackets*: LO first (when it fails, there is no capacity in the range), then doubling
   (LO, 2·LO, 4·LO, …, capped at HI) past passing and undecided loads until one fails or HI is
   probed;
2. *bisects* the pass edge — between the largest passing load and the smallest load above it
   that did not pass — and then the fail edge — between the smallest failing load and the
   largest load below it that did not fail — until each is ``--search-resolution`` wide (1 for
   concurrency; 5 % of LO for a rate, unless given). Without an UNSURE probe both edges are one
   bracket, probed exactly as a pass/fail bisection;
3. answers in words (:class:`CapacityAnswer`): ``capacity N`` (N passes, the next load up
   fails), ``at least N`` (N passes; nothing above it up to HI fails), ``indeterminate between
   N and M`` (N passes, M fails, the loads between undecided), ``indeterminate below M`` /
   ``indeterminate`` (nothing passes), or ``none in range`` (LO fails) — with the reason.

``capacity`` stays a load the evidence supports — the largest passing load below the smallest
failing one (None when none passes) — never a number the intervals do not support; ``answer``,
``lower``, ``upper`` and ``reason`` say how far the evidence goes. Every probe in ``search.json``
has its runs' fractions, the pooled interval, the decision and, for comparison, the point rule's
(the median fraction of its first ``--search-repeats`` runs against the fraction). The curve goes
to ``sweep.html`` (the points as a sweep, the answer in its headline).
The decision logic (:func:`bisect_capacity`) is pure, tested on its own.

SIGINT/SIGTERM stop the search as they stop a sweep (run/sweep.py): the probe running ends as an
interrupted run, no further one starts, and ``search.json`` (``interrupted``; ``capacity`` None:
the search did not finish) covers the probes run; ``--resume DIR`` goes on from there (finished
runs are read back, so the same decisions replay and the search continues where it stopped).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from agentic_bench.errors import ConfigError
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.options.load import SearchSpec

if TYPE_CHECKING:
    from pathlib import Path

    from agentic_bench.contracts import Workload
    from agentic_bench.options.common import CommonOptions

LATENCY_SLOS = ("ttft_p99_ms", "tpot_p99_ms", "turn_p90_ms")
RULE = ("Wilson 95% interval of the goodput fraction, sessions pooled over a load's runs: PASS "
        "when it lies wholly at or above the fraction, FAIL when wholly below, UNSURE otherwise "
        "(run again up to the max runs)")


class Decision(StrEnum):
    """One probe's verdict from the interval of its goodput fraction."""

    PASS = "pass"
    FAIL = "fail"
    UNSURE = "unsure"


def decide(bounds: tuple[float, float] | list[float] | None, fraction: float) -> Decision:
    """PASS when the interval ``bounds`` lies wholly at or above ``fraction``, FAIL when wholly
    below, UNSURE otherwise (and without an interval)."""
    if bounds is None:
        return Decision.UNSURE
    lo, hi = bounds
    if lo >= fraction:
        return Decision.PASS
    if hi < fraction:
        return Decision.FAIL
    return Decision.UNSURE


@dataclass(frozen=True)
class CapacityAnswer:
    """What the probes support: ``capacity`` (a load shown to pass, None when none is),
    ``lower`` (the largest passing load below ``upper``), ``upper`` (the smallest failing load),
    ``verdict`` (``capacity``, ``at_least``, ``indeterminate`` or ``none``), ``answer`` and
    ``reason`` in words, and every probe's decision."""

    capacity: float | None
    lower: float | None
    upper: float | None
    verdict: str
    answer: str
    reason: str
    decisions: dict[float, Decision] = field(default_factory=dict)


def bisect_capacity(spec: SearchSpec,
                    judge: Callable[[float], Decision | bool]) -> CapacityAnswer:
    """Bracket then bisect both edges (module doc), asking ``judge`` once per load; a bool from
    ``judge`` is a point decision (True: PASS, False: FAIL)."""
    seen: dict[float, Decision] = {}

    def probe(v: float) -> Decision:
        if v not in seen:
            got = judge(v)
            seen[v] = got if isinstance(got, Decision) else (
                Decision.PASS if got else Decision.FAIL)
        return seen[v]

    def snap(v: float) -> float:
        return float(int(v)) if spec.integer else v

    x = spec.lo
    if probe(x) is not Decision.FAIL:
        while x < spec.hi and seen[x] is not Decision.FAIL:
            nxt = snap(min(spec.hi, x * 2))
            if nxt <= x:
                nxt = min(spec.hi, snap(x + spec.step))
            if nxt <= x:
                break
            probe(nxt)
            x = nxt

    def narrow(inside: float, outside: float, edge: Decision) -> None:
        """Bisect between a load decided ``edge`` (``inside``) and one that was not
        (``outside``), down to the step: each midpoint probed moves one end."""
        while abs(outside - inside) > spec.step:
            mid = snap((inside + outside) / 2)
            if mid <= min(inside, outside) or mid >= max(inside, outside):
                break
            if probe(mid) is edge:
                inside = mid
            else:
                outside = mid

    # the pass edge: the largest PASS below any FAIL, and the smallest load above it not passing
    good = _lower(seen)
    if good is not None:
        above = min((v for v, d in seen.items() if v > good and d is not Decision.PASS),
                    default=None)
        if above is not None:
            narrow(good, above, Decision.PASS)
    # the fail edge: the smallest FAIL, and the largest load below it not failing
    bad = _upper(seen)
    if bad is not None:
        below = max((v for v, d in seen.items() if v < bad and d is not Decision.FAIL),
                    default=None)
        if below is not None:
            narrow(bad, below, Decision.FAIL)
    return answer_of(spec, seen)


def _upper(seen: dict[float, Decision]) -> float | None:
    return min((v for v, d in seen.items() if d is Decision.FAIL), default=None)


def _lower(seen: dict[float, Decision]) -> float | None:
    upper = _upper(seen)
    return max((v for v, d in seen.items() if d is Decision.PASS
                and (upper is None or v < upper)), default=None)


def answer_of(spec: SearchSpec, seen: dict[float, Decision]) -> CapacityAnswer:
    """The answer the decisions ``seen`` support (module doc, step 3)."""
    key, need = spec.key, f"{spec.fraction:g}"
    upper, lower = _upper(seen), _lower(seen)

    def loads(vs: list[float]) -> str:
        return ", ".join(f"{v:g}" for v in vs)

    unsure = sorted(v for v, d in seen.items() if d is Decision.UNSURE)
    odd = sorted(v for v, d in seen.items()
                 if d is Decision.PASS and upper is not None and v > upper)
    caveat = (f"; {key} {loads(odd)} passed above a failing load (the fraction did not fall "
              "with load: the answer holds below it)" if odd else "")
    straddle = f"their intervals straddle {need}"

    def make(verdict: str, text: str, reason: str) -> CapacityAnswer:
        return CapacityAnswer(lower, lower, upper, verdict, text, reason + caveat, dict(seen))

    if upper is not None and upper <= spec.lo:
        return make("none", "none in range",
                    f"{key} {upper:g} (LO) fails: the capacity is below the range")
    if lower is None:
        if upper is None:
            return make("indeterminate", "indeterminate",
                        f"no load was decided: {key} {loads(unsure)} undecided, {straddle}")
        between = [v for v in unsure if v < upper]
        return make("indeterminate", f"indeterminate below {upper:g}",
                    f"{key} {upper:g} fails and no load passes: {key} {loads(between)} "
                    f"undecided ({straddle}), so the capacity may be below LO")
    if upper is None:
        if lower >= spec.hi:
            return make("at_least", f"at least {lower:g}",
                        f"{key} {lower:g} (HI) passes: the capacity is at or above the range")
        above = [v for v in unsure if v > lower]
        return make("at_least", f"at least {lower:g}",
                    f"{key} {lower:g} passes; {key} {loads(above)} above it undecided "
                    f"({straddle}) and no load up to {spec.hi:g} fails")
    if upper - lower <= spec.step:
        return make("capacity", f"capacity {lower:g}",
                    f"{key} {lower:g} passes and {upper:g} fails (resolution {spec.step:g})")
    between = [v for v in unsure if lower < v < upper]
    return make("indeterminate", f"indeterminate between {lower:g} and {upper:g}",
                f"{key} {lower:g} passes and {upper:g} fails; "
                + (f"{key} {loads(between)} undecided ({straddle})" if between else
                   "nothing between them was probed"))


def goodput_fraction(summary: Summary | dict[str, Any]) -> float:
    """Sessions that met every SLO / sessions issued (0 when none ran)."""
    typed = Summary.of(summary)
    sessions, met = typed.counts.sessions, typed.goodput.sessions or 0
    return met / sessions if sessions else 0.0


def objective_counts(summary: Summary, objective: str) -> tuple[int, int]:
    """``(met, trials)`` of a probe under ``--search-objective``: sessions that met every SLO
    of sessions issued (``goodput``), or tasks scored correct within every SLO of tasks
    scored (``task-goodput``; a run that scored nothing cannot be searched so)."""
    if objective != "task-goodput":
        return summary.goodput.sessions or 0, summary.counts.sessions
    if summary.tasks is None:
        raise ConfigError("--search-objective task-goodput needs a scored benchmark (its "
                          "sessions scored correct or not); this run scored none")
    return summary.tasks.correct_within_slo, summary.tasks.scored


def run_search(workload: Workload, options: CommonOptions, spec: SearchSpec,
               command: str | None = None) -> dict[str, Any]:
    """Probe loads as the module says, each point under its own options (as a sweep's:
    :func:`~agentic_bench.run.sweep.point_options`)."""
    from agentic_bench.metrics.sweep import sweep_point
    from agentic_bench.options.files import write_run_config
    from agentic_bench.options.schema import public_options
    from agentic_bench.run.folder import default_out
    from agentic_bench.run.sweep import PointRunner

    slos = {**workload.default_slos, **options.slos}
    from agentic_bench.metrics.verdict import latency_slo

    if not any(k in LATENCY_SLOS or latency_slo(k) for k in slos):  # a limit the run has
        raise ConfigError("--search needs a latency limit to search against: --slo "
                          "ttft_p99_ms=..., tpot_p99_ms=... or turn_p90_ms=...")
    base = options.resume or options.out or default_out(f"{workload.name}-search")
    base.mkdir(parents=True, exist_ok=True)
    write_run_config(base, command or workload.name, public_options(options), sweep_folder=True)
    probed: list[dict[str, Any]] = []
    runner = PointRunner(workload, options, command)
    last: list[float] = []

    def judge(value: float) -> Decision:
        from agentic_bench.metrics.intervals import fraction_interval

        met = sessions = 0
        fractions: list[float] = []
        short = False
        decision = Decision.UNSURE
        bounds: tuple[float, float] | None = None
        while len(fractions) < spec.max_runs:
            r = len(fractions)
            if runner.stopped:
                raise _Stopped
            many = spec.repeats > 1 or r > 0
            name = f"{spec.key}-{value:g}" + (f"-r{r + 1}" if many else "")
            last[:] = [value]
            summary = runner.run(spec.key, value, base / name)
            if summary is None:
                raise _Stopped
            typed = Summary.of(summary)
            met_now, trials_now = objective_counts(typed, options.search_objective)
            fraction = met_now / trials_now if trials_now else 0.0
            fractions.append(fraction)
            met += met_now
            sessions += trials_now
            point = sweep_point(spec.key, value, summary)
            short = short or bool(point.get("short"))
            probed.append({**point, "repeat": r + 1, "goodput_fraction": fraction,
                           **({"interrupted": True} if runner.cut is not None else {})})
            if runner.stopped:
                raise _Stopped
            if len(fractions) < spec.repeats:
                continue
            bounds = fraction_interval(met, sessions)
            decision = Decision.UNSURE if short else decide(bounds, spec.fraction)
            if decision is not Decision.UNSURE or short:
                break
        point_fraction = statistics.median(fractions[:spec.repeats])
        shown = None if bounds is None else [round(bounds[0], 4), round(bounds[1], 4)]
        for p in probed[-len(fractions):]:
            p.update({"decision": decision.value, "meets": decision is Decision.PASS,
                      "interval": shown, "pooled": {"met": met, "sessions": sessions,
                                                    "runs": len(fractions)},
                      "point_fraction": point_fraction,
                      "point_meets": point_fraction >= spec.fraction and not short})
        if not options.quiet:
            verdict = ("load not reached: " + str(probed[-1].get("short")) if short else
                       decision.value.upper())
            what = ("task goodput fraction" if options.search_objective == "task-goodput"
                    else "goodput fraction")
            print(f"search {spec.key}={value:g}: {what} {met}/{sessions} = "
                  f"{met / sessions if sessions else 0.0:.3f} "
                  f"[{'-' if shown is None else f'{shown[0]:.3f}, {shown[1]:.3f}'}] over "
                  f"{len(fractions)} run(s): {verdict} (need {spec.fraction:g})", flush=True)
        return decision

    stop: dict[str, Any] | None = None
    found: CapacityAnswer | None = None
    with runner:
        try:
            found = bisect_capacity(spec, judge)
        except _Stopped:
            stop = runner.stop("search", spec.key, None, base, last[0] if last else None)
        result = _write(base, spec, slos, found, probed, stop, options.search_objective)
    if not options.quiet and found is not None:
        print(f"search answer: {spec.key} {found.answer} — {found.reason}", flush=True)
    return {**result, "out_dir": str(base)}


class _Stopped(Exception):
    """An interrupt stopped the search (run/sweep.py :class:`PointRunner`)."""


def _write(base: Path, spec: SearchSpec, slos: dict[str, float], found: CapacityAnswer | None,
           probed: list[dict[str, Any]], stop: dict[str, Any] | None,
           objective: str = "goodput") -> dict[str, Any]:
    """``search.json`` and ``sweep.html`` (the module doc); ``stop``: where an interrupt
    stopped the search (no capacity then: it did not finish)."""
    from agentic_bench.metrics.sweep import sweep_summary
    from agentic_bench.reporting.sweep_html import write_sweep_html

    curve = sorted({p[spec.key]: p for p in probed}.values(), key=lambda p: p[spec.key])
    capacity = found.capacity if found is not None else None
    answer: dict[str, Any] = (
        {"verdict": "interrupted", "answer": "interrupted", "lower": None, "upper": None,
         "reason": "interrupted: the search did not finish"} if found is None else
        {"verdict": found.verdict, "answer": found.answer, "lower": found.lower,
         "upper": found.upper, "reason": found.reason})
    result = {
        "schema": "agentic-bench/search", "version": 2, "key": spec.key,
        "criterion": {"goodput_fraction": spec.fraction, "slos": slos, "rule": RULE,
                      "objective": objective},
        "range": [spec.lo, spec.hi], "resolution": spec.step, "repeats": spec.repeats,
        "max_runs": spec.max_runs,
        "capacity": capacity,
        "capacity_note": ("interrupted: the search did not finish" if found is None else
                          "below the range: LO fails" if found.verdict == "none" else
                          "no load passes" if capacity is None else
                          "at or above the range: HI passes" if capacity >= spec.hi else
                          "largest passing load probed"),
        **answer,
        "points": probed,
        **({"interrupted": stop} if stop is not None else {}),
    }
    (base / "search.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    write_sweep_html(base, {**sweep_summary(spec.key, curve), "capacity": capacity,
                            "criterion": result["criterion"],
                            **({"answer": answer} if found is not None else {}),
                            **({"interrupted": stop} if stop is not None else {})})
    return result


__all__ = ["CapacityAnswer", "Decision", "answer_of", "bisect_capacity", "decide",
           "goodput_fraction", "objective_counts", "run_search"]
