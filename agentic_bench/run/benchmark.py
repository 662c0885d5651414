"""Composition root: endpoint + workload + load runner + records + summary.

Everything a run needs is resolved and checked *before* the first request: a bad trace,
option or endpoint raises a :class:`~agentic_bench.errors.UsageError` and nothing is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import platform
import signal
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from agentic_bench import __version__
from agentic_bench.contracts import ExecContext, RecordSink, Segment, Workload
from agentic_bench.endpoint.resolve import Endpoint, open_endpoint
from agentic_bench.errors import ConfigError
from agentic_bench.load import gc_policy
from agentic_bench.load.lanes import LaneRunner
from agentic_bench.load.runner import LoadRunner
from agentic_bench.metrics.aggregate import RunInfo, summary_of
from agentic_bench.metrics.early_stop import FirstFailures
from agentic_bench.metrics.host_cpu import read_ticks, segment_fields, summarize_host_cpu
from agentic_bench.metrics.resume import ResumeState, prepare_resume
from agentic_bench.metrics.tally import RunTally
from agentic_bench.options.files import write_run_config
from agentic_bench.options.load import OPEN_LOOP, LaneSpec, LoadSpec
from agentic_bench.options.run import RunConfig
from agentic_bench.records.stream import RecordWriter
from agentic_bench.records.types import RECORD_VERSION
from agentic_bench.reporting.files import write_summary
from agentic_bench.reporting.progress import Progress
from agentic_bench.reporting.report_sample import read_report_records, sample_note, sessions_every
from agentic_bench.server_metrics.digest import digest as server_digest
from agentic_bench.server_metrics.energy import EnergyProbe, energy_block
from agentic_bench.transport.base import ChatTransport
from agentic_bench.workload import session_executor


def claim_out(out: Path, *, resume: bool, overwrite: bool) -> None:
    """Refuse an output folder that already holds a run, unless it is resumed, or replaced
    with ``--overwrite`` (its entries then move to ``replaced-<time>/`` inside it: nothing of
    the earlier run is deleted, and nothing of it mixes into the new one)."""
    records = out / "records.jsonl"
    if resume or not records.exists():
        return
    if not overwrite:
        raise ConfigError(f"{out} already holds a run ({records.name}); pass --resume {out} "
                          "to continue it, --overwrite to move it aside and start anew, or "
                          "another --out")
    aside = out / f"replaced-{dt.datetime.now().strftime('%Y%m%d-%H%M%S-%f')}"
    aside.mkdir()
    for entry in list(out.iterdir()):
        if entry != aside and not entry.name.startswith("replaced-"):
            entry.rename(aside / entry.name)


def default_out(name: str) -> Path:
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{name}-{stamp}"


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"agentic-bench": __version__, "python": platform.python_version(),
           "platform": platform.platform()}
    for pkg in ("aiohttp", "pydantic", "llama_cpp_python", "bfcl-eval", "faiss-cpu",
                "sentence-transformers", "langgraph"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            continue
    return out


def run_workload(workload: Workload, config: RunConfig) -> dict[str, Any]:
    """Run synchronously (installs SIGINT/SIGTERM handlers); returns the summary.

    Uses uvloop when installed (lower per-chunk client cost, see docs/transport.md).
    """
    try:
        import uvloop
    except ImportError:
        return asyncio.run(_run(workload, config))
    return uvloop.run(_run(workload, config))


async def _run(workload: Workload, config: RunConfig) -> dict[str, Any]:
    out = config.out or default_out(workload.name)
    api_key = os.environ.get(config.api_key_env) or None
    slos = {**workload.default_slos, **config.slos}
    # the run's own copies: the caller's config is never changed (a sweep reuses it)
    config = replace(config, options=replace(
        config.options, overrides={**workload.default_overrides, **config.options.overrides}))
    spec = config.load  # checked once, when the options became this config
    claim_out(out, resume=config.resume, overwrite=config.overwrite)
    streams = max(1, spec.concurrency or 1)
    if config.loadgen is not None and not spec.concurrency:
        streams = min(workload.source.size, 64)
    lanes = config.lanes if workload.trees else None
    if lanes is not None:
        streams = lanes.lanes
    async with open_endpoint(config.endpoint, config.model, api_key, max_connections=0,
                             request_timeout_s=config.options.request_timeout_s,
                             warm_connections=min(streams, 256),
                             server_log=out / "server.log",
                             api_key_header=config.api_key_header,
                             slots=streams, tool_routing=workload.tool_routing,
                             transport_kind=config.transport) as endpoint:
        config = replace(config, options=replace(config.options, model=endpoint.model))
        if workload.prepare is not None:  # e.g. the tokenizer prompts are written with
            workload.info.update(workload.prepare(endpoint.target, api_key))
        described = workload.info if workload.identity is None else workload.identity
        identity = {"benchmark": workload.name, **described}
        resumed = (prepare_resume(out, config.public(), identity,
                                  retry_errors=config.retry_errors,
                                  options=config.identity) if config.resume
                   else ResumeState())
        out.mkdir(parents=True, exist_ok=True)
        write_run_config(out, config.command or workload.name, config.options_shown)
        writer = RecordWriter(out / "records.jsonl").open()
        # the run keeps its summary's inputs (metrics/tally.py), not its records; a task that
        # scores or writes artifacts from whole records (small accuracy runs) keeps those too
        keep = workload.score is not None or workload.write_artifacts is not None
        records: list[dict[str, Any]] | None = list(resumed.records) if keep else None
        tally = RunTally(slos)
        for record in resumed.records if records is None else records:  # read line by line
            tally.add(record)
        planned = (None if config.loadgen is not None else
                   LaneRunner(lanes, workload.source, _noop).planned_sessions()
                   if lanes is not None
                   else LoadRunner(spec, workload.source, _noop).planned_sessions())
        progress = Progress(total=None if planned is None else planned - len(resumed.done),
                            quiet=config.quiet)
        if config.resume and not config.quiet:
            left = "" if planned is None else f", {max(planned - len(resumed.done), 0)} left"
            print(f"resuming {out}: {len(resumed.done)} sessions done{left}", file=sys.stderr,
                  flush=True)

        early = FirstFailures(config.stop_after_failures if config.loadgen is None else 0)

        def sink(record: dict[str, Any]) -> None:
            writer.write(record)
            tally.add(record)
            if records is not None:
                records.append(record)
            progress.on_record(record)
            early.observe(record)
            if record.get("type") == "session":
                gc_policy.settle()

        started = time.time()
        t0 = perf_counter_ns()
        sink({"type": "run", "record_version": RECORD_VERSION, "benchmark": workload.name,
              "started_at": started,
              "config": config.public(), "options": config.options_shown,
              **({"command_line": config.command_line} if config.command_line else {}),
              "workload": identity,
              "endpoint": {"url": endpoint.url, "kind": endpoint.kind,
                           "model": endpoint.model}})
        cpu0 = time.process_time()
        ticks0 = read_ticks()
        probe = EnergyProbe(local_endpoint=_local(endpoint))
        scraped = scraped_urls(config, endpoint)
        probe.begin()
        progress.start()
        try:
            async with _scraping(scraped, config, out, t0):  # --server-metrics meanwhile
                with gc_policy.measured_phase():  # no full GC pass over kept records
                    seg: Segment
                    if config.loadgen is not None:
                        from agentic_bench.loadgen.run import run_with_loadgen

                        seg = await run_with_loadgen(workload, config, endpoint, out, sink,
                                                     t0_ns=t0)
                    elif lanes is not None:
                        seg = await _in_lanes(workload, config, lanes, endpoint.transport, t0,
                                              sink, resumed.done, early)
                    elif config.workers > 1 or config.ray_address:
                        seg = await _sharded(workload, config, spec, endpoint.target, out,
                                             resumed.done, sink, early)
                    else:
                        seg = await _in_process(workload, config, spec, endpoint.transport, t0,
                                                sink, resumed.done, early)
                    if early.triggered:
                        seg.stop_reason = "all_failed"
                    sink({"type": "segment", "duration_s": seg.duration_s,
                          "stop_reason": seg.stop_reason, "issued": seg.issued,
                          "resumed": config.resume, **segment_fields(ticks0)})
        finally:
            progress.stop()
            writer.close()
            used_j = probe.end()
        # an interrupt that came when every planned session had already finished loses nothing
        all_done = (planned is not None and spec.duration_s is None
                    and len(resumed.done) + seg.issued >= planned)
        if lanes is not None and lanes.cut and seg.stop_reason == "duration":
            all_done = True  # AgentX: the measured phase ended as asked
        complete = (seg.cancelled == 0 and seg.stop_reason != "all_failed"
                    and (seg.stop_reason != "interrupted" or all_done))
        accuracy = getattr(seg, "accuracy", None)  # LoadGen accuracy mode: its logged sessions
        if accuracy is None and workload.score:
            accuracy = workload.score(records or [])
        info = RunInfo(
            benchmark=workload.name, complete=complete,
            duration_s=resumed.previous_duration_s + seg.duration_s, stop_reason=seg.stop_reason,
            slos=slos, config=config.public(), accuracy=accuracy,
            truncated_record_lines=resumed.truncated_lines,
            extra={
                "started_at": dt.datetime.fromtimestamp(started, dt.UTC).isoformat(),
                "scenario": asdict(spec),
                "endpoint": {"url": endpoint.url, "kind": endpoint.kind,
                             "model": endpoint.model,
                             "client": getattr(endpoint.transport, "client_name", None)
                             or type(endpoint.transport).__name__, **endpoint.info},
                "workload": workload.info,
                "versions": versions(),
                "client_cpu_s": time.process_time() - cpu0,
                **_host_cpu(tally.kept),
                "out_dir": str(out),
                **({"command_line": config.command_line} if config.command_line else {}),
                "resumed_sessions": len(resumed.done),
                **({"planned_sessions": planned} if planned is not None else {}),
                **({"resume_command": _resume_command(config, workload.name, out)}
                   if not complete else {}),
                **({"workers": seg.workers} if seg.workers is not None else {}),
                **({"loadgen": lg} if (lg := getattr(seg, "loadgen", None)) else {}),
                **({"agentx": config.agentx} if config.agentx is not None else {}),
                **({"server_metrics": server_digest(out)} if scraped else {}),
            },
        )
        summary = summary_of(tally, info)
        every = 1 if records is not None else sessions_every(summary["counts"]["requests"])
        if every > 1:
            summary["report_sample"] = sample_note(every, summary["counts"]["requests"])
        summary["energy"] = energy_block(used_j, probe, summary.get("server_metrics"),
                                         summary.get("counts") or {})
        write_summary(out, summary)
        if workload.write_artifacts is not None:
            try:
                workload.write_artifacts(out, summary, records or [])
            except Exception as exc:  # an artifact bug must not change the run's result
                print(f"warning: {workload.name} artifacts not written: "
                      f"{type(exc).__name__}: {exc}", file=sys.stderr)
        from agentic_bench.reporting.reporters import run_reporters

        if records is None:  # streamed back from the file (a sample of sessions in a long run)
            records, _ = read_report_records(out / "records.jsonl", every)
        _, warnings = run_reporters(out, summary, records)  # report.html and reporter plugins
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
    return summary


def _local(endpoint: Endpoint) -> bool:
    """Whether the endpoint's server runs on this machine (its GPUs are ours to read)."""
    from urllib.parse import urlsplit

    if endpoint.kind in ("embedded", "inproc", "llama-server", "llama-cpp-python"):
        return True
    host = urlsplit(endpoint.target).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def scraped_urls(config: RunConfig, endpoint: Endpoint) -> list[str]:
    """``--server-metrics``, else the endpoint's own ``/metrics`` (and ``/slots``) when we
    started a server that has them (``llama-server``, the embedded endpoint's default)."""
    return list(config.server_metrics) or list(endpoint.info.get("metrics_urls") or [])


