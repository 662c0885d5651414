"""Summary assembly: from a finished run's tally (:mod:`agentic_bench.metrics.tally`) and what
it knows of itself (:class:`RunFacts`) to ``summary.json``/``summary.txt``, the workload's
artifacts and the reports (report.html and reporter plugins)."""

from __future__ import annotations

import datetime as dt
import platform
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agentic_bench import __version__
from agentic_bench.contracts import Segment, Workload
from agentic_bench.endpoint.resolve import Endpoint
from agentic_bench.metrics.aggregate import RunInfo, summary_of
from agentic_bench.metrics.host_cpu import summarize_host_cpu
from agentic_bench.metrics.resume import ResumeState
from agentic_bench.metrics.summary_model import Intervals, Summary
from agentic_bench.metrics.tally import RunTally
from agentic_bench.reporting.files import write_summary
from agentic_bench.reporting.report_sample import read_report_records, sample_note, sessions_every
from agentic_bench.run.folder import resume_command
from agentic_bench.run.plan import Run
from agentic_bench.server_metrics.digest import digest as server_digest
from agentic_bench.server_metrics.energy import EnergyProbe, energy_block
from agentic_bench.trace.fidelity_records import summary_fidelity
from agentic_bench.trace.prefix_lru_run import run_finite_prefix_hit


@dataclass(frozen=True)
class RunFacts:
    """What a finished run knows of itself, besides its records: what ran where, what a
    resume had done before, the segment it measured, and its start (wall clock and this
    process's CPU time)."""

    workload: Workload
    run: Run
    endpoint: Endpoint
    out: Path
    slos: dict[str, float]
    resumed: ResumeState
    planned: int | None
    segment: Segment
    started: float  # time.time() at the run record
    cpu0: float  # time.process_time() as the segment began
    scraped: bool  # server metrics were scraped into out
    unwritten: dict[str, Any] | None = None  # records the disk refused: count and error


def complete(facts: RunFacts) -> bool:
    """Whether the run did all it was asked: nothing cancelled, not stopped for failing, and
    not interrupted — unless the interrupt came when every planned session had finished
    (nothing lost) or an AgentX measured phase ended as asked."""
    seg, lanes = facts.segment, facts.run.lanes
    all_done = (facts.planned is not None and facts.run.options.duration is None
                and len(facts.resumed.done) + seg.issued >= facts.planned)
    if lanes is not None and lanes.cut and seg.stop_reason == "duration":
        all_done = True  # AgentX: the measured phase ended as asked
    return (seg.cancelled == 0 and seg.stop_reason not in ("all_failed", "records_unwritable",
                                                             "failed_request_threshold")
            and (seg.stop_reason != "interrupted" or all_done))


def run_info(facts: RunFacts, tally: RunTally,
             records: list[dict[str, Any]] | None) -> RunInfo:
    """The run's :class:`~agentic_bench.metrics.aggregate.RunInfo`: its verdict's inputs
    besides the tally, and what ``summary.json`` says of where and how it ran. ``records``:
    the whole records, kept only for a workload that scores them."""
    workload, run, endpoint, seg, out = (facts.workload, facts.run, facts.endpoint,
                                         facts.segment, facts.out)
    done = complete(facts)
    accuracy = getattr(seg, "accuracy", None)  # LoadGen accuracy mode: its logged sessions
    if accuracy is None and workload.score:
        accuracy = workload.score(records or [])
    return RunInfo(
        benchmark=workload.name, complete=done,
        duration_s=facts.resumed.previous_duration_s + seg.duration_s,
        stop_reason=seg.stop_reason, slos=facts.slos, config=run.public(), accuracy=accuracy,
        truncated_record_lines=facts.resumed.truncated_lines,
        extra={
            "started_at": dt.datetime.fromtimestamp(facts.started, dt.UTC).isoformat(),
            "scenario": asdict(run.options.load),
            "endpoint": {"url": endpoint.url, "kind": endpoint.kind,
                         "model": endpoint.model,
                         "client": getattr(endpoint.transport, "client_name", None)
                         or type(endpoint.transport).__name__, **endpoint.info},
            "workload": workload.info,
            "versions": versions(),
            "client_cpu_s": time.process_time() - facts.cpu0,
            **_host_cpu(tally.kept),
            "out_dir": str(out),
            **({"command_line": rerun} if (rerun := run.command_line) else {}),
            "resumed_sessions": len(facts.resumed.done),
            **({"planned_sessions": facts.planned} if facts.planned is not None else {}),
            **({"resume_command": resume_command(run.command, workload.name, out)}
               if not done else {}),
            **({"workers": seg.workers} if seg.workers is not None else {}),
            **({"loadgen": lg} if (lg := getattr(seg, "loadgen", None)) else {}),
            **({"agentx": rules} if (rules := run.agentx) is not None else {}),
            **({"server_metrics": _server_metrics(out)} if facts.scraped else {}),
            **({"records_unwritten": facts.unwritten} if facts.unwritten else {}),
        },
    )


