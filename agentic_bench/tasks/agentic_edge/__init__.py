"""Agentic Edge: the MLPerf v6.1 Edge Agentic workload on BFCL v4 (data, requests, scoring).

Pure functions, no network. ``bfcl-eval`` (pinned, installed ``--no-deps``) supplies the data,
the AST and multi-turn checkers and the simulated APIs; it is imported lazily, through
:mod:`~agentic_bench.tasks.agentic_edge.bfcl_env`, so importing this package stays cheap.
"""

from agentic_bench.tasks.agentic_edge.aggregation import aggregate
from agentic_bench.tasks.agentic_edge.api_environment import ApiEnvironment, parse_call
from agentic_bench.tasks.agentic_edge.bfcl_env import bfcl_version
from agentic_bench.tasks.agentic_edge.data import (
    CATEGORIES,
    CATEGORY_SUBSETS,
    SINGLE_TURN_SUBSETS,
    SUBSET_CATEGORY,
    BfclSample,
    load_category,
    load_single_turn,
    load_subset,
)
from agentic_bench.tasks.agentic_edge.multi_turn import (
    MULTI_TURN_SUBSETS,
    MultiTurnSample,
    all_tools,
    functions_at_turn,
    load_multi_turn,
    tools_at_turn,
    turn_messages,
)
from agentic_bench.tasks.agentic_edge.multi_turn_check import check_multi_turn, render_call
from agentic_bench.tasks.agentic_edge.oracle import oracle_decoded
from agentic_bench.tasks.agentic_edge.reply_parsing import ParsedReply
from agentic_bench.tasks.agentic_edge.sampling import (
    DEFAULT_CATEGORY_PCT,
    DEFAULT_SEED,
    QUICK_SIZE,
    SUBSET_FLOOR,
    mlperf_counts,
    plan_counts,
    sample_single_turn,
    stratified_counts,
)
from agentic_bench.tasks.agentic_edge.scoring import Verdict, score_single
from agentic_bench.tasks.agentic_edge.tool_modes import (
    TOOL_MODES,
    ToolMode,
    build_request,
    parse_reply,
)
from agentic_bench.tasks.agentic_edge.tools_convert import name_map, sanitize_name, to_openai_tools
from agentic_bench.tasks.agentic_edge.trajectories import build_session, build_trajectories

__all__ = [
    "CATEGORIES",
    "CATEGORY_SUBSETS",
    "DEFAULT_CATEGORY_PCT",
    "DEFAULT_SEED",
    "MULTI_TURN_SUBSETS",
    "QUICK_SIZE",
    "SINGLE_TURN_SUBSETS",
    "SUBSET_CATEGORY",
    "SUBSET_FLOOR",
    "TOOL_MODES",
    "ApiEnvironment",
    "BfclSample",
    "MultiTurnSample",
    "ParsedReply",
    "ToolMode",
    "Verdict",
    "aggregate",
    "all_tools",
    "bfcl_version",
    "build_request",
    "build_session",
    "build_trajectories",
    "check_multi_turn",
    "functions_at_turn",
    "load_category",
    "load_multi_turn",
    "load_single_turn",
    "load_subset",
    "mlperf_counts",
    "name_map",
    "oracle_decoded",
    "parse_call",
    "parse_reply",
    "plan_counts",
    "render_call",
    "sample_single_turn",
    "sanitize_name",
    "score_single",
    "stratified_counts",
    "to_openai_tools",
    "tools_at_turn",
    "turn_messages",
]
