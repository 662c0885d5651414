"""``agentic-bench validate FILE``: report every problem in a trace with file:line:field."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    parser = add_options_command(
        sub, "validate",
        "check a trace file and report every problem")
    parser.set_defaults(func=main)


def _foreign(path: Path) -> bool | None:
    """Validate a file in a known foreign format with its importer: True when it is fine,
    False when it has a problem (printed), None when it is not a foreign format."""
    from agentic_bench.errors import TraceError
    from agentic_bench.trace.importers import detect_format, import_file

    fmt = detect_format(path)
    if fmt is None or fmt == "native":
        return None
    if fmt == "weka":
        return _weka(path)
    try:
        if fmt == "mlcommons-agentic":
            from agentic_bench.trace.mlcommons_agentic import load_conversations

            conversations = load_conversations(path)
            rows = sum(len(c.rows) for c in conversations)
            print(f"{path}: ok as MLCommons agentic JSONL (MLPerf Edge Agentic performance "
                  f"data): {len(conversations)} conversation(s), {rows} client row(s) = "
                  f"requests; run it with `agentic-bench run agentic-edge --perf-trace "
                  f"{path}` or replay it with --format {fmt}")
        else:
            sessions = sum(1 for _ in import_file(fmt, path))
            print(f"{path}: ok as {fmt} (imported on the fly with --format {fmt}): "
                  f"{sessions} session(s)")
    except TraceError as exc:
        print(f"{exc}", file=sys.stderr)
        print(f"{path}: not a valid {fmt} file", file=sys.stderr)
        return False
    return True


def _weka(path: Path) -> bool:
    """A Weka trace, directory or corpus: every problem of every trace, or what it holds."""
    from agentic_bench.trace.weka import scan

    report = scan(path)
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if report.problems:
        print(f"{path}: {len(report.problems)} problem(s); not a valid Weka trace set",
              file=sys.stderr)
        return False
    print(f"{path}: ok as Weka traces: {len(report.spots)} trace(s), {report.rows} "
          f"request(s), {report.subagents} subagent(s); replay it with `agentic-bench replay "
          f"{path} --endpoint URL` (docs/agentx.md)")
    return True


def main(namespace: argparse.Namespace) -> int:
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import ValidateOptions
    from agentic_bench.trace.importers import folder_problem
    from agentic_bench.trace.jsonl import validate_file

    args = parse_command(ValidateOptions, namespace.rest, "validate")
    bad = False
    for path in args.files:
        unreadable = folder_problem(path)
        if unreadable is not None:
            print(unreadable, file=sys.stderr)
            bad = True
            continue
        foreign = _foreign(path)
        if foreign is not None:
            bad = bad or not foreign
            continue
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
