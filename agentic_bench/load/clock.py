"""The clock of a lane run: waits that the measured phase's end interrupts, and the idle-gap
cap.

Idle-gap cap (AIPerf 0.13 ``timing/strategies/agentic_replay.py``
``enforce_system_idle_cap`` with ``common/loop_scheduler.py`` ``cap_pending_delay``; the
AgentX scenario sets 10 s): when no request is in flight anywhere in the run, the run is idle;
once it has been idle for the cap, or would be by the time the earliest pending wait ends,
every pending wait is moved earlier by the same amount so the earliest ends when the cap is
reached. Relative spacing between pending waits is kept; a single trace's gaps are changed
only when the whole run would sit idle. ``jumps`` and ``skipped_s`` say how often and how much.

Per-tree idle cap (agentx-harness 1.0.12 ``timing/replay_dependencies.py``
``ReplayBarrierCoordinator`` 295-325 with ``common/loop_scheduler.py``
``cap_pending_delay_for_group`` 397-439; the ``agentx`` preset's
``trace_idle_gap_cap_seconds`` 300 s, measured phase only, ``timing/phase/runner.py`` 225-238):
each tree a lane runs in the measured phase waits through its own :class:`TreeClock`. When no
request of the tree (its root or any subagent) is in flight — from the tree's start, and again
each time its last request in flight ends — a watchdog is armed for the cap; a request of the
tree sent meanwhile disarms it. When it fires, every pending wait of that tree (and of no
other) moves earlier by the same amount, so the earliest ends now; a wait that registers while
the tree is still idle past the cap re-arms it at once. The tree's idle time is thus at most the
cap while other trees keep the run busy. ``tree_jumps`` and ``tree_skipped_s`` (summed over the
trees) say how often and how much.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from time import perf_counter_ns
from typing import Any


async def sleep_until(deadline_ns: int) -> None:
    """Wait until ``perf_counter_ns()`` reaches ``deadline_ns`` (at once when it has)."""
    delay = (deadline_ns - perf_counter_ns()) / 1e9
    if delay > 0:
        await asyncio.sleep(delay)


class LaneClock:
    """The clock of one lane run: interruptible waits, the idle-gap cap and the per-tree idle
    cap (module doc)."""

    def __init__(self, idle_cap_s: float | None = None,
                 tree_idle_cap_s: float | None = None) -> None:
        self.cap_ns = None if idle_cap_s is None else int(idle_cap_s * 1e9)
        self.tree_cap_s = tree_idle_cap_s
        self.in_flight = 0
        self.shift_ns = 0  # total moved so far
        self.jumps = 0
        self.tree_jumps = 0  # per-tree cap: how often a tree's waits moved, over every tree
        self.tree_skipped_ns = 0  # and how much in all
        self.trees_capped = 0  # trees whose waits the per-tree cap moved at least once
        self._idle_since: int | None = perf_counter_ns()
        # id → (deadline, shift at start, the tree's clock, its shift at start)
        self._sleepers: dict[int, tuple[int, int, TreeClock | None, int]] = {}
        self._ids = itertools.count()
        self._wake = asyncio.Event()
        self._check_pending = False

    @property
    def skipped_s(self) -> float:
        return self.shift_ns / 1e9

    def tree(self) -> TreeClock:
        """The clock of one tree of the measured phase (its idle watchdog armed now: the
        tree's first wait counts as idle, as AIPerf's ``observe_idle_root``)."""
        return TreeClock(self)

    def _actual(self, deadline: int, shift_at: int, tree: TreeClock | None = None,
                tree_shift_at: int = 0) -> int:
        moved = self.shift_ns - shift_at
        if tree is not None:
            moved += tree.own_shift_ns - tree_shift_at
        return deadline - moved

    async def sleep_until(self, deadline_ns: int, stop: asyncio.Event | None,
                          tree: TreeClock | None = None) -> bool:
        """Wait until ``deadline_ns`` (moved earlier by any idle jump meanwhile, the run's or
        ``tree``'s); True when ``stop`` was set first."""
        token = next(self._ids)
        self._sleepers[token] = (deadline_ns, self.shift_ns, tree,
                                 0 if tree is None else tree.own_shift_ns)
        self._schedule_check()
        if tree is not None:
            tree.sleeping(token)
        try:
            while True:
                if stop is not None and stop.is_set():
                    return True
                now = perf_counter_ns()
                actual = self._actual(*self._sleepers[token])
                if now >= actual:
                    return False
                waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(self._wake.wait())]
                if tree is not None:
                    waits.append(asyncio.ensure_future(tree.wake.wait()))
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
            if tree is not None:
                tree.sleepers.discard(token)

    def earliest(self, tokens: set[int]) -> int | None:
        """The earliest actual deadline among the waits ``tokens`` (None: none pending)."""
        pending = [self._actual(*self._sleepers[t]) for t in tokens if t in self._sleepers]
        return min(pending) if pending else None

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
        earliest = min(self._actual(*entry) for entry in self._sleepers.values())
        jump = earliest - now - budget
        if jump <= 0:
            return
        self.shift_ns += jump
        self.jumps += 1
        wake, self._wake = self._wake, asyncio.Event()
        wake.set()

    def stats(self) -> dict[str, float | int | None]:
        return {"idle_gap_cap_s": None if self.cap_ns is None else self.cap_ns / 1e9,
                "jumps": self.jumps, "skipped_s": self.skipped_s,
                "trace_idle_gap_cap_s": self.tree_cap_s, "tree_jumps": self.tree_jumps,
                "tree_skipped_s": self.tree_skipped_ns / 1e9,
                "trees_idle_capped": self.trees_capped}


