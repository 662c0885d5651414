"""What a command does with its resolved config: run once, or once per sweep or search point,
print the result and return the exit code (0 VALID, 3 INVALID).

The commands (``run``, ``replay``) build the config from their options
(:func:`agentic_bench.cli.options.run_config`) and hand it here with ``build``, the same
translation for each sweep or search point's options
(:meth:`~agentic_bench.options.common.CommonOptions.at_point`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentic_bench.contracts import Workload
    from agentic_bench.options.common import CommonOptions
    from agentic_bench.options.load import SearchSpec
    from agentic_bench.options.run import RunConfig


def execute(workload: Workload, config: RunConfig, args: CommonOptions,
            build: Callable[[CommonOptions], RunConfig]) -> int:
    """Run once, or once per sweep or search point (each point's config built from its own
    options by ``build``, the command's own translation of options into a config); print the
    result; return the exit code."""

    def point(key: str, value: float) -> RunConfig:
        return build(args.at_point(key, value, workload.source.size, workload.trees))

    search = args.search_spec
    if search is not None:
        return _search(workload, config, search, point, args.quiet)
    if args.sweep:
        from agentic_bench.run.sweep import run_sweep

        key, values = args.sweep.key, list(args.sweep.values)
        sweep = run_sweep(workload, config, key, values, point)
        if not args.quiet:
            knee = sweep["knee"]
            print(f"sweep: {len(values)} points, knee "
                  f"{'at ' + key + '=' + format(knee[key], 'g') if knee else 'not found'}; "
                  f"{sweep['out_dir']}/sweep.html")
        return 0 if all(p["result"] == "VALID" for p in sweep["points"]) else 3
    from agentic_bench.run.benchmark import run_workload

    return finish(run_workload(workload, config), args.quiet)


def _search(workload: Workload, config: RunConfig, spec: SearchSpec,
            point: Callable[[str, float], RunConfig], quiet: bool) -> int:
    from agentic_bench.run.search import run_search

    result = run_search(workload, config, spec, point)
    if not quiet:
        cap = result["capacity"]
        print(f"capacity: {result['key']}={'-' if cap is None else format(cap, 'g')} "
              f"({result['capacity_note']}; {len(result['points'])} runs); "
              f"{result['out_dir']}/search.json")
    return 0 if result["capacity"] is not None else 3


def finish(summary: dict[str, Any], quiet: bool) -> int:
    """Print a run's summary.txt and where its outputs are (unless ``quiet``); return the exit
    code: 0 when the run is VALID, 3 otherwise."""
    from agentic_bench.reporting.summary_text import render_text

    if not quiet:
        print(render_text(summary), end="")
        print(f"outputs: {summary.get('out_dir')}/")
    return 0 if summary["result"] == "VALID" else 3
