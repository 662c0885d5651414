"""``--repeat N``: the same configuration run N times into one folder (``rep-1/`` … ``rep-N/``),
and one combined view of them (``repeat.json``, ``repeat.txt``).

A run's own 95 % intervals (:mod:`agentic_bench.metrics.intervals`) cover its sampling noise;
what differs from one run to the next — a warmer cache, another moment of a shared GPU, the
client's machine — only repeated runs show. For each headline figure the combined view puts
the runs' values and their spread (the between-run standard deviation) beside the mean
half-width of the runs' own intervals, and flags the figure **unstable** when two runs'
intervals do not overlap: the runs disagree by more than their own noise explains, so one
run's interval understates the uncertainty.

Each repetition is a whole run (its summary, records and report in ``rep-K``); Ctrl-C stops
the repetitions as it stops a sweep (:class:`~agentic_bench.run.sweep.PointRunner`).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.metrics.intervals import LATENCIES, RATES, STATS
from agentic_bench.metrics.summary_model import Intervals, Summary
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.files import write_run_config
from agentic_bench.options.schema import public_options
from agentic_bench.run.folder import default_out
from agentic_bench.run.sweep import PointRunner

REPEAT_FILE = "repeat.json"


def figures(given: Summary | dict[str, Any]
            ) -> dict[str, tuple[float | None, list[float] | None]]:
    """Each headline figure of a run: (value, its 95 % interval or None)."""
    summary = Summary.of(given)
    out: dict[str, tuple[float | None, list[float] | None]] = {}
    block = summary.intervals or Intervals()
    for name in LATENCIES:
        bounds = block.latency_ms.get(name) or {}
        for stat in STATS:
            value = summary.latency(name, stat)
            if value is not None:
                out[f"{name}_{stat}_ms"] = (float(value), bounds.get(stat))
    for rate in RATES:
        value = (summary.goodput.given("sessions_per_s") if rate == "goodput_sessions_per_s"
                 else summary.throughput.given(rate))
        if isinstance(value, int | float):
            out[rate] = (float(value), block.throughput.get(rate))
    return out


def combine(given: Sequence[Summary | dict[str, Any]]) -> dict[str, Any]:
    """The combined view of the repetitions' summaries (module doc)."""
    summaries = [Summary.of(s) for s in given]
    per = [figures(s) for s in summaries]
    names = [n for n in per[0] if all(n in p for p in per)] if per else []
    out: dict[str, Any] = {}
    for name in names:
        values = [p[name][0] for p in per]
        bounds = [p[name][1] for p in per]
        nums = [v for v in values if v is not None]
        halves = [(b[1] - b[0]) / 2 for b in bounds if b and all(math.isfinite(x) for x in b)]
        known = [b for b in bounds if b]
        unstable = len(known) >= 2 and max(b[0] for b in known) > min(b[1] for b in known)
        out[name] = {
            "values": values, "intervals": bounds,
            "mean": statistics.fmean(nums) if nums else None,
            "between_run_sd": statistics.stdev(nums) if len(nums) >= 2 else None,
            "within_run_half_width": statistics.fmean(halves) if halves else None,
            "unstable": unstable}
    return {"schema": "agentic-bench/repeat", "version": 1, "runs": len(summaries),
            "results": [s.given("result") for s in summaries],
            "unstable": [n for n, f in out.items() if f["unstable"]], "figures": out}


def render(combined: dict[str, Any]) -> str:
    """repeat.txt: one line per figure."""
    lines = [f"{combined['runs']} runs of one configuration: results "
             + ", ".join(str(r) for r in combined["results"]),
             f"{'figure':<28}{'mean':>12}{'between-run sd':>16}{'within ±':>12}  runs"]
    for name, f in combined["figures"].items():
        def num(x: Any) -> str:
            return "-" if x is None else f"{x:,.2f}"

        lines.append(f"{name:<28}{num(f['mean']):>12}{num(f['between_run_sd']):>16}"
                     f"{num(f['within_run_half_width']):>12}  "
                     + " ".join(num(v) for v in f["values"])
                     + ("   UNSTABLE: the runs' intervals do not overlap" if f["unstable"]
                        else ""))
    if combined["unstable"]:
        lines.append(f"{len(combined['unstable'])} figure(s) unstable: the runs differ beyond "
                     "their own intervals; read one run's interval as too narrow for them")
    return "\n".join(lines) + "\n"


def run_repeats(workload: Workload, options: CommonOptions,
                command: str | None) -> dict[str, Any]:
    """Run ``--repeat N`` times into ``rep-1`` … ``rep-N`` of one folder; write and return the
    combined view (``interrupted`` when Ctrl-C stopped the repetitions)."""
    n = options.repeat
    base = options.out or default_out(f"{workload.name}-repeat")
    base.mkdir(parents=True, exist_ok=True)
    write_run_config(base, command or workload.name, public_options(options), sweep_folder=True)
    summaries: list[dict[str, Any]] = []
    with PointRunner(workload, options, command) as runner:
        for k in range(1, n + 1):
            if runner.stopped:
                break
            folder = base / f"rep-{k}"
            point = options.model_copy(update={"out": folder, "resume": None, "repeat": 1})
            summary = runner.run_point(point, folder, f"repeat {k}/{n}")
            if summary is not None:
                summaries.append(summary)
    combined = combine(summaries) if summaries else {"runs": 0, "figures": {}, "results": [],
                                                     "unstable": []}
    if runner.stopped:
        combined["interrupted"] = {"after_run": runner.started, "of": n,
                                   "summary_written": runner.cut is None
                                   or bool(runner.cut.get("summary")),
                                   "note": f"repeat interrupted after run {runner.started} "
                                           f"of {n}; {base}/{REPEAT_FILE} has the runs done"}
    combined["out_dir"] = str(base)
    (base / REPEAT_FILE).write_text(json.dumps(combined, indent=2) + "\n", encoding="utf-8")
    if combined["figures"]:
        (base / "repeat.txt").write_text(render(combined), encoding="utf-8")
    return combined


__all__ = ["REPEAT_FILE", "combine", "figures", "render", "run_repeats"]
