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
import time
from dataclasses import replace
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.endpoint.resolve import Endpoint, open_endpoint
from agentic_bench.load import gc_policy
from agentic_bench.metrics.early_stop import FirstFailures
from agentic_bench.metrics.host_cpu import read_ticks, segment_fields
from agentic_bench.metrics.tally import RunTally
from agentic_bench.options.files import write_run_config
from agentic_bench.options.run import RunConfig
from agentic_bench.records.stream import RecordWriter
from agentic_bench.records.types import RECORD_VERSION
from agentic_bench.reporting.progress import Progress
from agentic_bench.run.folder import announce_resume, claim_out, default_out, resumed_state
from agentic_bench.run.segments import lanes_of, planned_sessions, run_segment, stream_count
from agentic_bench.run.summary import RunFacts, write_outputs
from agentic_bench.server_metrics.energy import EnergyProbe


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
    claim_out(out, resume=config.resume, overwrite=config.overwrite)
    lanes = lanes_of(workload, config)
    streams = stream_count(workload, config, lanes)
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
        resumed = resumed_state(out, config, identity)
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
        planned = planned_sessions(workload, config, lanes)
        progress = Progress(total=None if planned is None else planned - len(resumed.done),
                            quiet=config.quiet)
        if config.resume and not config.quiet:
            announce_resume(out, len(resumed.done), planned)

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
                    seg = await run_segment(workload, config, lanes, endpoint, out, t0, sink,
                                            resumed.done, early)
                    sink({"type": "segment", "duration_s": seg.duration_s,
                          "stop_reason": seg.stop_reason, "issued": seg.issued,
                          "resumed": config.resume, **segment_fields(ticks0)})
        finally:
            progress.stop()
            writer.close()
            used_j = probe.end()
        facts = RunFacts(workload=workload, config=config, endpoint=endpoint, out=out,
                         slos=slos, resumed=resumed, planned=planned, segment=seg,
                         started=started, cpu0=cpu0, scraped=bool(scraped))
        summary = write_outputs(facts, tally, records, used_j, probe)
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
