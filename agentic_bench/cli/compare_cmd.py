"""``agentic-bench compare DIR_A DIR_B …``: headline metrics side by side (ratios against the
first run) on the terminal, and compare.html with overlaid latency CDFs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    parser = add_options_command(
        sub, "compare",
        "compare runs side by side (terminal table + compare.html)")
    parser.set_defaults(func=main)


def main(namespace: argparse.Namespace) -> int:
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import CompareOptions
    from agentic_bench.reporting.compare import (
        CompareRun,
        render_compare_text,
        render_option_differences,
        run_names,
        run_options,
        write_compare_html,
    )
    from agentic_bench.reporting.regenerate import load_run

    args = parse_command(CompareOptions, namespace.rest, "compare")
    judged = _judge_setup(args)  # bad metric names or threshold: exit 2 before reading runs
    loaded = [load_run(d, regenerate=False) for d in args.run_dirs]
    names = run_names([r.path for r in loaded])
    for name, run in zip(names, loaded, strict=True):
        for note in run.notes:
            print(f"note: {name}: {note}", file=sys.stderr)
    print(render_compare_text(names, [r.summary for r in loaded]), end="")
    print(render_option_differences(names, [run_options(r.records) for r in loaded]), end="")
    verdicts = _verdicts(args, judged, names, loaded)
    out = args.out
    if out is None:
        import datetime as dt

        out = Path("results") / f"compare-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    path = write_compare_html(out, [CompareRun(n, r.summary, r.records)
                                         for n, r in zip(names, loaded, strict=True)],
                              verdicts=(names, verdicts))
    print(f"wrote {path}")
    if args.gate:
        from agentic_bench.reporting.ab_compare import gate_code

        code = gate_code(verdicts, args.inconclusive == "fail")
        print(f"gate: {('pass', 'WORSE', 'INCONCLUSIVE')[(0, 3, 4).index(code)]} (exit {code})")
        return code
    return 0


def _judge_setup(args: Any) -> tuple[tuple[str, ...], float]:
    """The metrics and threshold asked, checked (UsageError, exit 2, for a bad one)."""
    from agentic_bench.errors import UsageError
    from agentic_bench.metrics.ab_verdict import DEFAULT_METRICS, MetricRef, parse_threshold

    metrics = tuple(args.metric) or DEFAULT_METRICS
    try:
        for name in metrics:
            MetricRef.parse(name)
        threshold = parse_threshold(args.threshold)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.gate and len(args.run_dirs) < 2:
        raise UsageError("--gate needs two runs at least: the baseline first")
    return metrics, threshold


def _verdicts(args: Any, judged: tuple[tuple[str, ...], float], names: list[str],
              loaded: list[Any]) -> list[list[dict[str, Any]]]:
    """Every run's A/B verdicts against the first (none for one run); runs whose work differs
    are refused (UsageError) unless --allow-different-workloads."""
    from agentic_bench.errors import UsageError
    from agentic_bench.reporting.ab_compare import (
        ab_verdicts,
        load_ab_run,
        render_verdicts,
        workload_differences,
    )

    if len(loaded) < 2 or not (args.metric or args.gate):  # verdicts when asked for
        return []
    differ = workload_differences(names, [r.path for r in loaded])
    if differ and not args.allow_different_workloads:
        raise UsageError("the runs did different work, so a verdict would not compare serving: "
                         + "; ".join(differ) + " (--allow-different-workloads to judge anyway)")
    metrics, threshold = judged
    runs = [load_ab_run(r.path, r.summary) for r in loaded]
    rows = ab_verdicts(runs, metrics, threshold)
    print(render_verdicts(names, rows), end="")
    return rows
