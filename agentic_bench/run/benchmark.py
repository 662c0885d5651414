"""Composition root: endpoint + workload + load runner + records + summary.

Everything a run needs is resolved and checked *before* the first request: a bad trace,
option or endpoint raises a :class:`~agentic_bench.errors.UsageError` and nothing is sent.
:func:`run_workload` opens the endpoint and the records and composes the three steps of a run:
the output folder and resume (:mod:`~agentic_bench.run.folder`), the measured segment
(:mod:`~agentic_bench.run.segments`) and the summary (:mod:`~agentic_bench.run.summary`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.endpoint.resolve import Endpoint, open_endpoint
from agentic_bench.load import gc_policy
from agentic_bench.metrics.early_stop import FirstFailures
from agentic_bench.metrics.host_cpu import read_ticks, segment_fields
from agentic_bench.metrics.tally import RunTally
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.files import write_run_config
from agentic_bench.records.stream import RecordWriter
from agentic_bench.records.types import RECORD_VERSION
from agentic_bench.reporting.progress import Progress
from agentic_bench.run.folder import announce_resume, claim_out, default_out, resumed_state
from agentic_bench.run.open_files import warn_if_short
from agentic_bench.run.plan import Run, lanes_of
from agentic_bench.run.segments import planned_sessions, run_segment, stream_count
from agentic_bench.run.summary import RunFacts, write_outputs
from agentic_bench.server_metrics.energy import EnergyProbe
from agentic_bench.transport.traceparent import new_trace_key


def run_workload(workload: Workload, options: CommonOptions,
                 command: str | None = None) -> dict[str, Any]:
    """Run ``workload`` under its validated ``options`` synchronously (installs SIGINT/SIGTERM
    handlers); returns the summary. ``command``: the benchmark's name or ``replay`` (what
    ``config.yaml`` and the rerun line name; None for a run built in code).

    Uses uvloop when installed (lower per-chunk client cost, see docs/transport.md).
    """
    try:
        import uvloop
    except ImportError:
        return asyncio.run(_run(workload, options, command))
    return uvloop.run(_run(workload, options, command))


async def _run(workload: Workload, options: CommonOptions,
               command: str | None) -> dict[str, Any]:
    if options.trials > 1:  # --trials K: each task K times, trial t seeded --seed + t
        from agentic_bench.run.trials import trial_tasks, with_trials

        tasks = trial_tasks(workload, options.sessions)
        workload = with_trials(workload, options.trials, options.seed, options.sessions)
        if options.sessions is not None:  # the first N tasks, each K times
            options = options.model_copy(update={"sessions": tasks * options.trials})
    lanes = lanes_of(workload, options)  # the run's lanes, worked out in run/plan.py only
    out = options.resume or options.out or default_out(workload.name)
    api_key = os.environ.get(options.api_key_env) or None
    slos = {**workload.default_slos, **options.slos}
    claim_out(out, resume=options.resume is not None, overwrite=options.overwrite)
    streams = stream_count(workload, options, lanes)
    warn_if_short(streams)  # the soft open-file limit raised before any connection opens
    async with open_endpoint(options.endpoint, options.model, api_key, max_connections=0,
                             request_timeout_s=options.request_timeout,
                             warm_connections=min(streams, 256),
                             server_log=out / "server.log",
                             api_key_header=options.api_key_header,
                             slots=streams, tool_routing=workload.tool_routing,
                             transport_kind=options.transport) as endpoint:
        # what the run decides: the served model, the benchmark's body defaults, the salt, the
        # key of the sessions' W3C trace ids (--traceparent, --otel-endpoint)
        trace_key = new_trace_key() if options.traced else None
        run = Run(options, command, lanes, options.replay(
            model=endpoint.model, overrides=workload.default_overrides,
            salt=secrets.token_hex(4) if options.salt else None, trace_key=trace_key))
        if workload.prepare is not None:  # e.g. the tokenizer prompts are written with
            workload.info.update(workload.prepare(endpoint.target, api_key))
        described = workload.info if workload.identity is None else workload.identity
        identity = {"benchmark": workload.name, **described}
        resumed = resumed_state(out, run, identity)
        out.mkdir(parents=True, exist_ok=True)
        write_run_config(out, command or workload.name, run.shown)
        loadgen = options.loadgen_options
        early = FirstFailures(options.stop_after_failures if loadgen is None else 0,
                              threshold=getattr(options, "failed_request_threshold", None)
                              if lanes is not None else None, floor=max(streams, 10))
        writer = RecordWriter(out / "records.jsonl")
        writer.on_error = lambda exc: early.stop_for(  # a full disk: stop issuing at once
            "records_unwritable", f"cannot write {writer.path}: {exc.strerror or exc}; no new "
            "sessions (the records written so far are kept)")
        writer.open()
        # the run keeps its summary's inputs (metrics/tally.py), not its records; a task that
        # scores or writes artifacts from whole records (small accuracy runs) keeps those too
        keep = workload.score is not None or workload.write_artifacts is not None
        records: list[dict[str, Any]] | None = list(resumed.records) if keep else None
        tally = RunTally(slos)
        for record in resumed.records if records is None else records:  # read line by line
            tally.add(record)
        planned = planned_sessions(workload, run)
        progress = Progress(total=None if planned is None else planned - len(resumed.done),
                            quiet=options.quiet, duration_s=options.duration)
        if run.resume and not options.quiet:
            announce_resume(out, len(resumed.done), planned)

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
        # a resumed run's clock goes on where the earlier segments ended: one time axis, so
        # load, peaks and time charts never lay the segments over each other
        offset_ns = resumed.previous_end_ns
        t0 = perf_counter_ns() - offset_ns
        rerun = run.command_line
        sink({"type": "run", "record_version": RECORD_VERSION, "benchmark": workload.name,
              "started_at": started,
              "config": run.public(), "options": run.shown,
              **({"command_line": rerun} if rerun else {}),
              **({"trace_key": trace_key} if trace_key else {}),
              **({"clock_offset_ns": offset_ns} if offset_ns else {}),
              "workload": identity,
              "endpoint": {"url": endpoint.url, "kind": endpoint.kind,
                           "model": endpoint.model}})
        cpu0 = time.process_time()
        ticks0 = read_ticks()
        probe = EnergyProbe(local_endpoint=_local(endpoint))
        scraped = scraped_urls(options, endpoint)
        probe.begin()
        progress.start()
        try:
            async with _scraping(scraped, options, out, t0):  # --server-metrics meanwhile
                with gc_policy.measured_phase():  # no full GC pass over kept records
                    seg = await run_segment(workload, run, endpoint, out, t0, sink,
                                            resumed.done, early)
                    sink({"type": "segment", "duration_s": seg.duration_s,
                          "stop_reason": seg.stop_reason, "issued": seg.issued,
                          "resumed": run.resume, **segment_fields(ticks0)})
        finally:
            progress.stop()
            writer.close()
            used_j = probe.end()
        facts = RunFacts(workload=workload, run=run, endpoint=endpoint, out=out,
                         slos=slos, resumed=resumed, planned=planned, segment=seg,
                         started=started, cpu0=cpu0, scraped=bool(scraped),
                         unwritten=None if writer.error is None else {
                             "records": writer.lost, "error": str(writer.error)})
        summary = write_outputs(facts, tally, records, used_j, probe)
    if options.otel_endpoint is not None:  # the run is written; a failed export only warns
        from agentic_bench.export.otel_export import export_after_run

        export_after_run(out, options.otel_endpoint, quiet=options.quiet)
    return summary


def _local(endpoint: Endpoint) -> bool:
    """Whether the endpoint's server runs on this machine (its GPUs are ours to read)."""
    from urllib.parse import urlsplit

    if endpoint.kind in ("embedded", "inproc", "llama-server"):
        return True
    host = urlsplit(endpoint.target).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def scraped_urls(options: CommonOptions, endpoint: Endpoint) -> list[str]:
    """``--server-metrics``, else the endpoint's own ``/metrics`` (and ``/slots``) when we
    started a server that has them (``llama-server``, the embedded endpoint's default)."""
    return list(options.server_metrics) or list(endpoint.info.get("metrics_urls") or [])


def _scraping(urls: list[str], options: CommonOptions, out: Path,
              t0: int) -> contextlib.AbstractAsyncContextManager[Any]:
    """The scraper running for the run's duration (nothing without URLs)."""
    if not urls:
        return contextlib.nullcontext()
    from agentic_bench.server_metrics import MetricsScraper

    return MetricsScraper(urls, out, t0, options.server_metrics_interval)
