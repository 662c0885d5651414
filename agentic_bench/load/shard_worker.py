"""One shard of a scaled-out run: its own process (or Ray actor) and event loop.

Every shard rebuilds the workload from a picklable recipe, opens its own connections, waits
at the start barrier, and issues only its share of the one global, seeded schedule
(session index ``i`` belongs to shard ``i mod N``). Latencies are measured locally with the
shard's own monotonic clock; records go to the shard's own file, flushed per line. A run of
agent trees gives each shard whole lanes and the trees they draw
(:mod:`agentic_bench.load.lane_shards`): its lanes' warm-up, then the ``gate`` every shard
passes together into the measured phase; its ``lanes`` record goes back in its report, for
the parent to merge.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import ExecContext, Workload
from agentic_bench.load.lane_shards import lane_gate, shard_lanes_record
from agentic_bench.load.lanes import LaneRunner
from agentic_bench.load.runner import LoadRunner
from agentic_bench.metrics.distribution import Distribution
from agentic_bench.options.load import LaneSpec, LoadShape
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.records.stream import RecordWriter
from agentic_bench.workload import session_executor


@dataclass
class ShardSpec:
    shard: int
    shards: int
    recipe: tuple[Any, ...]
    url: str
    api_key_env: str
    load: LoadShape  # sessions of a scenario, or lanes of agent trees
    options: ReplayOptions
    records_path: str
    start_wall: float  # the start barrier, as wall-clock time (comparable across machines)
    skip: set[int] = field(default_factory=set)
    transport: str | None = None  # the run's --transport (None: env variable, then raw)
    api_key_header: str | None = None  # --api-key-header
    run_id: str | None = None  # lanes: the run's id, shared (its cache-bust markers)


def build_from_recipe(recipe: tuple[Any, ...]) -> Workload:
    """Rebuild the workload in this process: a recipe is ``("module:function", args, kwargs)``,
    written by the layer that made the workload (the scheduler knows no benchmark)."""
    import importlib

    target, args, kwargs = recipe
    module, _, name = str(target).partition(":")
    if not module or not name:
        raise ValueError(f"workload recipe {target!r}: expected 'module:function'")
    workload: Workload = getattr(importlib.import_module(module), name)(*args, **kwargs)
    return workload


def worker_place() -> dict[str, Any]:
    """Where this worker runs: its machine's host name and its process id (a Ray actor adds
    its node's id, :mod:`agentic_bench.load.ray_executor`)."""
    return {"host": os.uname().nodename, "pid": os.getpid()}


async def run_shard(spec: ShardSpec, stop: Any = None, gate: Any = None) -> dict[str, Any]:
    """Run one shard; ``stop`` is anything with ``is_set()`` polled for an interrupt; ``gate``
    (lanes) anything with ``arrive()`` and ``opens_at()`` (:func:`~agentic_bench.load.
    lane_shards.lane_gate`)."""
    from agentic_bench.transport.choose import make_chat_client

    workload = build_from_recipe(spec.recipe)
    api_key = os.environ.get(spec.api_key_env) or None
    if workload.prepare is not None:  # e.g. the tokenizer prompts are written with
        await asyncio.to_thread(workload.prepare, spec.url, api_key)
    client = make_chat_client(spec.url, api_key, kind=spec.transport,
                              api_key_header=spec.api_key_header)
    writer = RecordWriter(Path(spec.records_path))
    lags = Distribution()  # the shard's schedule lag at 1 µs, not a list of every request's
    counts = {"requests": 0, "errors": 0}

    def sink(rec: dict[str, Any]) -> None:
        writer.write(rec)
        if rec.get("type") == "step" and rec.get("kind") == "llm" and rec["status"] != "retried":
            counts["requests"] += 1
            counts["errors"] += rec["status"] != "ok"
            lags.add(rec.get("schedule_lag_ms", 0.0))

    # the barrier: wall clock → this machine's monotonic clock
    t_start = perf_counter_ns() + int((spec.start_wall - time.time()) * 1e9)
    ctx = ExecContext(client, sink, t_start, spec.options, transport_kind=spec.transport)
    execute = session_executor(workload, ctx)
    runner: LoadRunner | LaneRunner
    if isinstance(spec.load, LaneSpec):  # (the trace replay's: it writes first requests ahead)
        runner = LaneRunner(spec.load, workload.source, execute, sink, spec.skip, t0_ns=t_start,
                            share=(spec.shard, spec.shards), run_id=spec.run_id,
                            t_start_ns=t_start, gate=lane_gate(gate, stop), write_ahead=True)
    else:
        runner = LoadRunner(spec.load, workload.source, execute, skip=spec.skip,
                            shard=(spec.shard, spec.shards), t_start_ns=t_start)
    await client.warm_up(min(runner.streams or 1, 256))  # the shard's own in-flight cap
    writer.open()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, runner.stop)
        except (ValueError, RuntimeError):  # not the main thread (a Ray actor): ``stop`` only
            break
    watcher = asyncio.ensure_future(_watch(stop, runner)) if stop is not None else None
    cpu0 = time.process_time()
    try:
        stats = await runner.run()
    finally:
        if watcher is not None:
            watcher.cancel()
        writer.close()
        await ctx.close_extras()
        await client.aclose()
    lag = lags.describe()
    place = worker_place()
    lanes = ({"lanes": {**shard_lanes_record(runner), **place}}
             if isinstance(runner, LaneRunner) else {})
    return {
        "shard": spec.shard, **place,
        "issued": stats.issued, "completed": stats.completed, "cancelled": stats.cancelled,
        "requests": counts["requests"], "errors": counts["errors"],
        "schedule_lag_ms": {"p50": lag["p50"], "p99": lag["p99"], "max": lag["max"]},
        "cpu_s": time.process_time() - cpu0,
        "start_skew_ms": stats.start_skew_ns / 1e6,
        "duration_s": (stats.t_end_ns - stats.t_start_ns) / 1e9,
        "stop_reason": stats.stop_reason, **lanes,
    }


async def _watch(stop: Any, runner: LoadRunner | LaneRunner) -> None:
    while not stop.is_set():
        await asyncio.sleep(0.1)
    runner.stop()


def shard_process_main(spec: ShardSpec, stop: Any, results: Any, gate: Any = None) -> None:
    """Entry point of a local worker process."""
    try:
        import uvloop

        run: Callable[..., Any] = uvloop.run
    except ImportError:
        run = asyncio.run
    try:
        report = run(run_shard(spec, stop, gate))
    except Exception as exc:  # reported to the parent, which fails the run
        report = {"shard": spec.shard, "failed": f"{type(exc).__name__}: {exc}"}
    results.put(report)
