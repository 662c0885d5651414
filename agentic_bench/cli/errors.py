"""Map exceptions to exit codes and messages, at one place."""

from __future__ import annotations

import argparse
import errno
import sys
import traceback
from collections.abc import Callable

from agentic_bench.errors import UsageError

EXIT_VALID, EXIT_INTERNAL, EXIT_USAGE, EXIT_INVALID = 0, 1, 2, 3
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


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
    except OSError as exc:
        if exc.errno not in DISK_FULL:
            traceback.print_exc()
            print("internal error (a bug in agentic-bench); please report it", file=sys.stderr)
            return EXIT_INTERNAL
        # the disk, not a bug: one line, no traceback (what was written is kept)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: cannot write {where}{exc.strerror or exc}; files written before this "
              "are kept", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception:
        traceback.print_exc()
        print("internal error (a bug in agentic-bench); please report it", file=sys.stderr)
        return EXIT_INTERNAL
