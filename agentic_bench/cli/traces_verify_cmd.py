"""``agentic-bench traces verify SOURCE --against TRACE_OR_RUN_DIR``: the fidelity gate.

Profiles SOURCE in its own format (:func:`agentic_bench.trace.fidelity.source_profile`) and
the other side — a trace (our format or any importable one) or a run folder, whose records say
what the replay actually sent (:mod:`agentic_bench.trace.fidelity_records`) — prints both
side by side with each figure's tolerance (:mod:`agentic_bench.trace.fidelity_compare`) and
exits 3 when a figure is outside it (0 when none is, 2 on bad input).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agentic_bench.cli.traces_cmd import add_traces_subcommand

if TYPE_CHECKING:
    from agentic_bench.trace.profile import TraceProfile


def _configure(p: argparse.ArgumentParser) -> None:
    from agentic_bench.cli.options_command import take_remainder

    take_remainder(p)
    p.set_defaults(func=main)


add_traces_subcommand(
    "verify", _configure, help="check a trace or a replay against its source (fidelity gate)",
    add_help=False, prefix_chars="\x00")  # cli/traces_verify_options.py


def _is_run_dir(path: Path) -> bool:
    return path.is_dir() and any((path / n).is_file()
                                 for n in ("records.jsonl", "records.jsonl.gz"))


def against_profile(path: Path, fmt: str) -> tuple[TraceProfile, str]:
    """The profile of ``--against`` and what it is (``run`` or the trace's format)."""
    from agentic_bench.trace.fidelity import profile_sessions
    from agentic_bench.trace.fidelity_records import profile_run_dir
    from agentic_bench.trace.importers import import_file, resolve_format

    if _is_run_dir(path):
        return profile_run_dir(path), "run"
    resolved = resolve_format(fmt, path)
    return profile_sessions(import_file(resolved, path)), resolved


def main(namespace: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.traces_verify_options import TracesVerifyOptions
    from agentic_bench.errors import UsageError
    from agentic_bench.trace.fidelity import source_profile
    from agentic_bench.trace.fidelity_compare import compare, passed, render_table
    from agentic_bench.trace.importers import resolve_format

    args = parse_command(TracesVerifyOptions, namespace.rest, "traces verify")
    for path in (args.source, args.against):
        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
    fmt = resolve_format(args.format, args.source)
    left = source_profile(fmt, args.source)
    right, kind = against_profile(args.against, args.against_format)
    rows = compare(left, right)
    if args.json_output:
        print(json.dumps({"source": str(args.source), "format": fmt,
                          "against": str(args.against), "against_kind": kind,
                          "ok": passed(rows), "rows": [asdict(r) for r in rows],
                          "notes": {"source": left.notes, "against": right.notes}}, indent=2))
    else:
        print(f"{args.source} ({fmt}) vs {args.against} "
              f"({'run: what it sent' if kind == 'run' else kind + ' trace'})")
        print(render_table(rows, "SOURCE", "RUN" if kind == "run" else "TRACE",
                           left.notes, right.notes), end="")
    return 0 if passed(rows) else 3


__all__ = ["against_profile", "main"]
