"""``agentic-bench export RUN_DIR --to FORMAT --out PATH``: a finished run (or sweep) in another
tool's result format (the exporters: :mod:`agentic_bench.export`)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    parser = add_options_command(
        sub, "export",
        "write a run or sweep in another tool's result format (llm-d Benchmark Report, "
        "mlperf-viz, InferenceX AgentX, OpenTelemetry)")
    parser.set_defaults(func=main)


def main(namespace: argparse.Namespace) -> int:
    from agentic_bench.cli.export_options import ExportOptions
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.errors import UsageError
    from agentic_bench.export import exporter

    args = parse_command(ExportOptions, namespace.rest, "export")
    if not args.run_dir.exists():
        raise UsageError(f"{args.run_dir}: no such run folder")
    written = exporter(args.to)(args.run_dir, args.out)
    shown = written if len(written) <= 6 else [*written[:5], f"... {len(written) - 5} more"]
    print(f"{args.run_dir} -> {args.to}: {len(written)} file(s)")
    for path in shown:
        print(f"  {path}")
    return 0


__all__ = ["main", "register"]
