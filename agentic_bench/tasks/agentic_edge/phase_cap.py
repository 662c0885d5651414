"""The performance phase's duration cap (#43 Edge item 2).

MLPerf's Edge Agentic reference bounds its performance phase at 4 h (mlcommons/endpoints
ea332753): ``examples/11_Edge_Agentic_Example/online_edge_full_run.yaml`` 92-97 sets
``max_duration_ms: 14400000`` ("safety cap (4 h)"), the ruleset's own value for the model
(``config/rulesets/mlcommons/rules.py`` 321-323, ``max_duration_ms_valid`` 4 h; a user value
wins, 195-197; 0 means none, ``config/runtime_settings.py`` 191-194). What the cap does:

* the timer is armed as the performance phase starts and only for it
  (``commands/benchmark/execute.py`` 696-727, 918-926): the accuracy phase after it is never
  cut;
* at the cap ``session.stop_current_phase()`` (execute.py 906-916, ``load_generator/session.py``
  395-413) cancels the issuing strategy and skips the drain (527-550): the request in flight
  keeps its ISSUED event and gets no COMPLETE in the phase, and every later turn is neither
  issued nor registered as skipped (the phase's stop check, session.py 238-239, 325-326,
  705-718);
* so the inline scorer counts the in-flight turn as issued, expected and missing, scored 0
  (``evaluation/scoring.py`` 664-736: a scorable issued turn without a completed output), the
  turns never issued count nowhere, and the compliance check's ``no_dropped_turns``
  (``compliance/checker.py`` 246-270) fails the run.

Here the cap is :class:`PhaseCap`: started with the phase's first conversation; a conversation
issues no row once it is reached, and the request in flight when it comes is cancelled and
written as an ``inline_score`` record that is issued and not answered (reason
:data:`CAP_IN_FLIGHT`): missing, scored 0, shown in ``summary.json`` →
``accuracy.inline.capped_turns``. One difference, listed in every run's notes: the reference
leaves that request running (a late reply is dropped from the phase), ours cancels it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from time import perf_counter_ns
from typing import TypeVar

# online_edge_full_run.yaml 95-97 and rules.py 323: 4 h
PERF_MAX_DURATION_S = 14400.0
CAP_IN_FLIGHT = "in flight at the performance phase's duration cap"

T = TypeVar("T")


@dataclass
class PhaseCap:
    """The cap of one performance phase: ``limit_s`` (None or 0: none), from the moment
    :meth:`start` is first called, on ``clock`` (ns)."""

    limit_s: float | None = PERF_MAX_DURATION_S
    clock: Callable[[], int] = perf_counter_ns
    start_ns: int | None = None

    def start(self) -> None:
        """The phase begins (only the first call counts)."""
        if self.start_ns is None:
            self.start_ns = self.clock()

    def remaining_s(self) -> float | None:
        """Seconds left before the cap, None when there is no cap or the phase has not begun."""
        if not self.limit_s or self.start_ns is None:
            return None
        return self.limit_s - (self.clock() - self.start_ns) / 1e9

    def reached(self) -> bool:
        left = self.remaining_s()
        return left is not None and left <= 0


async def until_cap(cap: PhaseCap, call: Awaitable[T]) -> T | None:
    """``call``'s result, or None when the cap came first (the call is then cancelled)."""
    task = asyncio.ensure_future(call)
    left = cap.remaining_s()
    if left is None:
        return await task
    try:
        done, _ = await asyncio.wait({task}, timeout=max(left, 0.0))
    except asyncio.CancelledError:
        task.cancel()
        raise
    if task in done:
        return task.result()
    task.cancel()
    await asyncio.wait({task})
    return None if task.cancelled() else task.result()


__all__ = ["CAP_IN_FLIGHT", "PERF_MAX_DURATION_S", "PhaseCap", "until_cap"]
