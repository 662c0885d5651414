"""``agentic-bench compare DIR_A DIR_B …``: headline metrics side by side (ratios against the
first run) on the terminal, and compare.html with overlaid latency CDFs. A DIR may be a
``--repeat`` folder: its repetitions are shown one by one (``DIR/rep-K``) and judged together,
across runs (reporting/ab_compare.py)."""

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
    from agentic_bench.reporting.ab_compare import load_side, side_run_names
    from agentic_bench.reporting.compare import (
        CompareRun,
        render_compare_text,
        render_option_differences,
        run_names,
        run_options,
        write_compare_html,
    )
    from agentic_bench.reporting.regenerate import load_run
    from agentic_bench.run.repeat import REPEAT_FILE

    args = parse_command(CompareOptions, namespace.rest, "compare")
    judged = _judge_setup(args)  # bad metric names or threshold: exit 2 before reading runs
    sides = [load_side(d, REPEAT_FILE) for d in args.run_dirs]
    side_names = run_names([s.path for s in sides])
    loaded = [load_run(d, regenerate=False) for s in sides for d in s.runs]
    names = side_run_names(side_names, sides)
    for name, run in zip(names, loaded, strict=True):
        for note in run.notes:
            print(f"note: {name}: {note}", file=sys.stderr)
    print(render_compare_text(names, [r.summary for r in loaded]), end="")
    print(render_option_differences(names, [run_options(r.records) for r in loaded]), end="")
    verdicts = _verdicts(args, judged, (side_names, sides), names, loaded)
    out = args.out
    if out is None:
        import datetime as dt

        out = Path("results") / f"compare-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    path = write_compare_html(out, [CompareRun(n, r.summary, r.records)
                                         for n, r in zip(names, loaded, strict=True)],
                              verdicts=(side_names, verdicts))
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


def _verdicts(args: Any, judged: tuple[tuple[str, ...], float],
              sides: tuple[list[str], list[Any]], names: list[str],
              loaded: list[Any]) -> list[list[dict[str, Any]]]:
    """Every side's A/B verdicts against the first (none for one side); runs whose work
    differs — any repetition of any side against the first run — are refused (UsageError)
    unless --allow-different-workloads."""
    from agentic_bench.errors import UsageError
    from agentic_bench.reporting.ab_compare import (
        render_verdicts,
        side_verdicts,
        workload_differences,
    )

    side_names, side_list = sides
    if len(side_list) < 2 or not (args.metric or args.gate):  # verdicts when asked for
        return []
    differ = workload_differences(names, [r.path for r in loaded])
    if differ and not args.allow_different_workloads:
        raise UsageError("the runs did different work, so a verdict would not compare serving: "
                         + "; ".join(differ) + " (--allow-different-workloads to judge anyway)")
    metrics, threshold = judged
    summaries, at = [], 0
    for side in side_list:
        summaries.append([r.summary for r in loaded[at:at + len(side.runs)]])
        at += len(side.runs)
    rows = side_verdicts(side_list, summaries, metrics, threshold)
    print(render_verdicts(side_names, rows), end="")
    return rows
