"""``agentic-bench compare DIR_A DIR_B …``: headline metrics side by side (ratios against the
first run) on the terminal, and compare.html with overlaid latency CDFs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


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
    loaded = [load_run(d, regenerate=False) for d in args.run_dirs]
    names = run_names([r.path for r in loaded])
    for name, run in zip(names, loaded, strict=True):
        for note in run.notes:
            print(f"note: {name}: {note}", file=sys.stderr)
    print(render_compare_text(names, [r.summary for r in loaded]), end="")
    print(render_option_differences(names, [run_options(r.records) for r in loaded]), end="")
    out = args.out
    if out is None:
        import datetime as dt

        out = Path("results") / f"compare-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    path = write_compare_html(out, [CompareRun(n, r.summary, r.records)
                                         for n, r in zip(names, loaded, strict=True)])
    print(f"wrote {path}")
    return 0
