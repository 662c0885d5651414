"""Run shards as Ray actors on an existing Ray cluster (``--ray-address``).

Ray is an optional extra (``pip install agentic-serving-bench[distributed]``) and imported only
here.
Each actor runs one shard with its own event loop (an async actor), writes its records to a
file on its node and streams them back to the driver in batches, so the driver's
records.jsonl is the merged record of every shard. Latencies are measured on the actor's own
machine; the start barrier is wall-clock time, and each shard reports its start skew. Lanes of
agent trees (``gated``) wait at each actor's gate after their warm-up; the driver opens every
actor's at one wall-clock instant once all have arrived (:mod:`agentic_bench.load.lane_shards`).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.load.lane_shards import open_when_all
from agentic_bench.load.shard_worker import ShardSpec

RAY_GATE_LEAD_S = 0.5  # the gate opens this far ahead: a call to every actor must land first


def _shown(address: str) -> str:
    """The address without any ``user:password@`` part, for messages."""
    scheme, sep, rest = address.rpartition("://")
    return f"{scheme}{sep}{rest.rpartition('@')[2]}"


def check_ray_address(address: str, timeout_s: float = 5.0) -> None:
    """Refuse, before anything is sent, an address that is malformed or where nothing listens:
    ``local`` (a Ray started here) and ``auto`` (the cluster this machine belongs to) pass."""
    if address in ("local", "auto"):
        return
    shown = _shown(address)
    hostport = shown.rpartition("://")[2].split("/")[0]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--ray-address {shown}: expected HOST:PORT, ray://HOST:PORT, "
                          "'auto' or 'local'")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise ConfigError(f"--ray-address {shown}: no Ray head answers there "
                          f"({exc.strerror or exc}); start one with `ray start --head` on that "
                          "machine, or use --ray-address local") from None


def _connect(ray: Any, address: str) -> None:
    check_ray_address(address)
    try:
        ray.init(address=None if address == "local" else address, include_dashboard=False,
                 ignore_reinit_error=True, log_to_driver=False)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, TimeoutError, ...
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(f"--ray-address {_shown(address)}: could not join the Ray cluster: "
                          f"{first[:300]} (a head that advertises an address this machine "
                          "cannot reach fails this way: see `ray status` on the head)") from None


class ShardActor:
    """One shard in a Ray actor: runs it, and hands its records back a bounded batch at a time
    (``fetch``: at most ``limit`` bytes of the shard's file a call, however far the driver is
    behind, so neither side holds the shard's records at once)."""

    def __init__(self, limit: int | None = None) -> None:
        from agentic_bench.load.lane_shards import LocalGate
        from agentic_bench.load.process_pool import TAIL_CHUNK_BYTES

        self.stop = asyncio.Event()
        self.tail: Any = None
        self.limit = limit or TAIL_CHUNK_BYTES
        self.gate = LocalGate()

    async def run(self, spec: ShardSpec, gated: bool = False) -> dict[str, Any]:
        from pathlib import Path

        from agentic_bench.load.process_pool import RecordTail
        from agentic_bench.load.shard_worker import run_shard

        self.tail = RecordTail(Path(spec.records_path), spec.shard)
        report = await run_shard(spec, self.stop, self.gate if gated else None)
        node = {"ray_node_id": _node_id()}
        return {**report, **node, **({"lanes": {**report["lanes"], **node}}
                                     if "lanes" in report else {})}

    async def arrived(self) -> int:
        """Whether this actor's lanes have reached the gate (1) or not (0)."""
        return self.gate.arrived

    async def open_gate(self, wall: float) -> None:
        """The measured phase begins at ``wall`` (wall clock)."""
        self.gate.opens = wall

    async def fetch(self) -> tuple[list[dict[str, Any]], bool]:
        """The next batch of records, and whether the file held more than one batch's bytes
        (fetch again at once)."""
        if self.tail is None:
            return [], False
        batch = self.tail.read(self.limit)
        return batch, self.tail.last_bytes >= self.limit

    async def request_stop(self) -> None:
        self.stop.set()


def _node_id() -> str:
    """The id of the Ray node this actor runs on (hex)."""
    import ray

    return str(ray.get_runtime_context().get_node_id())


def nodes_for_actors(nodes: list[str], actors: int, per_node: int) -> list[str]:
    """The node of each of ``actors`` actors, in turn over ``nodes`` (``--workers-per-node``:
    no node gets more than ``per_node``; refused when the nodes cannot hold them all)."""
    if actors > per_node * len(nodes):
        raise ConfigError(f"--workers {actors} --workers-per-node {per_node}: the Ray cluster "
                          f"has {len(nodes)} node(s) with a CPU, room for "
                          f"{per_node * len(nodes)} workers")
    return [nodes[k % len(nodes)] for k in range(actors)]


def _placements(ray: Any, actors: int, per_node: int | None) -> list[Any]:
    """How each actor is scheduled: SPREAD over the cluster's nodes (Ray's default packs
    actors on the driver's node until half its CPUs are taken: two workers on two 8-CPU nodes
    both went to one), or, with ``per_node``, pinned to nodes in turn."""
    if not per_node:
        return ["SPREAD"] * actors
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [n["NodeID"] for n in ray.nodes()
             if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
    return [NodeAffinitySchedulingStrategy(node_id=node, soft=False)
            for node in nodes_for_actors(nodes, actors, per_node)]


def _actor_class() -> Any:
    import ray

    return ray.remote(num_cpus=1)(ShardActor)


async def _fetch_all(actors: list[Any], on_records: Callable[[list[dict[str, Any]]], None],
                     *, to_end: bool) -> None:
    """One bounded batch from each actor (``to_end``: batches until each file is read)."""
    left = list(actors)
    while left:
        fetched = await asyncio.gather(*(a.fetch.remote() for a in left))
        for batch, _ in fetched:
            if batch:
                on_records(batch)
        left = [a for a, (_, more) in zip(left, fetched, strict=True) if more and to_end]


async def run_ray(specs: list[ShardSpec], on_records: Callable[[list[dict[str, Any]]], None],
                  stop: asyncio.Event, address: str,
                  per_node: int | None = None, gated: bool = False) -> list[dict[str, Any]]:
    try:
        import ray
    except ImportError:
        raise ConfigError("--ray-address needs Ray: pip install "
                          "'agentic-serving-bench[distributed]'") from None
    if not ray.is_initialized():
        _connect(ray, address)
    actor_cls = _actor_class()
    actors = [actor_cls.options(max_concurrency=4, scheduling_strategy=where).remote()
              for where in _placements(ray, len(specs), per_node)]
    runs = [a.run.remote(s, gated) for a, s in zip(actors, specs, strict=True)]
    pending = list(runs)
    stopped = False
    gate = _DriverGate(actors) if gated else None
    while pending:
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=0.2)
        if gate is not None and not gate.open:
            await gate.poll(force=len(pending) < len(runs))
        if stop.is_set() and not stopped:
            stopped = True
            for actor in actors:
                actor.request_stop.remote()
        await _fetch_all(actors, on_records, to_end=False)
        if pending:
            await asyncio.sleep(0.1)
    reports = [await r for r in runs]
    await _fetch_all(actors, on_records, to_end=True)
    for actor in actors:
        ray.kill(actor)
    return sorted(reports, key=lambda r: r["shard"])


class _DriverGate:
    """The driver's side of the actors' gates: opens all of them at one instant once every
    actor has arrived (or at once when one has ended: the others must not wait for it)."""

    def __init__(self, actors: list[Any]) -> None:
        self.actors = actors
        self.arrived = 0
        self.opens = 0.0

    @property
    def open(self) -> bool:
        return self.opens > 0

    async def poll(self, force: bool) -> None:
        self.arrived = sum(await asyncio.gather(*(a.arrived.remote() for a in self.actors)))
        if open_when_all(self, len(self.actors), RAY_GATE_LEAD_S, force):
            await asyncio.gather(*(a.open_gate.remote(self.opens) for a in self.actors))
