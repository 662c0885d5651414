"""Built-in ``sample`` benchmark: replay the hand-written sample trace in traces/."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from agentic_bench.contracts import Workload
from agentic_bench.options.schema import OptionsModel, option
from agentic_bench.tasks.base import Task

SAMPLE = Path(__file__).resolve().parents[2] / "traces" / "sample.jsonl"


class SampleOptions(OptionsModel):
    option_group: ClassVar[str] = "sample"

    trace: Path = option(SAMPLE, help=f"trace to replay (default {SAMPLE.name})")


class SampleTraceTask:
    name = "sample"
    summary = "replay traces/sample.jsonl (multi-turn tool use and a retrieval step)"
    default_scenario = "single-stream"

    options = SampleOptions

    def workload(self, args: SampleOptions) -> Workload:
        from agentic_bench.tasks.trace_replay import trace_workload

        return trace_workload(args.trace, name=self.name)


task: Task[SampleOptions] = SampleTraceTask()
