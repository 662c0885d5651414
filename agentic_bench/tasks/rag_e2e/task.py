"""The ``rag-e2e`` benchmark: MLPerf-style End-to-End RAG (HotpotQA by default, FRAMES on request).

One session per question: the multi-hop (or single-shot) rag_pipeline graph runs against the
endpoint; embed/retrieve/rerank/grade/decompose/sufficiency/generate are step records; answers
and retrieval are scored per question. See docs/rag-e2e.md.
"""

from __future__ import annotations

from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.tasks.base import Task
from agentic_bench.tasks.lazy_method import lazy
from agentic_bench.tasks.rag_e2e.options import RagE2eOptions


class RagE2eTask:
    name = "rag-e2e"
    summary = ("End-to-End RAG (MLPerf-style): multi-hop retrieval, grading and answering over "
               "HotpotQA; per-stage latency and EM/F1/retrieval accuracy in one run")
    default_scenario = "single-stream"

    options = RagE2eOptions

    def preset_defaults(self, args: Any) -> dict[str, Any]:
        from agentic_bench.tasks.rag_e2e.loadgen_files import loadgen_preset
        from agentic_bench.tasks.rag_e2e.mlperf_config import preset_defaults

        preset = preset_defaults(args)
        return {**preset, **loadgen_preset(args, preset)}

    def workload(self, args: RagE2eOptions) -> Workload:
        from agentic_bench.tasks.rag_e2e.rag_workload import build_workload

        return build_workload(args)

    # agentic-bench report: accuracy recomputed from the records, artifacts written again
    rescore = lazy("agentic_bench.tasks.rag_e2e.accuracy:rescore")
    write_artifacts = lazy(
        "agentic_bench.tasks.rag_e2e.loadgen_files:write_artifacts")


task: Task[RagE2eOptions] = RagE2eTask()
