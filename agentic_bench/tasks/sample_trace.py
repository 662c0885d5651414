"""Built-in ``sample`` benchmark: replay the hand-written sample trace in traces/."""

from __future__ import annotations

import argparse
from pathlib import Path

from agentic_bench.contracts import Workload

SAMPLE = Path(__file__).resolve().parents[2] / "traces" / "sample.jsonl"


class SampleTraceTask:
    name = "sample"
    summary = "replay traces/sample.jsonl (multi-turn tool use and a retrieval step)"
    default_scenario = "single-stream"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--trace", type=Path, default=SAMPLE,
                            help=f"trace to replay (default {SAMPLE.name})")

    def workload(self, args: argparse.Namespace) -> Workload:
        from agentic_bench.tasks.trace_replay import trace_workload

        return trace_workload(args.trace, name=self.name)


task = SampleTraceTask()
