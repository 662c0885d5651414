"""``agentic-bench replay TRACE``: replay a recorded trace against an endpoint."""

from __future__ import annotations

import argparse
from typing import Any

DESCRIPTION = ("Replay a trace (one session per line) against an OpenAI-compatible endpoint "
               "and write records.jsonl, summary.json and summary.txt. The trace is validated "
               "first; nothing is sent when it has a problem.")
EPILOG = """examples:
  agentic-bench replay traces/sample.jsonl --endpoint http://127.0.0.1:8000/v1
  agentic-bench replay TRACE --endpoint URL --scenario server --rate 4 --duration 60 \\
      --slo ttft_p99_ms=2000,tpot_p99_ms=200
  agentic-bench replay TRACE --endpoint URL --scenario concurrency --concurrency 16
  agentic-bench replay TRACE --endpoint URL --sweep concurrency=1,4,16
  agentic-bench replay weka_traces/ --endpoint URL --concurrency 8 --agentx   # InferenceX
                                                                             # AgentX
  agentic-bench replay rec.jsonl --format auto --endpoint URL    # a foreign format
  agentic-bench replay --config replay.yaml                      # options from a file
  agentic-bench replay TRACE --resume results/replay-20261203-101500   # after Ctrl-C"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    # the options are parsed by their schema when the command runs (options.common imports
    # pydantic, which `agentic-bench --help` must not); no prefix characters here, so every
    # word after `replay`, options and --help included, reaches that parser in order
    p = sub.add_parser("replay", help="replay a recorded trace (JSONL) under a load scenario",
                       description=DESCRIPTION, add_help=False, prefix_chars="\x00")
    p.add_argument("rest", nargs=argparse.REMAINDER, metavar="TRACE [OPTIONS]")
    p.set_defaults(func=main)


def parse_replay_args(argv: list[str], combinations: bool = True) -> Any:
    """``replay``'s validated, frozen options (:class:`~agentic_bench.options.common.\
ReplayCommandOptions`) from ``argv`` — a ``--config FILE`` included; ``--agentx`` sets the
scenario's defaults (explicit values win)."""
    from agentic_bench.cli.options import with_resumed_options
    from agentic_bench.options.agentx import preset_defaults
    from agentic_bench.options.parser import parse_options
    from agentic_bench.options.replay_command import ReplayCommandOptions

    argv = with_resumed_options(list(argv))
    return parse_options(ReplayCommandOptions, argv, prog="agentic-bench replay",
                         description=DESCRIPTION, epilog=EPILOG, benchmark="replay",
                         preset=preset_defaults, combinations=combinations)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.errors import ConfigError
    from agentic_bench.run.command import execute
    from agentic_bench.tasks.trace_replay import trace_workload

    options = parse_replay_args(list(args.rest))
    workload = trace_workload(options.trace, fmt=options.format,
                              synthesis=options.synthesis, max_context=options.max_context)
    if not workload.trees and options.agentx:
        raise ConfigError("--agentx replays agent trees: a Weka trace file, directory or "
                          "corpus (convert yours with `agentic-bench traces convert --to weka`)")
    if options.history == "live" and not workload.trees:
        _refuse_live_fanout(workload.source)
    return execute(workload, options, "replay")


def _refuse_live_fanout(source: Any) -> None:
    """``--history live`` replays a turn's own LLM loop; fan-out branches would be skipped
    without a word, so a trace that has them is refused before anything is sent."""
    from agentic_bench.errors import UsageError

    for index in range(source.size):
        session = source(index)
        if any(step.kind == "parallel" for turn in session.turns for step in turn.steps):
            raise UsageError(f"session {session.session_id!r} fans out (parallel steps): "
                             "--history live does not replay branches; use --history recorded")
