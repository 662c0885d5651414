"""The measured segment of a run and its strategy: LoadGen's (``--loadgen mlperf``), agent trees
in lanes, shards of the one schedule in worker processes or Ray actors (``--workers``,
``--ray-address``), or the load runner in this process. Each installs the SIGINT/SIGTERM
handlers (the first stops issuing, the second cancels what is in flight) and the early stop
when the first requests all fail, and returns a :class:`~agentic_bench.contracts.Segment`.

:func:`make_scheduler` is the one place a scheduler
(:class:`~agentic_bench.load.scheduler.Scheduler`) is made from the run's load
(:data:`~agentic_bench.options.load.LoadShape`): the in-flight cap (:func:`stream_count`) and
the plan (:func:`planned_sessions`) are the scheduler's own."""

from __future__ import annotations

import asyncio
import secrets
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentic_bench.contracts import (
    ExecContext,
    Execute,
    RecordSink,
    Segment,
    SessionSource,
    Workload,
)
from agentic_bench.endpoint.resolve import Endpoint
from agentic_bench.errors import ConfigError
from agentic_bench.load.lanes import LaneRunner
from agentic_bench.load.runner import LoadRunner
from agentic_bench.load.scheduler import Scheduler
from agentic_bench.metrics.early_stop import FirstFailures
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.load import OPEN_LOOP, LaneSpec, LoadShape
from agentic_bench.run.plan import Run
from agentic_bench.transport.base import ChatTransport
from agentic_bench.workload import session_executor


def make_scheduler(load: LoadShape, source: SessionSource, execute: Execute | None = None, *,
                   sink: RecordSink | None = None, skip: set[int] | None = None,
                   t0_ns: int = 0, write_ahead: bool = False) -> Scheduler:
    """The scheduler of ``load`` over ``source``: agent trees in lanes, or the sessions of a
    scenario (without ``execute``: one that only answers its cap and plan); ``write_ahead``:
    the executor is the trace replayer's, which writes a lane's first request ahead
    (load/lanes.py)."""
    run = execute or _noop
    if isinstance(load, LaneSpec):
        return LaneRunner(load, source, run, sink, skip, t0_ns=t0_ns,
                          write_ahead=write_ahead)
    return LoadRunner(load, source, run, skip=skip)


def stream_count(workload: Workload, options: CommonOptions, lanes: LaneSpec | None) -> int:
    """How many sessions run at once at most (the endpoint's connections and slots): the
    scheduler's in-flight cap (1 for an open loop without one), or for LoadGen without a
    ``--concurrency``, up to 64."""
    if options.loadgen_options is not None and lanes is None:
        return options.concurrency or min(workload.source.size, 64)
    load = lanes if lanes is not None else options.load
    return make_scheduler(load, workload.source).streams or 1


def planned_sessions(workload: Workload, run: Run) -> int | None:
    """The sessions the run will issue, when the scheduler knows in advance (never for
    LoadGen, which decides as it goes)."""
    if run.options.loadgen_options is not None:
        return None
    return make_scheduler(run.load, workload.source).planned_sessions()


async def run_segment(workload: Workload, run: Run, endpoint: Endpoint, out: Path, t0: int,
                      sink: RecordSink, skip: set[int], early: FirstFailures) -> Segment:
    """Run the measured segment the way the options ask, skipping the sessions in ``skip``
    (done before a resume); a segment the early stop cut short ends ``all_failed``."""
    seg: Segment
    options = run.options
    loadgen = options.loadgen_options
    if loadgen is not None:
        from agentic_bench.loadgen.run import run_with_loadgen

        seg = await run_with_loadgen(
            workload, endpoint, out, sink, load=options.load,
            slos={**workload.default_slos, **options.slos}, replay=run.replay,
            transport_kind=options.transport, options=loadgen, t0_ns=t0)
    elif options.workers > 1 or options.ray_address:  # shards, or lanes split over workers
        seg = await _sharded(workload, run, run.load, endpoint.target, out, skip, sink, early)
    else:  # lanes of agent trees (their ``lanes`` record after), or sessions, here
        seg = await _in_process(workload, run, endpoint.transport, t0, sink, skip, early)
    if early.triggered:
        seg.stop_reason = early.reason  # all_failed, or records_unwritable
    return seg


def _stopper(early: FirstFailures, stop: Callable[[], None], quiet: bool) -> None:
    """The first requests all failed (or the records cannot be written): stop issuing, and say
    so at once."""
    def trigger(message: str | None = None) -> None:
        if message is not None:  # said even with --quiet: the run's records are incomplete
            print(f"\nstopping: {message}", file=sys.stderr, flush=True)
        elif not quiet:
            print(f"\nstopping: the first {early.n} requests all failed (an endpoint that "
                  "cannot serve this run; --stop-after-failures 0 runs on regardless)",
                  file=sys.stderr, flush=True)
        stop()

    early.stop = trigger
    if early.triggered:  # the records failed before the segment began: issue nothing
        stop()


async def _in_process(workload: Workload, run: Run, transport: ChatTransport, t0: int,
                      sink: RecordSink, skip: set[int], early: FirstFailures) -> Segment:
    """The run's scheduler in this process, with the early stop and the signal handlers (the
    second Ctrl-C cancels); its executor's extras closed however it ends, then the records
    the scheduler ends with (lanes: how full they were)."""
    ctx = ExecContext(transport, sink, t0, run.replay, transport_kind=run.options.transport)
    # (lanes are the trace replay's: its executor writes a lane's first request ahead)
    scheduler = make_scheduler(run.load, workload.source, session_executor(workload, ctx),
                               sink=sink, skip=skip, t0_ns=t0, write_ahead=True)
    _stopper(early, scheduler.stop, run.options.quiet)
    _install_signals(scheduler.stop, scheduler.cancel)
    try:
        stats = await scheduler.run()
    finally:
        _remove_signals()
        await ctx.close_extras()
    for record in scheduler.final_records():
        sink(record)
    return Segment((stats.t_end_ns - stats.t_start_ns) / 1e9, stats.stop_reason, stats.issued,
                   stats.cancelled)


