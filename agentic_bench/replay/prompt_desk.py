"""One prompt written at a time, the earliest due first: :class:`PromptDesk`.

Writing an agent prompt's new blocks is CPU work on the event loop (milliseconds for a
17k-101k-token prompt). When many lanes write at once — every lane's first request at the
start of a run, replies that end together — the loop runs every writer's slice before it
reads a socket again, so a reply that has arrived waits for all of them, and so does the
request that is due first. The desk lets one writer work at a time, in the order the
requests are due (earliest deadline first: a request due now before one written during its
wait), and the writer gives the loop a turn between slices, so reads and sends wait at most
one slice.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class PromptDesk:
    """Turns at writing prompts, earliest due first (module text); one per replayer."""

    def __init__(self) -> None:
        self._busy = False
        self._queue: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = 0

    @asynccontextmanager
    async def turn(self, due_ns: int) -> AsyncIterator[None]:
        """Hold the desk (after every waiter due earlier) for the ``with`` block."""
        await self._acquire(due_ns)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, due_ns: int) -> None:
        if not self._busy and not self._queue:
            self._busy = True
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._seq += 1
        heapq.heappush(self._queue, (due_ns, self._seq, waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # handed the desk, then cancelled: hand it on
            raise

    async def pause(self, due_ns: int) -> None:
        """Between two slices of a writer holding the desk for a request due at ``due_ns``:
        hand the desk to a waiter due earlier and wait for the next turn, else give the loop
        one turn (its reads and sends) and go on."""
        while self._queue and self._queue[0][2].done():
            heapq.heappop(self._queue)  # cancelled waiters
        if self._queue and self._queue[0][0] < due_ns:
            self._release()
            await self._acquire(due_ns)
        else:
            await asyncio.sleep(0)

    def _release(self) -> None:
        while self._queue:
            _, _, waiter = heapq.heappop(self._queue)
            if not waiter.done():  # (a cancelled waiter is skipped)
                waiter.set_result(None)
                return
        self._busy = False

    @property
    def waiting(self) -> int:
        """Writers waiting for a turn (cancelled ones included until skipped)."""
        return len(self._queue)


__all__ = ["PromptDesk"]
