"""What a command does with its validated options: run once, or once per sweep or search
point, print the result and return the exit code (0 VALID, 3 INVALID). A sweep or search that
an interrupt stopped (run/sweep.py) says so in one line, and exits as its interrupted point
would alone: 3 (an interrupted run's INVALID), or 130 (Ctrl-C's, cli/errors.py) when the
point wrote no summary or the signal came between points.

The commands (``run``, ``replay``) parse and validate their options once and hand them here;
each sweep or search point runs under its own copy of them
(:meth:`~agentic_bench.options.common.CommonOptions.at_point`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentic_bench.contracts import Workload
    from agentic_bench.options.common import CommonOptions


def execute(workload: Workload, options: CommonOptions, command: str | None = None) -> int:
    """Run once, or once per sweep or search point; print the result; return the exit code.
    ``command``: the benchmark's name or ``replay`` (what ``config.yaml`` and the rerun line
    name). What only the workload or the network can refuse is refused first."""
    from agentic_bench.run.plan import check_plan

    check_plan(workload, options)
    search = options.search_spec
    if search is not None:
        return _search(workload, options, command)
    if options.repeat > 1:
        return _repeat(workload, options, command)
    if options.sweep is not None:
        from agentic_bench.run.sweep import run_sweep

        key, values = options.sweep.key, options.sweep.values
        sweep = run_sweep(workload, options, options.sweep, command)
        if sweep.get("interrupted"):
            return interrupted(sweep["interrupted"])
        if not options.quiet:
            knee = sweep["knee"]
            print(f"sweep: {len(values)} points, knee "
                  f"{'at ' + key + '=' + format(knee[key], 'g') if knee else 'not found'}; "
                  f"{sweep['out_dir']}/sweep.html")
        return 0 if all(p["result"] == "VALID" for p in sweep["points"]) else 3
    from agentic_bench.run.benchmark import run_workload

    return finish(run_workload(workload, options, command), options.quiet)


def _repeat(workload: Workload, options: CommonOptions, command: str | None) -> int:
    """``--repeat N``: N runs and their combined view (run/repeat.py); 0 when every run is
    VALID, 3 otherwise."""
    from agentic_bench.run.repeat import render, run_repeats

    combined = run_repeats(workload, options, command)
    if combined.get("interrupted"):
        return interrupted(combined["interrupted"])
    if not options.quiet and combined["figures"]:
        print(render(combined), end="")
        print(f"repeat: {combined['runs']} runs; {combined['out_dir']}/repeat.json")
    return 0 if all(r == "VALID" for r in combined["results"]) else 3


def _search(workload: Workload, options: CommonOptions, command: str | None) -> int:
    from agentic_bench.run.search import run_search

    spec = options.search_spec
    assert spec is not None
    result = run_search(workload, options, spec, command)
    if result.get("interrupted"):
        return interrupted(result["interrupted"])
    if not options.quiet:
        cap = result["capacity"]
        print(f"capacity: {result['key']}={'-' if cap is None else format(cap, 'g')} "
              f"({result['capacity_note']}; {len(result['points'])} runs); "
              f"{result['out_dir']}/search.json")
    return 0 if result["capacity"] is not None else 3


def interrupted(stop: dict[str, Any]) -> int:
    """Say where an interrupt stopped a sweep or search (on stderr, even with ``--quiet``, as
    the interrupt's own lines); the exit code (module doc)."""
    import sys

    print(stop["note"], file=sys.stderr, flush=True)
    return 3 if stop["summary_written"] else 130


def finish(summary: dict[str, Any], quiet: bool) -> int:
    """Print a run's summary.txt and where its outputs are (unless ``quiet``); return the exit
    code: 0 when the run is VALID, 3 otherwise."""
    from agentic_bench.metrics.summary_model import Summary
    from agentic_bench.reporting.summary_text import render_text

    typed = Summary.of(summary)
    if not quiet:
        print(render_text(typed), end="")
        print(f"outputs: {typed.out_dir}/")
    return 0 if typed.valid else 3
