"""``--server-metrics URL``: scrape Prometheus endpoints while the run goes on.

Each scrape is one line of ``server_metrics.jsonl`` in the run folder, written and flushed as it
arrives: ``{"source", "t_ns" (since the run's t0), "ok", "http_status", "error", "scrape_ms",
"text"}``. The text is stored as served and parsed only after the run
(:mod:`agentic_bench.server_metrics.digest`), so scraping costs the measured path one small GET
per interval and no parsing. A failed scrape (refused, timeout, HTTP error) is a line with
``ok: false`` and the reason; the run never stops for it. One scrape at the start, one per
interval, one at the end (so counters cover the whole run).

A page is read whole, chunk by chunk, up to :data:`MAX_TEXT_BYTES` (4 MiB; a vLLM or DCGM
page is 50-250 kB); a longer page is not stored (a cut page would parse wrong) — its line says
``ok: false`` and why. So a runaway exporter writes at most 4 MiB per URL per scrape: at most
``4 MiB × 3600 / --server-metrics-interval`` per URL per hour (14 GiB at the 1 s default, the
worst case; a 217 kB page is 0.76 GiB an hour).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from time import perf_counter_ns
from typing import IO, Any

from agentic_bench.transport.url import redact_url

SCRAPES_FILE = "server_metrics.jsonl"
MAX_TEXT_BYTES = 4 << 20  # one page at most (module doc: what this bounds per hour)
_CHUNK = 1 << 16


async def read_capped(content: Any, cap: int) -> bytes | None:
    """The whole body of a response (an aiohttp ``StreamReader``), read to its end — one
    ``read(n)`` returns only what has arrived, often the first 64 kB — or None when it holds
    more than ``cap`` bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = await content.read(_CHUNK)
        if not chunk:
            return b"".join(parts)
        size += len(chunk)
        if size > cap:
            return None
        parts.append(chunk)


class MetricsScraper:
    """Scrapes ``urls`` every ``interval_s`` while a run goes on, storing each scrape as served
    under ``out_dir``."""
    def __init__(self, urls: list[str], out_dir: Path, t0_ns: int, interval_s: float = 1.0,
                 headers: dict[str, str] | None = None) -> None:
        self.urls = urls
        self.path = out_dir / SCRAPES_FILE
        self.t0_ns = t0_ns
        self.interval_s = interval_s
        self.timeout_s = max(0.5, min(5.0, interval_s))
        self.headers = headers or {}
        self.scrapes = 0
        self.failures = 0
        self._task: asyncio.Task[None] | None = None
        self._file: IO[str] | None = None
        self._session: Any = None
        self._stop = asyncio.Event()

    async def __aenter__(self) -> MetricsScraper:
        import aiohttp

        self._file = self.path.open("a", encoding="utf-8")
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=self.timeout_s), trust_env=False)
        self._task = asyncio.create_task(self._loop(), name="server-metrics")
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task
        await self._scrape_all()  # the closing values: counters cover the whole run
        await self._session.close()
        if self._file is not None:
            self._file.close()

    async def _loop(self) -> None:
        while not self._stop.is_set():
            await self._scrape_all()
            try:
                await asyncio.wait_for(self._stop.wait(), self.interval_s)
            except TimeoutError:
                pass

    async def _scrape_all(self) -> None:
        await asyncio.gather(*(self._scrape(url) for url in self.urls))

    async def _scrape(self, url: str) -> None:
        start = perf_counter_ns()
        line: dict[str, Any] = {"source": redact_url(url), "t_ns": start - self.t0_ns}
        try:
            async with self._session.get(url, headers=self.headers) as resp:
                body = await read_capped(resp.content, MAX_TEXT_BYTES)
                line["http_status"] = resp.status
                if body is None:
                    line.update(ok=False, error=f"page over {MAX_TEXT_BYTES >> 20} MiB: not "
                                "stored (a runaway exporter?)")
                elif resp.status >= 400:
                    line.update(ok=False, error=f"HTTP {resp.status}: "
                                + body[:200].decode("utf-8", "replace"))
                else:
                    line.update(ok=True, text=body.decode("utf-8", "replace"))
        except TimeoutError:
            line.update(ok=False, error=f"no reply within {self.timeout_s:g} s")
        except Exception as exc:  # refused, reset, bad URL: a failed scrape, never a crash
            line.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:300])
        line["scrape_ms"] = round((perf_counter_ns() - start) / 1e6, 3)
        self.scrapes += 1
        self.failures += not line["ok"]
        if self._file is not None:
            self._file.write(json.dumps(line) + "\n")
            self._file.flush()
