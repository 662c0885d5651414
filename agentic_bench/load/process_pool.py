"""Run shards as local worker processes (``--workers N``) and follow their records.

The parent starts N processes (spawn), forwards an interrupt through a shared event, and
tails each shard's records file so progress and the final merge see every line; each record
is tagged with its ``process``.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentic_bench.load.shard_worker import ShardSpec, shard_process_main


class RecordTail:
    """Incrementally reads complete lines appended to a records file."""

    def __init__(self, path: Path, process: int) -> None:
        self.path = path
        self.process = process
        self.offset = 0
        self.partial = b""

    def read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            data = fh.read()
        self.offset += len(data)
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        out = []
        for line in lines:
            if line.strip():
                rec = json.loads(line)
                rec["process"] = self.process
                out.append(rec)
        return out


async def run_processes(specs: list[ShardSpec], on_records: Callable[[list[dict[str, Any]]], None],
                        stop: asyncio.Event) -> list[dict[str, Any]]:
    ctx = mp.get_context("spawn")
    mp_stop = ctx.Event()
    results = ctx.Queue()
    procs = [ctx.Process(target=shard_process_main, args=(spec, mp_stop, results), daemon=True)
             for spec in specs]
    tails = [RecordTail(Path(spec.records_path), spec.shard) for spec in specs]
    for proc in procs:
        proc.start()
    reports: list[dict[str, Any]] = []
    try:
        while any(p.is_alive() for p in procs) or len(reports) < len(procs):
            if stop.is_set():
                mp_stop.set()
            for tail in tails:
                batch = tail.read()
                if batch:
                    on_records(batch)
            while not results.empty():
                reports.append(results.get())
            if not any(p.is_alive() for p in procs) and results.empty():
                break
            await asyncio.sleep(0.2)
    finally:
        mp_stop.set()
        for proc in procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
    for tail in tails:
        batch = tail.read()
        if batch:
            on_records(batch)
    missing = {s.shard for s in specs} - {r["shard"] for r in reports}
    reports += [{"shard": m, "failed": "worker process died without a report"} for m in missing]
    return sorted(reports, key=lambda r: r["shard"])
