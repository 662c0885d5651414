"""The process's open-file limit against what a run's streams need.

Each stream holds a connection (a socket: a file descriptor), and a run writes its records,
scrapes and logs besides; the usual soft limit of 1,024 descriptors stops a run of a few
thousand streams with "Too many open files" on its first requests (an early stop that read
"all_failed" at 99.7 % success). Before the first request the soft limit is raised as far as
the hard limit allows (what ``ulimit -n`` would do; unprivileged), and a run that would still
not fit is told so in one line — how many it needs, how to raise the hard limit.
"""

from __future__ import annotations

import sys

SPARE = 64  # records, scrapes, logs, the event loop's own descriptors
PER_STREAM = 2  # a connection, and room for one being replaced


def needed(streams: int) -> int:
    """Descriptors a run of ``streams`` streams may hold at once."""
    return streams * PER_STREAM + SPARE


def ensure_open_files(streams: int) -> str | None:
    """Raise the soft open-file limit toward what ``streams`` need (up to the hard limit);
    a warning line when even the hard limit is too low (None when it fits, or off Unix)."""
    try:
        import resource
    except ImportError:  # not Unix: nothing to raise
        return None
    want = needed(streams)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        target = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < want:
        return (f"warning: {streams} streams need about {want} open files, the limit is {soft} "
                f"(hard {hard}): requests may fail with 'Too many open files'; raise it (ulimit "
                "-Hn, /etc/security/limits.conf, or the container's nofile setting)")
    return None


def warn_if_short(streams: int) -> None:
    """:func:`ensure_open_files`, its warning (if any) printed on stderr."""
    warning = ensure_open_files(streams)
    if warning is not None:
        print(warning, file=sys.stderr, flush=True)


__all__ = ["ensure_open_files", "needed", "warn_if_short"]
