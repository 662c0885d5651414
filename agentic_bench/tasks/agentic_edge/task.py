"""The ``agentic-edge`` benchmark: BFCL v4 accuracy and recorded-trajectory latency, one run.

``--mode accuracy``: single-turn BFCL samples (MLPerf v6.1 sampling by default) scored with
bfcl-eval's AST checker, plus optional multi-turn closed-loop samples. ``--mode performance``:
the recorded multi-turn trajectories in traces/agentic-edge/ replayed with recorded history.
``--mode both`` (default): accuracy, then performance, one summary with both.
"""

from __future__ import annotations

from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.tasks.agentic_edge.options import AgenticEdgeOptions
from agentic_bench.tasks.base import Task
from agentic_bench.tasks.lazy_method import lazy


class AgenticEdgeTask:
    name = "agentic-edge"
    summary = ("BFCL v4 function calling (single- and multi-turn): accuracy and per-turn "
               "latency in one run")
    default_scenario = "single-stream"

    options = AgenticEdgeOptions

    def preset_defaults(self, args: Any) -> dict[str, Any]:
        """MLPerf's values where our defaults differ (every run is held to MLPerf's
        configuration: agentic_edge/mlperf_config.py)."""
        from agentic_bench.tasks.agentic_edge.mlperf_config import preset_defaults

        return preset_defaults(args)

    def workload(self, args: AgenticEdgeOptions) -> Workload:
        from agentic_bench.tasks.agentic_edge.edge_workload import build_workload

        return build_workload(args)

    # agentic-bench report: accuracy recomputed from the records, artifacts written again
    rescore = lazy("agentic_bench.tasks.agentic_edge.run_summary:rescore")
    write_artifacts = lazy(
        "agentic_bench.tasks.agentic_edge.mlperf_artifacts:write_artifacts")


task: Task[AgenticEdgeOptions] = AgenticEdgeTask()
