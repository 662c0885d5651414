"""Run shards as local worker processes (``--workers N``) and follow their records.

The parent starts N processes (spawn), forwards an interrupt through a shared event, and
tails each shard's records file so progress and the final merge see every line; each record
is tagged with its ``process``. Lanes of agent trees (``gated``) share a gate the parent opens
once every worker's warm-up is done (:mod:`agentic_bench.load.lane_shards`).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentic_bench.load.lane_shards import ProcessGate, open_when_all
from agentic_bench.load.shard_worker import ShardSpec, shard_process_main

TAIL_CHUNK_BYTES = 8 << 20  # one read of a shard's file: a bounded batch, however far behind


class RecordTail:
    """Incrementally reads complete lines appended to a records file, at most ``limit`` bytes
    a read (:meth:`drain` reads on to the end, a bounded batch at a time)."""

    def __init__(self, path: Path, process: int) -> None:
        self.path = path
        self.process = process
        self.offset = 0
        self.partial = b""
        self.last_bytes = 0

    def read(self, limit: int | None = None) -> list[dict[str, Any]]:
        self.last_bytes = 0
        if not self.path.exists():
            return []
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            data = fh.read() if limit is None else fh.read(limit)
        self.last_bytes = len(data)
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

    def drain(self, limit: int = TAIL_CHUNK_BYTES) -> Iterator[list[dict[str, Any]]]:
        """Batches of what was appended since the last read, to the end of the file."""
        while True:
            batch = self.read(limit)
            if batch:
                yield batch
            if self.last_bytes < limit:
                return


async def run_processes(specs: list[ShardSpec], on_records: Callable[[list[dict[str, Any]]], None],
                        stop: asyncio.Event, gated: bool = False) -> list[dict[str, Any]]:
    ctx = mp.get_context("spawn")
    mp_stop = ctx.Event()
    results = ctx.Queue()
    gate = ProcessGate(ctx) if gated else None
    procs = [ctx.Process(target=shard_process_main, args=(spec, mp_stop, results, gate),
                         daemon=True)
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
                for batch in tail.drain():
                    on_records(batch)
            while not results.empty():
                reports.append(results.get())
            if gate is not None:  # a worker that failed or ended opens it for the others
                open_when_all(gate, len(procs), force=bool(reports)
                              or not all(p.is_alive() for p in procs))
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
        for batch in tail.drain():
            on_records(batch)
    missing = {s.shard for s in specs} - {r["shard"] for r in reports}
    reports += [{"shard": m, "failed": "worker process died without a report"} for m in missing]
    return sorted(reports, key=lambda r: r["shard"])
