"""The ``rag-agent`` benchmark: a tool-calling agent whose tools are the RAG pipeline.

One session per HotpotQA question: the model calls ``search(query)`` (embed, FAISS, rerank over
rag-e2e's index) and ``open(page_id)`` through OpenAI tool calls, then answers; the tool calls'
retrieval stages are step records inside the agent's trajectory, and the answer is scored on the
gold one (EM, F1, the judge when given). See docs/rag-agent.md.
"""

from __future__ import annotations

from agentic_bench.contracts import Workload
from agentic_bench.tasks.base import Task
from agentic_bench.tasks.lazy_method import lazy
from agentic_bench.tasks.rag_agent.options import RagAgentOptions


class RagAgentTask:
    name = "rag-agent"
    summary = ("A tool-calling agent over the RAG pipeline: search(query) and open(page_id) on "
               "the HotpotQA index; per-stage tool waits, per-turn latency and EM/F1 in one run")
    default_scenario = "single-stream"

    options = RagAgentOptions

    def workload(self, args: RagAgentOptions) -> Workload:
        from agentic_bench.tasks.rag_agent.workload import build_workload

        return build_workload(args)

    # agentic-bench report: accuracy recomputed from the records
    rescore = lazy("agentic_bench.tasks.rag_agent.scoring:rescore")


task: Task[RagAgentOptions] = RagAgentTask()
