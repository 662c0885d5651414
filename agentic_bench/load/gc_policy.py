"""The garbage collector during a measured run: no full collection over what is already kept.

A run used to keep its records in memory, so the heap grew with the run, and Python's
generation-2 collection walked all of it while streams were in flight: 16–17 ms pauses at 1,708
requests and 25–26 ms at 6,828, measured
(``benchmarks/agentic_replay_precision.py --gc-log --python-gc``, docs/performance.md), longer
as the run grows. Every stream whose first token arrives during the pause
carries it into its TTFT. Since #33 a run keeps a tally instead (metrics/tally.py: counts and
value→count maps, mostly arrays and dicts of integers that the collector does not track), and
only a task that scores whole records (a small accuracy run) still holds them; the policy
stays, as the trace, the transport and whatever a session leaves behind need no rescanning.

The policy: freeze before the first request (the trace, the transport, the imported modules),
and freeze again each time a session ends (:func:`settle`), so finished sessions' records are
never scanned again. ``gc.freeze`` is O(1) (a list splice), so the policy costs nothing on the
measured path. Young objects are still collected by the cheap generation-0/1 passes; a
reference cycle that became garbage just before a freeze waits for the end of the run, where
everything is unfrozen and left to the collector's next full pass (no forced collection: a
process that runs many benchmarks does not pay one per run). :data:`ENABLED` turns the policy
off (the benchmark's ``--python-gc``).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

ENABLED = True
_active = False


@contextlib.contextmanager
def measured_phase() -> Iterator[None]:
    """Freeze what exists now; unfreeze when the block ends."""
    global _active
    if not ENABLED or _active:  # nested runs (a sweep point) share the outer phase
        yield
        return
    gc.freeze()
    _active = True
    try:
        yield
    finally:
        _active = False
        gc.unfreeze()


def settle() -> None:
    """A session ended: freeze what survived so later full collections skip it."""
    if _active:
        gc.freeze()
