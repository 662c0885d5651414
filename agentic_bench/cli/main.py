"""``agentic-bench`` entry point: argument parsing only; commands import their work lazily.

Each command module exposes ``register(subparsers)`` which adds its parser and sets
``func`` to a callable taking the parsed namespace and returning an exit code.
Exit codes: 0 VALID/ok, 3 INVALID, 2 bad input or usage, 1 internal error.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from agentic_bench import __version__

COMMAND_MODULES = (
    "agentic_bench.cli.replay_cmd",
    "agentic_bench.cli.run_cmd",
    "agentic_bench.cli.validate_cmd",
    "agentic_bench.cli.sim_cmd",
    "agentic_bench.cli.serve_cmd",
    "agentic_bench.cli.list_cmd",
    "agentic_bench.cli.report_cmd",
    "agentic_bench.cli.compare_cmd",
    "agentic_bench.cli.import_cmd",
    "agentic_bench.cli.export_cmd",
    "agentic_bench.cli.traces_cmd",
    "agentic_bench.cli.record_cmd",
    "agentic_bench.cli.new_task_cmd",
    "agentic_bench.cli.rag_cmd",
    "agentic_bench.cli.config_cmd",
    "agentic_bench.cli.submission_cmd",
)

EPILOG = """\
examples:
  agentic-bench validate traces/sample.jsonl
  agentic-bench sim --port 8900 --ttft-ms 100 --itl-ms 10 &
  agentic-bench replay traces/sample.jsonl --endpoint http://127.0.0.1:8900/v1 \\
      --scenario server --rate 5 --duration 30
  agentic-bench run agentic-edge --quick            # embedded llama.cpp endpoint by default
  agentic-bench run --config configs/rag-e2e-quick.yaml   # options kept in a file
  agentic-bench new-task my-qa                      # scaffold a benchmark plugin

exit codes: 0 VALID, 3 INVALID, 2 bad input or usage, 1 internal error
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``agentic-bench`` parser: one sub-command per command, each importing its work lazily."""
    parser = argparse.ArgumentParser(
        prog="agentic-bench",
        description="Benchmark agent serving stacks: replay multi-turn agent and RAG workloads "
        "under MLPerf-style load scenarios; latency and accuracy in one run.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"agentic-bench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names (default: ``sys.argv[1:]``); returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from agentic_bench.cli.errors import run_command

    return run_command(args.func, args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
