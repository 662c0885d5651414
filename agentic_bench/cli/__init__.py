"""Command-line interface (argument parsing only): ``agentic-bench COMMAND ...``.

:func:`build_parser` builds the top-level parser with one sub-command per command, each
importing its work lazily so ``--help`` stays fast; :func:`main` parses ``argv``, runs the
command and returns its exit code (0 ok, 2 usage error, 3 an INVALID run).
"""

from agentic_bench.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