def _scraping(urls: list[str], config: RunConfig, out: Path,
              t0: int) -> contextlib.AbstractAsyncContextManager[Any]:
    """The scraper running for the run's duration (nothing without URLs)."""
    if not urls:
        return contextlib.nullcontext()
    from agentic_bench.server_metrics import MetricsScraper

    return MetricsScraper(urls, out, t0, config.server_metrics_interval_s)


def _resume_command(config: RunConfig, name: str, out: Path) -> str:
    """How to continue an interrupted run: its own options come from DIR/config.yaml."""
    import shlex

    head = "agentic-bench replay" if (config.command or name) == "replay" else \
        f"agentic-bench run {config.command or name}"
    return f"{head} --resume {shlex.quote(str(out))}"


def _host_cpu(records: list[dict[str, Any]]) -> dict[str, Any]:
    host = summarize_host_cpu(r for r in records if r.get("type") == "segment")
    return {"host_cpu": host} if host else {}


def _stopper(early: FirstFailures, stop: asyncio.Event, quiet: bool) -> None:
    """The first requests all failed: stop issuing, and say so at once."""
    def trigger() -> None:
        if not quiet:
            print(f"\nstopping: the first {early.n} requests all failed (an endpoint that "
                  "cannot serve this run; --stop-after-failures 0 runs on regardless)",
                  file=sys.stderr, flush=True)
        stop.set()

    early.stop = trigger


