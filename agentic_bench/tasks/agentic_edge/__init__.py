"""Agentic Edge: the MLPerf v6.1 Edge Agentic workload on BFCL v4 (data, requests, scoring).

Pure functions, no network. ``bfcl-eval`` (pinned, installed ``--no-deps``) supplies the data,
the AST and multi-turn checkers and the simulated APIs; it is imported lazily, through
:mod:`~agentic_bench.tasks.agentic_edge.bfcl_env` (:func:`bfcl_version`), so importing this
package stays cheap. Its public names, by what they do:

- data: :data:`CATEGORIES`, :data:`CATEGORY_SUBSETS`, :data:`SINGLE_TURN_SUBSETS`,
  :data:`SUBSET_CATEGORY`; :class:`BfclSample` samples from :func:`load_category`,
  :func:`load_single_turn` and :func:`load_subset`; multi-turn: :data:`MULTI_TURN_SUBSETS`,
  :class:`MultiTurnSample` from :func:`load_multi_turn`, with :func:`all_tools`,
  :func:`tools_at_turn`, :func:`functions_at_turn` and :func:`turn_messages`;
- sampling: :func:`stratified_counts`, :func:`plan_counts`, :func:`mlperf_counts` and
  :func:`sample_single_turn` (:data:`DEFAULT_CATEGORY_PCT`, :data:`DEFAULT_SEED`,
  :data:`QUICK_SIZE`, :data:`SUBSET_FLOOR`);
- requests and replies: the :data:`TOOL_MODES` (a :data:`ToolMode`), :func:`build_request` and
  :func:`parse_reply` (a :class:`ParsedReply`); tools in OpenAI form by
  :func:`to_openai_tools`, :func:`sanitize_name` and :func:`name_map`;
- scoring: :func:`score_single` (a :class:`Verdict`), :func:`check_multi_turn` with the
  simulated :class:`ApiEnvironment` (:func:`parse_call`, :func:`render_call`),
  :func:`oracle_decoded`, and :func:`aggregate` for the run's accuracy block;
- recorded trajectories: :func:`build_session` and :func:`build_trajectories`.
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
