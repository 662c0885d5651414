"""#33: a Ray shard's records come back a bounded batch at a time (``ShardActor.fetch``), and
the final drain reads each shard's file to its end — without Ray (the actor is a plain class
that ``ray.remote`` wraps)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agentic_bench.load.process_pool import RecordTail
from agentic_bench.load.ray_executor import ShardActor, _fetch_all


def remote(actor: ShardActor, sizes: list[int]) -> Any:
    """What ``ray`` hands the driver: ``actor.fetch.remote()`` (each batch's size noted)."""
    async def fetch() -> tuple[list[dict[str, Any]], bool]:
        batch, more = await actor.fetch()
        sizes.append(actor.tail.last_bytes)
        return batch, more

    return SimpleNamespace(fetch=SimpleNamespace(remote=fetch))


def test_fetch_is_bounded_and_the_drain_reads_to_the_end(tmp_path: Path) -> None:
    lines = [json.dumps({"type": "llm", "i": i, "pad": "x" * (i % 50)}) for i in range(500)]
    shards = []
    for k in range(2):
        path = tmp_path / f"records.shard-{k}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        actor = ShardActor(limit=4096)
        actor.tail = RecordTail(path, k)
        shards.append(actor)
    got: list[dict[str, Any]] = []
    sizes: list[int] = []
    actors = [remote(a, sizes) for a in shards]
    asyncio.run(_fetch_all(actors, got.extend, to_end=False))  # one batch each while running
    assert 0 < len(got) < 1000 and max(sizes) <= 4096
    asyncio.run(_fetch_all(actors, got.extend, to_end=True))
    assert max(sizes) <= 4096 and len(sizes) > 2 * (len("\n".join(lines)) // 4096)
    for k in range(2):  # every record of each shard, once, in order
        assert [r["i"] for r in got if r["process"] == k] == list(range(500))
