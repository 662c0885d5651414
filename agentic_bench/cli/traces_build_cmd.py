"""``agentic-bench traces build agentic-edge | synthetic``: build recorded trajectories (a
benchmark's, or synthetic fan-out agents)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agentic_bench.cli.traces_cmd import add_traces_subcommand

BUILDERS = ("agentic-edge", "synthetic")


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", choices=BUILDERS)
    p.add_argument("--out", type=Path, help="output trace (default: the benchmark's trace in "
                   "traces/)")
    p.add_argument("--limit-per-subset", type=int, default=10, metavar="N",
                   help="samples per multi-turn subset (default 10; 0 = all 200)")
    p.add_argument("--verify", action="store_true",
                   help="only check the committed trace against its manifest's sha256")
    s = p.add_argument_group("synthetic (fan-out agents: a coordinator and parallel subagents)")
    s.add_argument("--fanout", type=int, default=4, metavar="N",
                   help="subagents per fan-out (default 4)")
    s.add_argument("--depth", type=int, default=1, metavar="D",
                   help="fan-out levels: subagents fan out again below themselves (default 1)")
    s.add_argument("--sessions", type=int, default=8, metavar="N", help="sessions (default 8)")
    s.add_argument("--turns", type=int, default=1, metavar="T",
                   help="user turns per session, each with its own fan-out (default 1)")
    s.add_argument("--max-tokens", type=int, default=32, metavar="N",
                   help="max_tokens of every LLM step (default 32)")
    s.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default 0)")
    p.set_defaults(func=main)


add_traces_subcommand(
    "build", _configure, help="build recorded trajectories for a benchmark's performance mode",
    description="agentic-edge: turn BFCL's multi-turn ground truth into recorded sessions "
    "(user turns, the expected calls, the simulated tools' real results), deterministically, "
    "with a manifest (source package version, sha256). synthetic: coordinator sessions that "
    "fan out to --fanout parallel subagents (--depth levels), each with its own history, "
    "and join (docs/trace-format.md, parallel steps); --out is required.")


def main(args: argparse.Namespace) -> int:
    import json

    from agentic_bench.tasks.agentic_edge.trace_build import (
        DEFAULT_TRACE,
        build_trace,
        verify_trace,
    )

    if args.benchmark == "synthetic":
        return _synthetic(args)
    out = args.out or DEFAULT_TRACE
    if args.verify:
        ok = verify_trace(out)
        print(f"{out}: {'matches' if ok else 'DOES NOT match'} its manifest")
        return 0 if ok else 3
    manifest = build_trace(out, args.limit_per_subset or None)
    print(json.dumps(manifest, indent=2))
    return 0


def _synthetic(args: argparse.Namespace) -> int:
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
