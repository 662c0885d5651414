"""``agentic-bench validate FILE``: report every problem in a trace with file:line:field."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("validate", help="check a trace file and report every problem",
                       description="Validate a trace (JSONL, one session per line). Prints "
                       "file:line: field: problem for each problem; exit 2 if any.")
    p.add_argument("files", nargs="+", type=Path, help="trace files")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.trace.jsonl import validate_file

    bad = False
    for path in args.files:
        report = validate_file(path)
        for problem in report.problems:
            print(problem, file=sys.stderr)
        if report.problems:
            bad = True
            print(f"{path}: {len(report.problems)} problem(s) in {report.lines} line(s)",
                  file=sys.stderr)
        else:
            print(f"{path}: ok, {report.sessions} session(s)")
    return 2 if bad else 0
