"""Map exceptions to exit codes and messages, at one place."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable

from agentic_bench.errors import UsageError

EXIT_VALID, EXIT_INTERNAL, EXIT_USAGE, EXIT_INVALID = 0, 1, 2, 3


def run_command(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return func(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        return EXIT_VALID
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception:
        traceback.print_exc()
        print("internal error (a bug in agentic-bench); please report it", file=sys.stderr)
        return EXIT_INTERNAL
