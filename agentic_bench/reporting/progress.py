"""Live progress: a rich status line on a terminal, plain periodic lines otherwise.

Shows sessions done/total, requests/s, rolling TTFT p50/p99 (last 500 requests), errors and
an ETA. ``--quiet`` turns it off. Updates run on a timer, never per record, so progress
costs the measured path almost nothing.
"""

from __future__ import annotations

import asyncio
import sys
from collections import deque
from time import perf_counter
from typing import Any

from agentic_bench.metrics.declarations import field_of
from agentic_bench.metrics.percentiles import percentile

PLAIN_EVERY_S = 5.0
TTFT = field_of("ttft")  # the record field of the declared TTFT


class Progress:
    def __init__(self, total: int | None, quiet: bool = False,
                 duration_s: float | None = None) -> None:
        self.total = total
        self.duration_s = duration_s  # --duration: the ETA is the time left of it
        self.quiet = quiet
        self.sessions = 0
        self.requests = 0
        self.errors = 0
        self.warmup = 0  # a lane run's warm-up requests (not counted as requests)
        self.phase = ""  # the phase of the latest record, where a benchmark has phases
        self.phase_sessions: dict[str, int] = {}
        self.ttft: deque[float] = deque(maxlen=500)
        self.t_start = perf_counter()
        self._task: asyncio.Task[None] | None = None
        self._live: Any = None
        self.tty = sys.stderr.isatty()

    def on_record(self, rec: dict[str, Any]) -> None:
        rtype = rec.get("type")
        phase = rec.get("phase")
        if isinstance(phase, str) and phase:
            self.phase = phase
            if rtype == "session":
                self.phase_sessions[phase] = self.phase_sessions.get(phase, 0) + 1
        if rec.get("warmup"):
            self.warmup += rtype == "step"
        elif rtype == "session":
            self.sessions += 1
        elif rtype == "step" and rec.get("kind") == "llm":
            self.requests += 1
            if rec.get("status") != "ok":
                self.errors += 1
            elif TTFT in rec:
                self.ttft.append(rec[TTFT])

    def line(self) -> str:
        elapsed = perf_counter() - self.t_start
        rate = self.requests / elapsed if elapsed > 0 else 0.0
        ttft = sorted(self.ttft)  # the summary's percentile method (metrics/percentiles.py)
        p50 = f"{percentile(ttft, 50):.1f}" if ttft else "-"
        p99 = f"{percentile(ttft, 99):.1f}" if ttft else "-"
        total = f"/{self.total}" if self.total else ""
        eta = ""
        if self.duration_s is not None:  # a fixed duration ends when it ends, whatever is done
            eta = f"  ETA {max(0.0, self.duration_s - elapsed):,.0f}s of {self.duration_s:,.0f}s"
        elif self.total and self.sessions:
            left = elapsed / self.sessions * (self.total - self.sessions)
            eta = f"  ETA {left:,.0f}s"
        warm = f"warm-up {self.warmup}  " if self.warmup else ""
        if self.phase:  # agentic-edge: which phase runs now, sessions done in each
            done = ", ".join(f"{k} {v}" for k, v in self.phase_sessions.items())
            warm = f"[{self.phase}{': ' + done if done else ''}]  " + warm
        text = (f"{warm}sessions {self.sessions}{total}  requests {self.requests} "
                f"({rate:.1f}/s)  TTFT p50 {p50} ms p99 {p99} ms  errors {self.errors}  "
                f"{elapsed:,.0f}s{eta}")
        if self.tty:  # one line that never wraps (a wrapped status line leaves a stray copy)
            import shutil

            width = shutil.get_terminal_size((80, 24)).columns - 1
            if len(text) > width:
                text = (f"{warm}s {self.sessions}{total} r {self.requests} ({rate:.1f}/s) "
                        f"TTFT {p50}/{p99} ms err {self.errors} {elapsed:,.0f}s{eta}")[:width]
        return text

    def start(self) -> None:
        if self.quiet:
            return
        self.t_start = perf_counter()
        if self.tty:
            from rich.console import Console
            from rich.live import Live

            self._live = Live(self.line(), console=Console(stderr=True), refresh_per_second=4,
                              transient=False)
            self._live.start()
        self._task = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        every = 0.25 if self.tty else PLAIN_EVERY_S
        while True:
            await asyncio.sleep(every)
            if self._live is not None:
                self._live.update(self.line())
            else:
                print(self.line(), file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._live is not None:
            self._live.update(self.line())
            self._live.stop()
            self._live = None
        elif not self.quiet:
            print(self.line(), file=sys.stderr, flush=True)