async def _in_process(workload: Workload, config: RunConfig, spec: LoadSpec,
                      transport: ChatTransport, t0: int, sink: RecordSink,
                      skip: set[int], early: FirstFailures) -> Segment:
    ctx = ExecContext(transport, sink, t0, config.options, transport_kind=config.transport)
    runner = LoadRunner(spec, workload.source, session_executor(workload, ctx), skip=skip)
    _stopper(early, runner.stop_event, config.quiet)
    _install_signals(runner.stop_event, runner)
    try:
        stats = await runner.run()
    finally:
        _remove_signals()
        await ctx.close_extras()
    return Segment((stats.t_end_ns - stats.t_start_ns) / 1e9, stats.stop_reason, stats.issued,
                   stats.cancelled)


async def _in_lanes(workload: Workload, config: RunConfig, lanes: LaneSpec,
                    transport: ChatTransport, t0: int, sink: RecordSink, skip: set[int],
                    early: FirstFailures) -> Segment:
    """Agent trees in lanes (load/lanes.py); a ``lanes`` record says how full they were."""
    ctx = ExecContext(transport, sink, t0, config.options, transport_kind=config.transport)
    runner = LaneRunner(lanes, workload.source, session_executor(workload, ctx), sink, skip)
    _stopper(early, runner.stop_event, config.quiet)
    _install_signals(runner.stop_event, None)
    try:
        stats = await runner.run()
    finally:
        _remove_signals()
        await ctx.close_extras()
    sink(runner.lanes_record())
    return Segment((stats.t_end_ns - stats.t_start_ns) / 1e9, stats.stop_reason, stats.issued,
                   stats.cancelled)


