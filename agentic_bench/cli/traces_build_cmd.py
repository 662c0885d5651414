"""``agentic-bench traces build BENCHMARK``: build a benchmark's recorded trajectories."""

from __future__ import annotations

import argparse
from pathlib import Path

from agentic_bench.cli.traces_cmd import add_traces_subcommand

BUILDERS = ("agentic-edge",)


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", choices=BUILDERS)
    p.add_argument("--out", type=Path, help="output trace (default: the benchmark's trace in "
                   "traces/)")
    p.add_argument("--limit-per-subset", type=int, default=10, metavar="N",
                   help="samples per multi-turn subset (default 10; 0 = all 200)")
    p.add_argument("--verify", action="store_true",
                   help="only check the committed trace against its manifest's sha256")
    p.set_defaults(func=main)


add_traces_subcommand(
    "build", _configure, help="build recorded trajectories for a benchmark's performance mode",
    description="Turn agentic-edge's BFCL multi-turn ground truth into recorded sessions "
    "(user turns, the expected calls, the simulated tools' real results), deterministically, "
    "with a manifest (source package version, sha256).")


def main(args: argparse.Namespace) -> int:
    import json

    from agentic_bench.tasks.agentic_edge.trace_build import (
        DEFAULT_TRACE,
        build_trace,
        verify_trace,
    )

    out = args.out or DEFAULT_TRACE
    if args.verify:
        ok = verify_trace(out)
        print(f"{out}: {'matches' if ok else 'DOES NOT match'} its manifest")
        return 0 if ok else 3
    manifest = build_trace(out, args.limit_per_subset or None)
    print(json.dumps(manifest, indent=2))
    return 0
