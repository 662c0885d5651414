"""The clock of a lane run: waits that the measured phase's end interrupts, and the idle-gap
cap.

Idle-gap cap (AIPerf 0.13 ``timing/strategies/agentic_replay.py``
``enforce_system_idle_cap`` with ``common/loop_scheduler.py`` ``cap_pending_delay``; the
AgentX scenario sets 10 s): when no request is in flight anywhere in the run, the run is idle;
once it has been idle for the cap, or would be by the time the earliest pending wait ends,
every pending wait is moved earlier by the same amount so the earliest ends when the cap is
reached. Relative spacing between pending waits is kept; a single trace's gaps are changed
only when the whole run would sit idle. ``jumps`` and ``skipped_s`` say how often and how much.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from time import perf_counter_ns


async def sleep_until(deadline_ns: int) -> None:
    """Wait until ``perf_counter_ns()`` reaches ``deadline_ns`` (at once when it has)."""
    delay = (deadline_ns - perf_counter_ns()) / 1e9
    if delay > 0:
        await asyncio.sleep(delay)


class LaneClock:
    """The clock of one lane run: interruptible waits and the idle-gap cap (module doc)."""

    def __init__(self, idle_cap_s: float | None = None) -> None:
        self.cap_ns = None if idle_cap_s is None else int(idle_cap_s * 1e9)
        self.in_flight = 0
        self.shift_ns = 0  # total moved so far
        self.jumps = 0
        self._idle_since: int | None = perf_counter_ns()
        self._sleepers: dict[int, tuple[int, int]] = {}  # id → (deadline, shift at start)
        self._ids = itertools.count()
        self._wake = asyncio.Event()
        self._check_pending = False

    @property
    def skipped_s(self) -> float:
        return self.shift_ns / 1e9

    def _actual(self, deadline: int, shift_at: int) -> int:
        return deadline - (self.shift_ns - shift_at)

    async def sleep_until(self, deadline_ns: int, stop: asyncio.Event | None) -> bool:
        """Wait until ``deadline_ns`` (moved earlier by any idle jump meanwhile); True when
        ``stop`` was set first."""
        token = next(self._ids)
        self._sleepers[token] = (deadline_ns, self.shift_ns)
        self._schedule_check()
        try:
            while True:
                if stop is not None and stop.is_set():
                    return True
                now = perf_counter_ns()
                actual = self._actual(*self._sleepers[token])
                if now >= actual:
                    return False
                wake = self._wake
                waits: list[asyncio.Future[object]] = [asyncio.ensure_future(wake.wait())]
                if stop is not None:
                    waits.append(asyncio.ensure_future(stop.wait()))
                try:
                    await asyncio.wait(waits, timeout=(actual - now) / 1e9,
                                       return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for w in waits:
                        w.cancel()
        finally:
            del self._sleepers[token]

    def request_started(self) -> None:
        self.in_flight += 1
        self._idle_since = None

    def request_done(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            self._idle_since = perf_counter_ns()
            self._schedule_check()

    def _schedule_check(self) -> None:
        """Look at the pending waits once every task ready now has registered its own (a
        lane's waits all start in the same turn of the loop)."""
        if self.cap_ns is None or self._check_pending:
            return
        self._check_pending = True
        asyncio.get_running_loop().call_soon(self._check)

    def _check(self) -> None:
        self._check_pending = False
        self._cap(perf_counter_ns())

    def _cap(self, now: int) -> None:
        if self.cap_ns is None or self.in_flight or not self._sleepers:
            return
        idle_since = self._idle_since if self._idle_since is not None else now
        budget = max(0, self.cap_ns - (now - idle_since))
        earliest = min(self._actual(d, s) for d, s in self._sleepers.values())
        jump = earliest - now - budget
        if jump <= 0:
            return
        self.shift_ns += jump
        self.jumps += 1
        wake, self._wake = self._wake, asyncio.Event()
        wake.set()

    def stats(self) -> dict[str, float | int | None]:
        return {"idle_gap_cap_s": None if self.cap_ns is None else self.cap_ns / 1e9,
                "jumps": self.jumps, "skipped_s": self.skipped_s}


async def sleep_or_stop(seconds: float, stop: asyncio.Event) -> bool:
    """Sleep ``seconds`` unless ``stop`` is set first (True: stopped)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), max(0.0, seconds))
        return True
    return stop.is_set()


__all__ = ["LaneClock", "sleep_or_stop"]