async def _sharded(workload: Workload, run: Run, spec: LoadShape, url: str, out: Path,
                   skip: set[int], sink: RecordSink, early: FirstFailures) -> Segment:
    """Shards of the one global schedule, or lanes of agent trees split by lane
    (load/lane_shards.py), in worker processes or Ray actors."""
    from agentic_bench.load.shard_worker import ShardSpec

    options = run.options
    if workload.recipe is None:
        raise ConfigError("--workers/--ray-address need a workload that can be rebuilt in a "
                          "worker (a trace replay or a registered benchmark)")
    if url == "inproc":
        raise ConfigError("--endpoint inproc cannot be shared by worker processes")
    n = options.workers
    lanes = spec if isinstance(spec, LaneSpec) else None
    if not isinstance(spec, LaneSpec):  # lanes: lane_spec() has checked there are n or more
        last = LoadRunner(spec, workload.source, _noop, shard=(n - 1, n))
        if spec.scenario not in OPEN_LOOP and not last.streams:  # a closed loop's shard
            raise ConfigError(f"--workers {n} needs at least {n} streams (--concurrency)")
    start_wall = time.time() + (15.0 if options.ray_address else 2.0 + 0.5 * n)
    run_id = secrets.token_hex(6) if lanes is not None else None  # one for every worker
    specs = [ShardSpec(shard=k, shards=n, recipe=workload.recipe, url=url,
                       api_key_env=options.api_key_env, load=spec, options=run.replay,
                       records_path=str(out / f"records.shard-{k}.jsonl"),
                       start_wall=start_wall, skip=skip, transport=options.transport,
                       api_key_header=options.api_key_header, run_id=run_id)
             for k in range(n)]
    stop = asyncio.Event()
    _stopper(early, stop.set, options.quiet)
    _install_signals(stop.set, None)

    def on_records(batch: list[dict[str, Any]]) -> None:
        for rec in batch:
            sink(rec)

    try:
        if options.ray_address:
            from agentic_bench.load.ray_executor import run_ray

            reports = await run_ray(specs, on_records, stop, options.ray_address,
                                    options.workers_per_node, gated=lanes is not None)
        else:
            from agentic_bench.load.process_pool import run_processes

            reports = await run_processes(specs, on_records, stop, gated=lanes is not None)
    finally:
        _remove_signals()
    failed = [r for r in reports if "failed" in r]
    for r in failed:
        print(f"error: worker shard {r['shard']} failed: {r['failed']}", file=sys.stderr)
    ok = [r for r in reports if "failed" not in r]
    reasons = {r["stop_reason"] for r in ok}
    reason = ("worker_failed" if failed else "interrupted" if "interrupted" in reasons
              else next(iter(reasons), "done"))
    if lanes is not None:
        _merge_lanes(lanes, ok, reason, sink, options.quiet)
    return Segment(
        duration_s=max((r["duration_s"] for r in ok), default=0.0), stop_reason=reason,
        issued=sum(r["issued"] for r in ok),
        cancelled=sum(r["cancelled"] for r in ok) + len(failed), workers=reports)


def _merge_lanes(lanes: LaneSpec, reports: list[dict[str, Any]], reason: str, sink: RecordSink,
                 quiet: bool) -> None:
    """The run's one ``lanes`` record from the workers' (each taken out of its report), and
    the spread of their measured-phase starts on stderr."""
    from agentic_bench.load.lane_shards import merged_lanes_record

    record = merged_lanes_record(lanes, [r.pop("lanes") for r in reports if "lanes" in r],
                                 reason)
    for report, part in zip(reports, record["per_worker"], strict=False):
        report["measured_start_wall_ns"] = part["measured_start_wall_ns"]
    sink(record)
    spread = record["measured_start_spread_ms"]
    if not quiet and spread is not None:
        print(f"lanes: {record['workers']} workers, measured phase began within "
              f"{spread:.1f} ms of each other", file=sys.stderr)


async def _noop(_: Any) -> Any:  # pragma: no cover - placeholder executor for counting
    raise AssertionError


_HITS = [0]  # SIGINT/SIGTERM taken by a segment's handlers in this process (sweeps read it)
_BEFORE: dict[int, Any] = {}  # the handlers a segment's replaced, put back when it ends


def interrupts() -> int:
    """How many SIGINT/SIGTERM the segments' handlers have taken in this process: a sweep or
    search stops after a point whose segment took one (run/sweep.py)."""
    return _HITS[0]


def _install_signals(stop: Callable[[], None], cancel: Callable[[], None] | None) -> None:
    loop = asyncio.get_running_loop()
    hits = {"n": 0}

    def handler() -> None:
        hits["n"] += 1
        _HITS[0] += 1
        if hits["n"] == 1:
            print("\nstopping: no new sessions; finishing in-flight ones "
                  "(Ctrl-C again to cancel them)", file=sys.stderr)
            stop()
        elif cancel is not None:
            cancel()  # no grace left; the validated options stay as they were

    for sig in (signal.SIGINT, signal.SIGTERM):
        _BEFORE[sig] = signal.getsignal(sig)
        loop.add_signal_handler(sig, handler)


def _remove_signals() -> None:
    """The loop's handlers off, and the ones before them back (asyncio would leave the
    defaults: a SIGTERM while a sweep writes a point's summary would end the process)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.remove_signal_handler(sig)
        before = _BEFORE.pop(sig, None)
        if before is not None:
            signal.signal(sig, before)
