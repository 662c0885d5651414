"""The RAG flows as LangGraph ``StateGraph``s.

Multi-hop (MLPerf E2E-RAG style)::

    decompose → retrieve → rerank → grade → sufficiency ─ yes / round limit ─→ answer
                   ↑                                   └─ no → next_queries ─┘ (none left → answer)
                   └──────────────────────────────────────────────┘

MLPerf (the reference's own loop, :mod:`rag_pipeline.reference_loop`)::

    queries → retrieve → collect ─ last iteration → end (unanswered)
       ↑                    └→ grade → sufficiency ─ yes → answer
       └──────────────────────────────────┘ no

Single-shot: ``retrieve → rerank → answer``. ``retrieve`` is two timed stages (``embed`` the
queries, then ``retrieve`` = index search, fused with BM25 when enabled). Every stage is reported
through the per-run ``on_stage`` callback (see :mod:`rag_pipeline.events`); LLM stages attach
the chat replies under ``info["replies"]``. Node functions live in :mod:`rag_pipeline.nodes`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from rag_pipeline.chunk_index import ChunkIndex
from rag_pipeline.documents import Chunk
from rag_pipeline.embedders.base import Embedder
from rag_pipeline.events import StageCallback
from rag_pipeline.generation import ChatFn
from rag_pipeline.loop_prompts import PromptSet
from rag_pipeline.nodes import RagConfig, RagNodes, RagState
from rag_pipeline.reference_loop import LoopState, ReferenceLoopNodes
from rag_pipeline.rerank import Reranker

Mode = Literal["multi_hop", "single_shot", "mlperf"]
START, END = "__start__", "__end__"  # langgraph.graph's START and END (imported lazily)
Route = tuple[str, Callable[[Any], str], tuple[str, ...]]
MODES: tuple[str, ...] = ("multi_hop", "single_shot", "mlperf")


@dataclass(slots=True)
class RagResult:
    """Outcome of one run. ``retrieved``: every chunk retrieved, in first-seen order;
    ``context``: the chunks the answer was generated from."""

    question: str
    answer: str
    rounds: int
    queries: list[str]
    retrieved: list[Chunk]
    context: list[Chunk]
    sufficient: bool
    llm_calls: int
    state: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_state(cls, question: str, state: dict[str, Any],
                   chunks: list[Chunk]) -> RagResult:
        """The result of a finished graph run, from its final state."""
        return cls(
            question=question,
            answer=str(state.get("answer", "")),
            rounds=int(state.get("round", 0)),
            queries=list(state.get("asked", [])),
            retrieved=[chunks[i] for i in state.get("seen", [])],
            context=[chunks[i] for i in state.get("context", [])],
            sufficient=bool(state.get("sufficient", False)),
            llm_calls=int(state.get("llm_calls", 0)),
            state=state,
        )

    @property
    def retrieved_titles(self) -> list[str]:
        return [c.title for c in self.retrieved]

    @property
    def context_titles(self) -> list[str]:
        return [c.title for c in self.context]


class RagPipeline:
    """Retrieval-augmented generation over a :class:`ChunkIndex`.

    ``chat`` (and ``on_stage``) can also be given per run, so one compiled graph serves many
    concurrent sessions.
    """

    def __init__(
        self,
        index: ChunkIndex,
        embedder: Embedder,
        chat: ChatFn | None = None,
        reranker: Reranker | None = None,
        config: RagConfig | None = None,
        prompts: PromptSet | None = None,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.chat = chat
        self.config = config or RagConfig()
        self.nodes = RagNodes(index, embedder, reranker, self.config)
        self.loop_nodes = ReferenceLoopNodes(index, embedder, reranker, self.config,
                                             prompts=prompts)
        self._graphs: dict[str, Any] = {}

    def multi_hop_graph(self) -> Any:
        """The compiled multi-hop ``StateGraph`` (built once)."""
        if "multi_hop" not in self._graphs:
            n = self.nodes
            self._graphs["multi_hop"] = _compile(
                RagState,
                {"decompose": n.decompose, "retrieve": n.retrieve, "rerank": n.rerank,
                 "grade": n.grade, "sufficiency": n.sufficiency,
                 "next_queries": n.next_queries, "answer": n.answer},
                [(START, "decompose"), ("decompose", "retrieve"), ("retrieve", "rerank"),
                 ("rerank", "grade"), ("grade", "sufficiency"), ("answer", END)],
                [("sufficiency", n.route_after_sufficiency, ("answer", "next_queries")),
                 ("next_queries", n.route_after_next_queries, ("answer", "retrieve"))])
        return self._graphs["multi_hop"]

    def mlperf_graph(self) -> Any:
        """The compiled graph of the reference's loop (flow ``mlperf``; built once)."""
        if "mlperf" not in self._graphs:
            n = self.loop_nodes
            self._graphs["mlperf"] = _compile(
                LoopState,
                {"queries": n.queries, "retrieve": n.retrieve, "collect": n.collect,
                 "grade": n.grade, "sufficiency": n.sufficiency, "answer": n.answer},
                [(START, "queries"), ("queries", "retrieve"), ("retrieve", "collect"),
                 ("grade", "sufficiency"), ("answer", END)],
                [("collect", n.route_after_collect, ("end", "grade")),
                 ("sufficiency", n.route_after_sufficiency, ("answer", "queries"))])
        return self._graphs["mlperf"]

    def graph(self, mode: str) -> Any:
        """The compiled graph of flow ``mode``."""
        if mode == "multi_hop":
            return self.multi_hop_graph()
        if mode == "single_shot":
            return self.single_shot_graph()
        if mode == "mlperf":
            return self.mlperf_graph()
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")

    def single_shot_graph(self) -> Any:
        """The compiled single-shot ``StateGraph``: retrieve → rerank → answer."""
        if "single_shot" not in self._graphs:
            n = self.nodes
            self._graphs["single_shot"] = _compile(
                RagState, {"retrieve": n.retrieve, "rerank": n.rerank, "answer": n.answer},
                [(START, "retrieve"), ("retrieve", "rerank"), ("rerank", "answer"),
                 ("answer", END)], [])
        return self._graphs["single_shot"]

    def run_config(
        self, on_stage: StageCallback | None = None, chat: ChatFn | None = None
    ) -> dict[str, Any]:
        """The LangGraph ``config`` for one run (callback, chat function, recursion limit)."""
        chat_fn = chat or self.chat
        if chat_fn is None:
            raise ValueError("no chat function: pass chat= to RagPipeline or to arun()")
        return {
            "configurable": {"on_stage": on_stage, "chat": chat_fn},
            "recursion_limit": 8 * self.config.max_rounds + 16,
        }

    async def arun(
        self,
        question: str,
        *,
        mode: Mode = "multi_hop",
        on_stage: StageCallback | None = None,
        chat: ChatFn | None = None,
    ) -> RagResult:
        """Answer ``question`` with the ``mode`` flow; ``on_stage`` receives every stage event."""
        graph = self.graph(mode)
        initial: RagState = {"question": question}
        if mode == "single_shot":
            initial = {"question": question, "queries": [question], "asked": [question]}
        state: dict[str, Any] = await graph.ainvoke(initial, config=self.run_config(on_stage, chat))
        return RagResult.from_state(question, state, self.index.chunks)


def _compile(state: type, nodes: dict[str, Any], edges: list[tuple[str, str]],
             routes: list[Route]) -> Any:
    """A compiled ``StateGraph``: its nodes, plain edges and routed edges (a route's target
    named ``end`` ends the graph)."""
    from langgraph.graph import END as LG_END
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph

    assert (LG_START, LG_END) == (START, END)
    graph: Any = StateGraph(state)
    for name, node in nodes.items():
        graph.add_node(name, node)
    for source, target in edges:
        graph.add_edge(source, target)
    for source, router, targets in routes:
        graph.add_conditional_edges(source, router,
                                    {t: END if t == "end" else t for t in targets})
    return graph.compile()
