"""The ``agentic-edge`` benchmark: BFCL v4 accuracy and recorded-trajectory latency, one run.

``--mode accuracy``: single-turn BFCL samples (MLPerf v6.1 sampling by default) scored with
bfcl-eval's AST checker, plus optional multi-turn closed-loop samples. ``--mode performance``:
the recorded multi-turn trajectories in traces/agentic-edge/ replayed with recorded history.
``--mode both`` (default): accuracy, then performance, one summary with both.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agentic_bench.contracts import Workload
from agentic_bench.tasks.lazy_method import lazy

QUICK_PERF_SESSIONS = 2


class AgenticEdgeTask:
    name = "agentic-edge"
    summary = ("BFCL v4 function calling (single- and multi-turn): accuracy and per-turn "
               "latency in one run")
    default_scenario = "single-stream"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        from agentic_bench.tasks.agentic_edge.trace_build import DEFAULT_TRACE

        g = parser.add_argument_group("agentic-edge")
        g.add_argument("--mode", choices=("accuracy", "performance", "both"), default="both",
                       help="both (default): the performance phase and the BFCL accuracy "
                       "phase in one run (performance first with an MLCommons --perf-trace, as "
                       "MLPerf runs them); accuracy or performance: one phase")
        g.add_argument("--tool-mode", choices=("native", "json-schema", "prompt"),
                       default="native", help="how tools are offered and calls parsed")
        g.add_argument("--samples", type=int, metavar="N",
                       help="single-turn samples (default: MLPerf v6.1's 995)")
        g.add_argument("--sample-selection", choices=("mlperf", "random"), default="mlperf",
                       help="mlperf (default): MLPerf's samples in MLPerf's order (the first n "
                       "of each subset, subsets in lexicographic order); random: a seeded "
                       "random pick per subset (not MLPerf)")
        g.add_argument("--quick", action="store_true",
                       help=f"about 50 stratified samples and {QUICK_PERF_SESSIONS} "
                       "performance sessions")
        g.add_argument("--multi-turn-samples", type=int, default=0, metavar="N",
                       help="multi-turn closed-loop samples (spread over the 4 subsets)")
        g.add_argument("--perf-trace", type=Path, default=DEFAULT_TRACE, metavar="FILE",
                       help="performance-phase data: MLCommons' agentic JSONL (MLPerf's "
                       "agentic_coding_2.5h.jsonl, recognised automatically) or a native trace "
                       "(default: our recorded BFCL multi-turn trajectories); with MLCommons' data "
                       "--turn-timeout is per request (MLPerf's turn), default 600 s")
        g.add_argument("--perf-sessions", type=int, metavar="N",
                       help="performance sessions (default: the whole trace)")
        g.add_argument("--tool-delays", action="store_true",
                       help="MLCommons coding conversations: wait each tool row's recorded "
                       "delay_seconds before issuing it (MLPerf's inject_tool_delay; off in "
                       "its reference run)")
        g.add_argument("--accuracy-target", type=float, metavar="X",
                       help="overall-accuracy gate as a fraction, for another model (default: "
                       "MLPerf's gates, overall >= 83.6431 and normalized >= 85.3212 percent, "
                       "both on the 2-decimal figure, and >= 995 completed samples)")
        g.add_argument("--agent", choices=("loop", "langgraph"), default="loop",
                       help="multi-turn agent: a plain tool loop, or a LangGraph StateGraph "
                       "agent (same transport and records)")
        g.add_argument("--max-steps", type=int, default=25,
                       help="LLM calls per user turn in the multi-turn loop (25)")

    def workload(self, args: argparse.Namespace) -> Workload:
        from agentic_bench.tasks.agentic_edge.edge_workload import build_workload

        return build_workload(args)

    # agentic-bench report: accuracy recomputed from the records, artifacts written again
    rescore = lazy("agentic_bench.tasks.agentic_edge.run_summary:rescore")
    write_artifacts = lazy(
        "agentic_bench.tasks.agentic_edge.mlperf_artifacts:write_artifacts")


task = AgenticEdgeTask()
