"""``agentic-bench replay TRACE``: replay a recorded trace against an endpoint."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from agentic_bench.cli.options import add_common_options, execute, run_config


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "replay", help="replay a recorded trace (JSONL) under a load scenario",
        description="Replay a trace (one session per line) against an OpenAI-compatible endpoint "
        "and write records.jsonl, summary.json and summary.txt. The trace is validated first; "
        "nothing is sent when it has a problem.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="""examples:
  agentic-bench replay traces/sample.jsonl --endpoint http://127.0.0.1:8000/v1
  agentic-bench replay TRACE --endpoint URL --scenario server --rate 4 --duration 60 \\
      --slo ttft_p99_ms=2000,tpot_p99_ms=200
  agentic-bench replay TRACE --endpoint URL --scenario concurrency --concurrency 16
  agentic-bench replay TRACE --endpoint URL --sweep concurrency=1,4,16
  agentic-bench replay rec.jsonl --format auto --endpoint URL    # a foreign format
  agentic-bench replay TRACE --resume results/replay-20261203-101500   # after Ctrl-C""")
    p.add_argument("trace", type=Path, help="trace file (JSONL, see docs/trace-format.md)")
    p.add_argument("--format", default="native", metavar="FORMAT",
                   help="native (default), auto, mlcommons-agentic, mooncake, otel-genai, "
                   "sglang-agentic, sharegpt — foreign formats are imported on the fly "
                   "(docs/importers.md)")
    add_common_options(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.tasks.trace_replay import trace_workload

    config = run_config(args)
    workload = trace_workload(args.trace, fmt=args.format)
    if config.options.history == "live":
        _refuse_live_fanout(workload.source)
    return execute(workload, config, args)


def _refuse_live_fanout(source: Any) -> None:
    """``--history live`` replays a turn's own LLM loop; fan-out branches would be skipped
    without a word, so a trace that has them is refused before anything is sent."""
    from agentic_bench.errors import UsageError

    for index in range(source.size):
        session = source(index)
        if any(step.kind == "parallel" for turn in session.turns for step in turn.steps):
            raise UsageError(f"session {session.session_id!r} fans out (parallel steps): "
                             "--history live does not replay branches; use --history recorded")
