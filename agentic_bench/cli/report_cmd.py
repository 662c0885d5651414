"""``agentic-bench report DIR``: regenerate summary.json, summary.txt and report.html from
the run's records.jsonl."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentic_bench.metrics.summary_model import Summary


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    parser = add_options_command(
        sub, "report",
        "regenerate summary.json, summary.txt and report.html from "
        "records.jsonl")
    parser.set_defaults(func=main)


def main(namespace: argparse.Namespace) -> int:
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import ReportOptions
    from agentic_bench.metrics.summary_model import Summary
    from agentic_bench.records.stream import run_records_path
    from agentic_bench.reporting.files import write_summary
    from agentic_bench.reporting.regenerate import load_run
    from agentic_bench.reporting.report_sample import (
        read_report_records,
        sample_note,
        sessions_every,
    )
    from agentic_bench.reporting.reporters import run_reporters

    args = parse_command(ReportOptions, namespace.rest, "report")
    run = load_run(args.run_dir, regenerate=True)
    summary = Summary.of(run.summary)
    task = _task(summary.benchmark)
    if task is not None and hasattr(task, "rescore"):  # accuracy recomputed, not copied
        # a task's scorer reads whole records (accuracy runs are small): the list, read once
        accuracy = task.rescore(list(run.records), summary.accuracy)
        if accuracy is not None:
            _rescored(summary, accuracy)
            run.summary = summary.to_dict()
    elif summary.accuracy is not None:
        run.notes.append(f"accuracy kept from summary.json: benchmark "
                         f"{summary.benchmark!r} is not installed or cannot "
                         "recompute it from the records")
    for note in run.notes:
        print(f"note: {note}", file=sys.stderr)
    write_summary(run.path, run.summary)
    if task is not None and hasattr(task, "write_artifacts"):
        task.write_artifacts(run.path, run.summary, list(run.records))
    shown = run.summary
    if args.session:
        from agentic_bench.errors import UsageError

        known = {r.get("session_id") for r in run.records if r.get("type") == "session"}
        if args.session not in known:
            raise UsageError(f"--session {args.session!r}: no such session in {run.path} "
                             f"(e.g. {', '.join(sorted(map(str, known))[:3])})")
        shown = {**run.summary, "waterfall_session": args.session}
    # the report's records, read line by line (a sample of sessions in a long run)
    every = sessions_every(summary.counts.requests)
    if every > 1:
        shown = {**shown, "report_sample": sample_note(every, summary.counts.requests)}
    records, read = read_report_records(run_records_path(run.path), every, args.session)
    files, warnings = run_reporters(run.path, shown, records)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    names = ", ".join(p.name for p in files) or "no report"
    print(f"{run.path}: wrote summary.json, summary.txt and {names} "
          f"({read:,} records); result {summary.result}")
    return 0


def _rescored(summary: Summary, accuracy: dict[str, Any]) -> None:
    """The accuracy a task recomputed, and the verdict again with it."""
    from agentic_bench.metrics.summary_model import Constraint
    from agentic_bench.metrics.verdict import evaluate

    summary.accuracy = accuracy
    summary.constraints = [Constraint.model_validate(row)
                           for row in evaluate(summary, summary.slos)]
    summary.result = "VALID" if all(c.ok for c in summary.constraints) else "INVALID"


def _task(benchmark: object) -> object | None:
    """The run's benchmark, when it is installed (its own rescoring and artifacts)."""
    from agentic_bench.errors import UsageError
    from agentic_bench.tasks.registry import load_task

    if not isinstance(benchmark, str):
        return None
    try:
        task: object = load_task(benchmark)
        return task
    except (UsageError, KeyError, ImportError):
        return None