async def _sharded(workload: Workload, config: RunConfig, spec: LoadSpec, url: str, out: Path,
                   skip: set[int], sink: RecordSink, early: FirstFailures) -> Segment:
    """Shards of the one global schedule in worker processes or Ray actors."""
    from agentic_bench.load.shard_worker import ShardSpec

    if workload.recipe is None:
        raise ConfigError("--workers/--ray-address need a workload that can be rebuilt in a "
                          "worker (a trace replay or a registered benchmark)")
    if url == "inproc":
        raise ConfigError("--endpoint inproc cannot be shared by worker processes")
    n = config.workers
    if spec.scenario not in OPEN_LOOP and (spec.streams or 1) < n:
        raise ConfigError(f"--workers {n} needs at least {n} streams (--concurrency)")
    start_wall = time.time() + (15.0 if config.ray_address else 2.0 + 0.5 * n)
    specs = [ShardSpec(shard=k, shards=n, recipe=workload.recipe, url=url,
                       api_key_env=config.api_key_env, load=spec, options=config.options,
                       records_path=str(out / f"records.shard-{k}.jsonl"),
                       start_wall=start_wall, skip=skip, transport=config.transport,
                       api_key_header=config.api_key_header)
             for k in range(n)]
    stop = asyncio.Event()
    _stopper(early, stop, config.quiet)
    _install_signals(stop, None)

    def on_records(batch: list[dict[str, Any]]) -> None:
        for rec in batch:
            sink(rec)

    try:
        if config.ray_address:
            from agentic_bench.load.ray_executor import run_ray

            reports = await run_ray(specs, on_records, stop, config.ray_address,
                                    config.workers_per_node)
        else:
            from agentic_bench.load.process_pool import run_processes

            reports = await run_processes(specs, on_records, stop)
    finally:
        _remove_signals()
    failed = [r for r in reports if "failed" in r]
    for r in failed:
        print(f"error: worker shard {r['shard']} failed: {r['failed']}", file=sys.stderr)
    ok = [r for r in reports if "failed" not in r]
    reasons = {r["stop_reason"] for r in ok}
    reason = ("worker_failed" if failed else "interrupted" if "interrupted" in reasons
              else next(iter(reasons), "done"))
    return Segment(
        duration_s=max((r["duration_s"] for r in ok), default=0.0), stop_reason=reason,
        issued=sum(r["issued"] for r in ok),
        cancelled=sum(r["cancelled"] for r in ok) + len(failed), workers=reports)


async def _noop(_: Any) -> Any:  # pragma: no cover - placeholder executor for counting
    raise AssertionError


def _install_signals(stop: asyncio.Event, runner: LoadRunner | None) -> None:
    loop = asyncio.get_running_loop()
    hits = {"n": 0}

    def handler() -> None:
        hits["n"] += 1
        if hits["n"] == 1:
            print("\nstopping: no new sessions; finishing in-flight ones "
                  "(Ctrl-C again to cancel them)", file=sys.stderr)
            stop.set()
        elif runner is not None:
            runner.cancel_all()  # no grace left; the validated options stay as they were

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, handler)


def _remove_signals() -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.remove_signal_handler(sig)
