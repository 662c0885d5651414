"""Capacity under SLO: the largest load at which enough sessions stay within the SLOs.

``--search concurrency=LO:HI`` (or ``rate=LO:HI``) runs the workload at chosen load points and
finds the largest one whose **goodput fraction** — sessions that met every ``--slo`` limit
(all requests ok, TTFT / TPOT / turn limits) over sessions issued — is at least
``--search-fraction`` (0.95 by default). The search:

1. *brackets*: LO first (when it fails, there is no capacity in the range), then doubling
   (LO, 2·LO, 4·LO, …, capped at HI) until a point fails or HI passes;
2. *bisects* between the last passing and the first failing point until they are within
   ``--search-resolution`` (1 for concurrency; 5 % of LO for a rate, unless given);
3. runs each point ``--search-repeats`` times (1 by default) and decides on the **median**
   fraction, for noisy systems.

The result (``capacity``: the largest passing load probed; None when LO fails), the criterion,
every probed point in probe order (with its fraction, decision and run directory) and the
curve go to ``search.json`` and ``sweep.html`` (the points as a sweep) in the output folder.
The decision logic (:func:`bisect_capacity`) is pure, tested on its own.

SIGINT/SIGTERM stop the search as they stop a sweep (run/sweep.py): the probe running ends as an
interrupted run, no further one starts, and ``search.json`` (``interrupted``; ``capacity`` None:
the search did not finish) covers the probes run; ``--resume DIR`` goes on from there.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentic_bench.errors import ConfigError
from agentic_bench.options.load import SearchSpec

if TYPE_CHECKING:
    from pathlib import Path

    from agentic_bench.contracts import Workload
    from agentic_bench.options.common import CommonOptions

LATENCY_SLOS = ("ttft_p99_ms", "tpot_p99_ms", "turn_p90_ms")


def bisect_capacity(spec: SearchSpec, meets: Callable[[float], bool]) -> float | None:
    """The largest load that ``meets`` the criterion, by bracketing then bisection."""
    def snap(v: float) -> float:
        return float(int(v)) if spec.integer else v

    if not meets(spec.lo):
        return None
    good, bad = spec.lo, None
    while bad is None and good < spec.hi:
        nxt = snap(min(spec.hi, good * 2))
        if nxt <= good:
            nxt = snap(good + spec.step)
        if meets(nxt):
            good = nxt
        else:
            bad = nxt
    if bad is None:
        return good  # HI passes: the capacity is at or above the range
    while bad - good > spec.step:
        mid = snap((good + bad) / 2)
        if mid <= good or mid >= bad:
            break
        if meets(mid):
            good = mid
        else:
            bad = mid
    return good


def goodput_fraction(summary: dict[str, Any]) -> float:
    """Sessions that met every SLO / sessions issued (0 when none ran)."""
    sessions = summary["counts"]["sessions"]
    met = (summary.get("goodput") or {}).get("sessions", 0)
    return met / sessions if sessions else 0.0


def run_search(workload: Workload, options: CommonOptions, spec: SearchSpec,
               command: str | None = None) -> dict[str, Any]:
    """Probe loads as the module says, each point under its own options (as a sweep's:
    :func:`~agentic_bench.run.sweep.point_options`). A point that did not reach its load
    never passes."""
    from agentic_bench.metrics.sweep import sweep_point
    from agentic_bench.options.files import write_run_config
    from agentic_bench.options.schema import public_options
    from agentic_bench.run.folder import default_out
    from agentic_bench.run.sweep import PointRunner

    slos = {**workload.default_slos, **options.slos}
    if not any(k in slos for k in LATENCY_SLOS):
        raise ConfigError("--search needs a latency limit to search against: --slo "
                          "ttft_p99_ms=..., tpot_p99_ms=... or turn_p90_ms=...")
    base = options.resume or options.out or default_out(f"{workload.name}-search")
    base.mkdir(parents=True, exist_ok=True)
    write_run_config(base, command or workload.name, public_options(options), sweep_folder=True)
    probed: list[dict[str, Any]] = []
    runner = PointRunner(workload, options, command)
    last: list[float] = []

    def meets(value: float) -> bool:
        fractions = []
        short = False
        for r in range(spec.repeats):
            if runner.stopped:
                raise _Stopped
            name = f"{spec.key}-{value:g}" + (f"-r{r + 1}" if spec.repeats > 1 else "")
            last[:] = [value]
            summary = runner.run(spec.key, value, base / name)
            if summary is None:
                raise _Stopped
            fraction = goodput_fraction(summary)
            fractions.append(fraction)
            point = sweep_point(spec.key, value, summary)
            short = short or bool(point.get("short"))
            probed.append({**point, "repeat": r + 1, "goodput_fraction": fraction,
                           **({"interrupted": True} if runner.cut is not None else {})})
            if runner.stopped:
                raise _Stopped
        decided = statistics.median(fractions) >= spec.fraction and not short
        for p in probed[-spec.repeats:]:
            p["meets"] = decided
        if not options.quiet:
            verdict = ("load not reached: " + str(probed[-1].get("short")) if short else
                       "meets" if decided else "below")
            print(f"search {spec.key}={value:g}: goodput fraction "
                  f"{statistics.median(fractions):.3f} ({verdict}; need {spec.fraction:g})",
                  flush=True)
        return decided

    stop: dict[str, Any] | None = None
    with runner:
        try:
            capacity = bisect_capacity(spec, meets)
        except _Stopped:
            capacity = None
            stop = runner.stop("search", spec.key, None, base, last[0] if last else None)
        result = _write(base, spec, slos, capacity, probed, stop)
    return {**result, "out_dir": str(base)}


class _Stopped(Exception):
    """An interrupt stopped the search (run/sweep.py :class:`PointRunner`)."""


def _write(base: Path, spec: SearchSpec, slos: dict[str, float], capacity: float | None,
           probed: list[dict[str, Any]], stop: dict[str, Any] | None) -> dict[str, Any]:
    """``search.json`` and ``sweep.html`` (the module doc); ``stop``: where an interrupt
    stopped the search (no capacity then: it did not finish)."""
    from agentic_bench.metrics.sweep import sweep_summary
    from agentic_bench.reporting.sweep_html import write_sweep_html

    curve = sorted({p[spec.key]: p for p in probed}.values(), key=lambda p: p[spec.key])
    result = {
        "schema": "agentic-bench/search", "version": 1, "key": spec.key,
        "criterion": {"goodput_fraction": spec.fraction, "slos": slos,
                      "rule": "median goodput fraction over repeats >= the fraction"},
        "range": [spec.lo, spec.hi], "resolution": spec.step, "repeats": spec.repeats,
        "capacity": capacity,
        "capacity_note": ("interrupted: the search did not finish" if stop is not None else
                          "below the range: LO fails" if capacity is None else
                          "at or above the range: HI passes" if capacity >= spec.hi else
                          "largest passing load probed"),
        "points": probed,
        **({"interrupted": stop} if stop is not None else {}),
    }
    (base / "search.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    write_sweep_html(base, {**sweep_summary(spec.key, curve), "capacity": capacity,
                            "criterion": result["criterion"],
                            **({"interrupted": stop} if stop is not None else {})})
    return result


__all__ = ["bisect_capacity", "goodput_fraction", "run_search"]
