"""The ``agentic-edge`` benchmark's own options, declared once (flags, files, records, resume)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from agentic_bench.options.schema import OptionsModel, option
from agentic_bench.tasks.agentic_edge.trace_build import DEFAULT_TRACE

QUICK_PERF_SESSIONS = 2


class AgenticEdgeOptions(OptionsModel):
    option_group: ClassVar[str] = "agentic-edge"

    mode: Literal["accuracy", "performance", "both"] = option(
        "both", help="both (default): the performance phase and the BFCL accuracy phase in one "
        "run (performance first with an MLCommons --perf-trace, as MLPerf runs them); accuracy "
        "or performance: one phase")
    tool_mode: Literal["native", "json-schema", "prompt"] = option(
        "native", help="how tools are offered and calls parsed")
    samples: int | None = option(None, metavar="N",
                                 help="single-turn samples (default: MLPerf v6.1's 995)")
    sample_selection: Literal["mlperf", "random"] = option(
        "mlperf", help="mlperf (default): MLPerf's samples in MLPerf's order (the first n of each "
        "subset, subsets in lexicographic order); random: a seeded random pick per subset (not "
        "MLPerf)")
    quick: bool = option(False, help=f"about 50 stratified samples and {QUICK_PERF_SESSIONS} "
                         "performance sessions")
    multi_turn_samples: int = option(0, metavar="N",
                                     help="multi-turn closed-loop samples (spread over the 4 "
                                     "subsets)")
    perf_trace: Path = option(
        DEFAULT_TRACE, metavar="FILE",
        help="performance-phase data: MLCommons' agentic JSONL (MLPerf's "
        "agentic_coding_2.5h.jsonl, recognised automatically) or a native trace (default: our "
        "recorded BFCL multi-turn trajectories); with MLCommons' data --turn-timeout is per "
        "request (MLPerf's turn), default 600 s")
    perf_sessions: int | None = option(None, metavar="N",
                                       help="performance sessions (default: the whole trace)")
    tool_delays: bool = option(
        False, help="MLCommons coding conversations: wait each tool row's recorded "
        "delay_seconds before issuing it (MLPerf's inject_tool_delay; off in its reference run)")
    perf_max_duration: float = option(
        14400.0, metavar="S",
        help="MLCommons coding conversations: the performance phase stops after S seconds, the "
        "turn in flight counted missing (MLPerf's safety cap, 14400 = 4 h; 0: no cap)")
    accuracy_target: float | None = option(
        None, metavar="X",
        help="overall-accuracy gate as a fraction, for another model (default: MLPerf's gates, "
        "overall >= 83.6431 and normalized >= 85.3212 percent, both on the 2-decimal figure, and "
        ">= 995 completed samples)")
    agent: Literal["loop", "langgraph"] = option(
        "loop", help="multi-turn agent: a plain tool loop, or a LangGraph StateGraph agent (same "
        "transport and records)")
    max_steps: int = option(25, metavar="N",
                            help="LLM calls per user turn in the multi-turn loop (25)")


__all__ = ["QUICK_PERF_SESSIONS", "AgenticEdgeOptions"]