def _server_metrics(out: Path) -> dict[str, Any] | None:
    """The scrapes' digest; reading them after the run never costs the run its summary: a
    digest that fails is a line in the summary (``error``) and a warning."""
    try:
        return server_digest(out)
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"[:300]
        print(f"warning: the server metrics could not be digested ({reason}); the run's "
              "results are kept", file=sys.stderr)
        return {"error": f"not digested: {reason}"}


def _intervals(out: Path, summary: Summary, slos: dict[str, float],
               records: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The headline figures' 95 % intervals (metrics/intervals.py), from the kept records or
    read back from records.jsonl; like the server metrics' digest, a failure here is a line in
    the summary and a warning, never the run's results."""
    from agentic_bench.metrics.intervals import budget_fraction, intervals, kept_records
    from agentic_bench.records.stream import run_records_path

    try:
        source = records if records is not None else kept_records(
            run_records_path(out), budget_fraction(summary))
        return intervals(source, summary, slos)
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"[:300]
        print(f"warning: confidence intervals not computed ({reason})", file=sys.stderr)
        return {"error": f"not computed: {reason}"}


def write_outputs(facts: RunFacts, tally: RunTally, records: list[dict[str, Any]] | None,
                  used_j: dict[str, float], probe: EnergyProbe) -> dict[str, Any]:
    """Write ``summary.json``/``summary.txt``, the workload's artifacts and the reports; return
    the summary. ``records``: the whole records when the workload keeps them, else None (the
    reports then read a sample of sessions back from ``records.jsonl``)."""
    out, workload = facts.out, facts.workload
    typed = Summary.of(summary_of(tally, run_info(facts, tally, records)))  # read by attribute
    requests = typed.counts.requests
    every = 1 if records is not None else sessions_every(requests)
    if every > 1:
        typed.report_sample = sample_note(every, requests)
    typed.energy = energy_block(used_j, probe, typed.server_metrics, typed.counts.to_dict())
    if (fidelity := summary_fidelity(workload.info, workload.source, out / "records.jsonl")):
        typed.fidelity = fidelity  # an imported trace's replay: planned vs sent
    capacities = getattr(facts.run.options, "cache_capacities", ())
    if capacities and typed.trees is not None:  # after the run, never on the measured path
        finite = run_finite_prefix_hit(out / "records.jsonl", workload.source, capacities)
        if finite is not None:
            typed.trees.setdefault("prefix_hit", {})["finite_capacity"] = finite
    typed.intervals = Intervals.model_validate(_intervals(out, typed, facts.slos, records))
    if records is not None and typed.accuracy is not None:  # a scored run: its task goodput
        from agentic_bench.metrics.scored_tasks import task_goodput_block
        from agentic_bench.metrics.summary_model import ScoredTasks

        trials = workload.info.get("trials")  # --trials K: pass^k over trials 0 … K − 1
        block = task_goodput_block(records, facts.slos, float(typed.duration_s),
                                   int(trials) if trials else 1)
        if block is not None:
            typed.tasks = ScoredTasks.model_validate(block)
    summary = typed.to_dict()  # summary.json's dictionary: what artifacts and reporters take
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


def versions() -> dict[str, str]:
    """The versions of agentic-bench, Python, the platform and the libraries a run may use."""
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


def _host_cpu(records: list[dict[str, Any]]) -> dict[str, Any]:
    host = summarize_host_cpu(r for r in records if r.get("type") == "segment")
    return {"host_cpu": host} if host else {}
