"""Rebuild a run's summary from ``records.jsonl`` (``agentic-bench report`` and ``compare``).

The numbers come from :func:`agentic_bench.metrics.aggregate.summarize` over the records, so
they are the run's own numbers. What records cannot hold — the run's duration (runner start →
last session done), whether it completed, its stop reason, the benchmark's default SLOs, the
task's accuracy and the package versions — is taken from an existing ``summary.json``. Without
one, the duration is the sum of the records' ``segment`` lines (else first send → last end),
completeness is inferred, accuracy is left out, and the summary says so under ``regenerated``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentic_bench.errors import UsageError
from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.host_cpu import summarize_host_cpu
from agentic_bench.metrics.summary_model import Summary, why_invalid
from agentic_bench.records.stream import RecordStream, run_records_path
from agentic_bench.records.types import check_version

Record = dict[str, Any]


@dataclass
class RunData:
    path: Path
    summary: dict[str, Any]
    # the run's records: records.jsonl read line by line on each pass (a RecordStream), never
    # held whole; [] when the folder has none
    records: Iterable[Record]
    notes: list[str] = field(default_factory=list)


def _base_keys() -> set[str]:
    """The keys summarize() produces itself; everything else in a summary is run metadata."""
    return set(summarize([], RunInfo(benchmark="-", complete=True, duration_s=1.0)))


def run_record(records: Iterable[Record]) -> Record:
    return next((r for r in records if r.get("type") == "run"), {})


def regenerate_summary(records: Iterable[Record], given: Summary | dict[str, Any] | None,
                       truncated_lines: int = 0) -> tuple[dict[str, Any], list[str]]:
    """Summary of ``records`` (a list, or a stream each pass reads again); ``given`` (the
    run's summary.json) supplies the run facts records do not hold. Returns the summary and
    notes on anything that had to be derived."""
    run = run_record(records)
    if given is not None:
        previous = Summary.of(given)
        base = _base_keys()
        info = RunInfo(
            benchmark=previous.benchmark or run.get("benchmark", "unknown"),
            complete=previous.complete,
            duration_s=float(previous.duration_s or 0.0),
            stop_reason=previous.stop_reason,
            slos=dict(previous.slos),
            config=dict(previous.config if "config" in previous.model_fields_set
                        else run.get("config") or {}),
            accuracy=previous.accuracy,
            # the run metadata summarize() does not make, copied whole as summary.json has it
            extra={k: v for k, v in previous.to_dict().items() if k not in base},
            planned_turns=previous.counts.given("turns"),
            truncated_record_lines=truncated_lines,
        )
        return summarize(records, info), []
    return _from_records_only(records, run, truncated_lines)


def _from_records_only(records: Iterable[Record], run: Record,
                       truncated_lines: int) -> tuple[dict[str, Any], list[str]]:
    segments: list[Record] = []
    done: set[Any] = set()
    started: set[Any] = set()
    first_sent: int | None = None
    last_end: int | None = None
    for r in records:  # one pass: the few facts the run's duration and completeness need
        rtype = r.get("type")
        if rtype == "segment":
            segments.append(r)
        elif rtype == "session":
            done.add(r.get("session_id"))
        elif rtype == "step":
            started.add(r.get("session_id"))
            if r.get("t_sent_ns") is not None:
                first_sent = r["t_sent_ns"] if first_sent is None else min(first_sent,
                                                                           r["t_sent_ns"])
            if r.get("t_end_ns") is not None:
                last_end = r["t_end_ns"] if last_end is None else max(last_end, r["t_end_ns"])
    config = dict(run.get("config") or {})
    load = config.get("load") or {}
    planned = load.get("sessions")
    complete = started <= done and (planned is None or len(done) >= planned)
    if segments:
        duration = sum(float(r.get("duration_s") or 0.0) for r in segments)
        stop_reason = str(segments[-1].get("stop_reason") or "unknown")
        complete = complete and stop_reason != "interrupted"
        how = f"duration from the records' segment lines: {duration:.3f} s"
    else:
        duration = ((last_end - first_sent) / 1e9 if first_sent is not None
                    and last_end is not None else 0.0)
        stop_reason = "unknown"
        how = (f"duration derived from the records (first request sent → last step ended: "
               f"{duration:.3f} s), so throughput may differ slightly from the run's own")
    notes = [
        f"no summary.json: {how}",
        f"completeness inferred from the records: {complete} (every started session finished"
        + (f", {len(done)}/{planned} planned sessions" if planned is not None else "") + ")",
        "accuracy is not recomputed (it needs the task's scorer); SLOs are the --slo options "
        "stored in the run record (a benchmark's default SLOs are not)",
    ]
    extra: dict[str, Any] = {"scenario": load, "endpoint": run.get("endpoint") or {}}
    host = summarize_host_cpu(segments)
    if host:
        extra["host_cpu"] = host
    if isinstance(run.get("started_at"), int | float):
        extra["started_at"] = dt.datetime.fromtimestamp(run["started_at"], dt.UTC).isoformat()
    extra["regenerated"] = "; ".join(notes)
    info = RunInfo(
        benchmark=run.get("benchmark", "unknown"), complete=complete, duration_s=duration,
        stop_reason=stop_reason, slos=dict(config.get("slos") or {}), config=config,
        extra=extra, truncated_record_lines=truncated_lines,
    )
    return summarize(records, info), notes


def _read_summary(path: Path) -> tuple[Summary | None, list[str]]:
    if not path.exists():
        return None, []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return None, [f"{path}: unreadable ({exc}); ignored"]
    if not isinstance(data, dict):
        return None, [f"{path}: not a summary object; ignored"]
    try:
        return Summary.model_validate(data), []
    except ValidationError as exc:
        return None, [f"{path}: not a summary ({why_invalid(exc)}); ignored"]


def load_run(run_dir: Path, *, regenerate: bool) -> RunData:
    """Read a run directory. ``regenerate``: rebuild the summary from records.jsonl (required
    then); otherwise use summary.json and fall back to rebuilding when it is absent."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: not a directory")
    records_path = run_records_path(run_dir)
    previous, notes = _read_summary(run_dir / "summary.json")
    rebuild = regenerate or previous is None
    records: Iterable[Record] = []
    if records_path.exists():
        stream = RecordStream(records_path)  # each pass reads the file line by line
        records = stream
        try:
            check_version(stream)
        except ValueError as exc:
            raise UsageError(f"{records_path}: {exc}") from None
        if rebuild and next(iter(stream), None) is None:
            raise UsageError(f"{records_path}: no records in the file")
        if rebuild:  # the summary's pass counts the unreadable lines
            rebuilt, more = regenerate_summary(stream, previous)
            typed = Summary.of(rebuilt)  # the pass that summarised counted the lines
            typed.harness.truncated_record_lines = stream.truncated_lines
            summary = typed.to_dict()
        else:
            summary, more = previous.to_dict() if previous is not None else {}, []
            for _ in stream:  # count the unreadable lines, one line at a time
                pass
        if stream.truncated_lines:
            notes.append(f"{records_path}: skipped {stream.truncated_lines} unreadable line(s)")
        return RunData(run_dir, summary, records, notes + more)
    if rebuild or previous is None:
        raise UsageError(f"{run_dir}: no records.jsonl (is this a run output directory? "
                         "runs write records.jsonl, summary.json and summary.txt to --out DIR)")
    notes.append(f"{run_dir}: no records.jsonl; distributions are not available")
    return RunData(run_dir, previous.to_dict(), records, notes)
