"""Trees read off the event loop on one thread, started once: :class:`TreeReader`.

A lane runner reads each tree it draws from its source (a trace file's tree: parsed and
converted, milliseconds for a long one) away from the event loop. ``asyncio.to_thread`` does it
on the loop's default pool, which starts a new thread whenever none is idle — and starting a
thread blocks the loop until the thread runs. When every lane starts a tree at once (the
measured phase's first instant, where each lane also draws its next tree ahead:
load/next_trees.py) that was the pool's threads started one by one while the lanes' first
replies arrived: on the 2-core build machine, 16 lanes' first tokens were read 12-20 ms after
the server wrote them (``client_receive_ms``), against under 1 ms for every later request
(benchmarks/agentx_scale.py; docs/performance.md). One thread, started when the reader is made
(before the lanes' clock), reads every tree in the order asked; reads are short and a lane
needs its next tree only when its tree ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class TreeReader:
    """One reader thread for a lane runner (module text); :meth:`close` ends it."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tree-reader")
        self._pool.submit(int).result()  # the thread starts now, not under load

    async def read(self, source: Callable[[int], T], index: int) -> T:
        """``source(index)`` on the reader thread."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, source, index)

    def close(self) -> None:
        """End the thread once the reads asked for are done (none waits for them)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["TreeReader"]
