"""``agentic-bench compare DIR_A DIR_B …``: headline metrics side by side (ratios against the
first run) on the terminal, and compare.html with overlaid latency CDFs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "compare", help="compare runs side by side (terminal table + compare.html)",
        description="Print headline metrics of each run side by side with ratios against the "
        "first run, and write compare.html (overlaid TTFT/TPOT/turn-latency CDFs). Each DIR "
        "is a run's output directory; its summary.json is used (rebuilt from records.jsonl "
        "when absent). See docs/report.md.")
    p.add_argument("run_dirs", type=Path, nargs="+", metavar="DIR",
                   help="run output directories; the first is the baseline")
    p.add_argument("--out", type=Path, default=None,
                   help="directory for compare.html (default: results/compare-<time>/, as a "
                   "run's own outputs; never the current directory)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.reporting.compare import (
        CompareRun,
        render_compare_text,
        render_option_differences,
        run_names,
        run_options,
        write_compare_html,
    )
    from agentic_bench.reporting.regenerate import load_run

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
