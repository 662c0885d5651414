"""Command-line interface (argument parsing only)."""

from agentic_bench.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
