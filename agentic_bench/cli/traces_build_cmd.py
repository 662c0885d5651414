"""``agentic-bench traces build agentic-edge | synthetic``: build recorded trajectories (a
benchmark's, or synthetic fan-out agents)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agentic_bench.cli.traces_cmd import add_traces_subcommand

if TYPE_CHECKING:
    from agentic_bench.cli.tool_options import TracesBuildOptions



def _configure(p: argparse.ArgumentParser) -> None:
    from agentic_bench.cli.options_command import take_remainder

    take_remainder(p)
    p.set_defaults(func=main)


add_traces_subcommand(
    "build", _configure, help="build recorded trajectories for a benchmark's performance mode",
    add_help=False, prefix_chars="\x00")  # TracesBuildOptions


def main(namespace: argparse.Namespace) -> int:
    import json

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import TracesBuildOptions
    from agentic_bench.tasks.agentic_edge.trace_build import (
        DEFAULT_TRACE,
        build_trace,
        verify_trace,
    )

    args = parse_command(TracesBuildOptions, namespace.rest, "traces build")
    if args.kind == "synthetic":
        return _synthetic(args)
    out = args.out or DEFAULT_TRACE
    if args.verify:
        ok = verify_trace(out)
        print(f"{out}: {'matches' if ok else 'DOES NOT match'} its manifest")
        return 0 if ok else 3
    manifest = build_trace(out, args.limit_per_subset or None)
    print(json.dumps(manifest, indent=2))
    return 0


def _synthetic(args: TracesBuildOptions) -> int:
    from agentic_bench.errors import UsageError
    from agentic_bench.trace.jsonl import session_to_json
    from agentic_bench.trace.synthetic import fanout_sessions

    if args.out is None:
        raise UsageError("traces build synthetic needs --out FILE")
    for flag in ("fanout", "depth", "sessions", "turns", "max_tokens"):
        if getattr(args, flag) < 1:
            raise UsageError(f"--{flag.replace('_', '-')} must be at least 1")
    if args.fanout ** args.depth > 4096:
        raise UsageError(f"--fanout {args.fanout} --depth {args.depth} makes "
                         f"{args.fanout ** args.depth} leaf subagents per turn (at most 4096)")
    sessions = fanout_sessions(args.sessions, fanout=args.fanout, depth=args.depth,
                               turns=args.turns, tokens=args.max_tokens, seed=args.seed)
    args.out.write_text("".join(session_to_json(s) + "\n" for s in sessions), encoding="utf-8")
    calls = sum(s.llm_step_count() for s in sessions)
    print(f"{args.out}: {len(sessions)} sessions, {args.turns} turn(s) each, fan-out "
          f"{args.fanout} x depth {args.depth}, {calls} LLM calls")
    return 0
