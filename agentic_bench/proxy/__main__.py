"""``python -m agentic_bench.proxy ...`` = ``agentic-bench record ...`` (same options)."""

from __future__ import annotations

import argparse
import sys

from agentic_bench.cli import record_cmd
from agentic_bench.cli.errors import run_command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentic_bench.proxy")
    sub = parser.add_subparsers(dest="command")
    record_cmd.register(sub)
    args = parser.parse_args(["record", *(sys.argv[1:] if argv is None else argv)])
    return run_command(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