class TreeClock:
    """One tree's view of the lane clock (:class:`~agentic_bench.contracts.ReplayClock`): its
    waits and requests go through the lane clock (the run's idle-gap cap), and its own idle
    watchdog moves only its waits (the per-tree cap, module doc)."""

    def __init__(self, lane: LaneClock) -> None:
        self.lane = lane
        self.in_flight = 0
        self.own_shift_ns = 0
        self.jumps = 0
        self.sleepers: set[int] = set()
        self.wake = asyncio.Event()
        self._watchdog: asyncio.TimerHandle | None = None
        self._expired = False  # this idle interval has used its whole cap
        self._arm()

    @property
    def shift_ns(self) -> int:
        """How far this tree's waits have been moved in all: the run's jumps and its own."""
        return self.lane.shift_ns + self.own_shift_ns

    async def sleep_until(self, deadline_ns: int, stop: asyncio.Event | None) -> bool:
        return await self.lane.sleep_until(deadline_ns, stop, self)

    def sleeping(self, token: int) -> None:
        """A wait of this tree began: past an expired idle cap, the watchdog fires at once
        (``ReplayBarrierCoordinator.submit``, replay_dependencies.py 253-261)."""
        self.sleepers.add(token)
        if self.in_flight == 0 and self._expired:
            self._arm()

    def request_started(self) -> None:
        self.lane.request_started()
        self.in_flight += 1
        self._expired = False
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def request_done(self) -> None:
        self.lane.request_done()
        self.in_flight -= 1
        if self.in_flight == 0:
            self._expired = False
            self._arm()

    def _arm(self) -> None:
        cap = self.lane.tree_cap_s
        if cap is None or self._watchdog is not None:
            return
        self._watchdog = asyncio.get_running_loop().call_later(
            0.0 if self._expired else cap, self._fire)

    def _fire(self) -> None:
        """The tree sat idle for the cap: its pending waits move so the earliest ends now."""
        self._watchdog = None
        if self.in_flight:
            return
        self._expired = True
        earliest = self.lane.earliest(self.sleepers)
        jump = 0 if earliest is None else earliest - perf_counter_ns()
        if jump <= 0:
            return
        self.own_shift_ns += jump
        self.jumps += 1
        lane = self.lane
        lane.tree_jumps += 1
        lane.tree_skipped_ns += jump
        lane.trees_capped += self.jumps == 1
        wake, self.wake = self.wake, asyncio.Event()
        wake.set()

    def close(self) -> None:
        """The tree ended: its watchdog goes."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None


async def sleep_or_stop(seconds: float, stop: asyncio.Event) -> bool:
    """Sleep ``seconds`` unless ``stop`` is set first (True: stopped)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), max(0.0, seconds))
        return True
    return stop.is_set()


__all__ = ["LaneClock", "TreeClock", "sleep_or_stop"]
