"""Node functions and routing of the RAG graphs (wired up in :mod:`rag_pipeline.graph`).

Each node reads the LangGraph state, reports its stages via ``config["configurable"]
["on_stage"]`` and returns a partial state update. Chunks are referred to by their position in
the :class:`ChunkIndex`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from rag_pipeline.bm25 import DEFAULT_RRF_K, reciprocal_rank_fusion
from rag_pipeline.chunk_index import ChunkIndex
from rag_pipeline.embedders.base import Embedder, aembed_queries
from rag_pipeline.events import StageCallback, timed_stage
from rag_pipeline.generation import (
    ChatFn,
    GenerationConfig,
    check_sufficiency,
    decompose,
    generate_answer,
    grade_document,
    next_subqueries,
)
from rag_pipeline.index import Hit
from rag_pipeline.rerank import IdentityReranker, Reranker

if TYPE_CHECKING:
    # Kept as a string annotation: LangGraph recognises the name "RunnableConfig" without our
    # importing langchain_core at module import time.
    from langchain_core.runnables import RunnableConfig


@dataclass(frozen=True, slots=True)
class RagConfig:
    """Limits and knobs of the flows (defaults follow MLPerf E2E-RAG where it has one)."""

    max_rounds: int = 5
    max_subqueries: int = 3
    retrieve_k: int = 10
    rerank_k: int = 3
    # "fixed": keep rerank_k per query; "mlperf": keep max(rerank_k, retrieve_k // queries of
    # the round) and rerank only when a query found more (mlcommons/inference b66003e1
    # e2e-rag/multi_shot_retrieval.py 1485-1531)
    rerank_depth: str = "fixed"
    use_bm25: bool = False
    bm25_k: int = 10
    rrf_k: int = DEFAULT_RRF_K
    decompose: bool = True
    grade: bool = True
    grade_concurrency: int = 4
    grade_default: bool = True
    sufficiency_default: bool = False
    generation: GenerationConfig = field(default_factory=GenerationConfig)

    def __post_init__(self) -> None:
        if self.max_rounds < 1 or self.max_subqueries < 1:
            raise ValueError("max_rounds and max_subqueries must be at least 1")
        if self.retrieve_k < 1 or self.rerank_k < 1:
            raise ValueError("retrieve_k and rerank_k must be at least 1")
        if self.rerank_depth not in ("fixed", "mlperf"):
            raise ValueError(f"rerank_depth {self.rerank_depth!r}: 'fixed' or 'mlperf'")

    def rerank_keep(self, queries: int) -> int:
        """Chunks kept per query in a round of ``queries`` queries."""
        if self.rerank_depth == "mlperf":
            return max(self.rerank_k, self.retrieve_k // max(1, queries))
        return self.rerank_k


class RagState(TypedDict, total=False):
    question: str
    queries: list[str]  # this round's queries
    asked: list[str]  # every query issued so far
    round: int  # retrieval rounds done
    hits: list[list[Hit]]  # this round's retrieval, per query
    reranked: list[int]  # this round's reranked chunks
    seen: list[int]  # every retrieved chunk, first-seen order
    graded: list[int]  # chunks already graded
    relevant: list[list[int]]  # chunks graded relevant, per round, in rerank order
    context: list[int]  # chunks the answer was generated from
    sufficient: bool
    answer: str
    llm_calls: int


def stage_callback(config: RunnableConfig | None) -> StageCallback | None:
    """The run's ``on_stage`` callback (from LangGraph's per-run config), if any."""
    callback: StageCallback | None = (config or {}).get("configurable", {}).get("on_stage")
    return callback


def chat_function(config: RunnableConfig | None) -> ChatFn:
    """The run's chat function (from LangGraph's per-run config)."""
    chat: ChatFn | None = (config or {}).get("configurable", {}).get("chat")
    if chat is None:
        raise ValueError("no chat function in the run config")
    return chat


def interleave(rankings: Sequence[Sequence[int]]) -> list[int]:
    """Round-robin merge of ranked lists, keeping first occurrences."""
    out: list[int] = []
    seen: set[int] = set()
    for rank in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if rank < len(ranking) and ranking[rank] not in seen:
                seen.add(ranking[rank])
                out.append(ranking[rank])
    return out


class RagNodes:
    """The graph's nodes, bound to an index, an embedder, a reranker and a config."""

    def __init__(
        self,
        index: ChunkIndex,
        embedder: Embedder,
        reranker: Reranker | None,
        config: RagConfig,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.reranker: Reranker = reranker or IdentityReranker()
        self.config = config
        if config.use_bm25:
            index.enable_bm25()

    def _context(self, state: RagState) -> list[int]:
        """Relevant chunks, interleaved across rounds so every round's findings make the cut
        when prompts keep only the first ``max_context_docs``."""
        return interleave(state.get("relevant", []))

    def _text(self, position: int) -> str:
        return self.index.chunks[position].passage_text()

    async def decompose(self, state: RagState, config: RunnableConfig) -> RagState:
        question = state["question"]
        if not self.config.decompose:
            return {"queries": [question], "asked": [question]}
        info = {"round": 0, "kind": "decompose"}
        with timed_stage("decompose", stage_callback(config), info) as details:
            result = await decompose(
                chat_function(config), question, self.config.max_subqueries, self.config.generation
            )
            details.update(queries=result.value, replies=[result.reply])
        return {
            "queries": result.value,
            "asked": list(result.value),
            "llm_calls": state.get("llm_calls", 0) + 1,
        }

    async def retrieve(self, state: RagState, config: RunnableConfig) -> RagState:
        queries = state.get("queries") or [state["question"]]
        round_no = state.get("round", 0) + 1
        on_stage = stage_callback(config)
        cfg = self.config
        with timed_stage("embed", on_stage, {"round": round_no, "n": len(queries)}):
            vectors = await aembed_queries(self.embedder, queries)
        info = {"round": round_no, "k": cfg.retrieve_k, "bm25": cfg.use_bm25}
        with timed_stage("retrieve", on_stage, info) as details:
            hits = self.index.search(vectors, cfg.retrieve_k)
            if cfg.use_bm25:
                lexical = self.index.search_bm25(queries, cfg.bm25_k)
                hits = [
                    reciprocal_rank_fusion([dense, lex], k=cfg.rrf_k, top_k=cfg.retrieve_k)
                    for dense, lex in zip(hits, lexical, strict=True)
                ]
            details["hits"] = sum(len(h) for h in hits)
        seen = list(state.get("seen", []))
        known = set(seen)
        for position in interleave([[i for i, _ in h] for h in hits]):
            if position not in known:
                known.add(position)
                seen.append(position)
        return {"round": round_no, "hits": hits, "seen": seen}

    async def rerank(self, state: RagState, config: RunnableConfig) -> RagState:
        queries = state.get("queries") or [state["question"]]
        hits = state.get("hits", [])
        info = {"round": state.get("round", 0), "reranker": self.reranker.name}
        keep = self.config.rerank_keep(len(queries))
        mlperf = self.config.rerank_depth == "mlperf"
        with timed_stage("rerank", stage_callback(config), info) as details:
            rankings = []
            for query, query_hits in zip(queries, hits, strict=False):
                positions = [i for i, _ in query_hits]
                if mlperf and len(positions) <= keep:  # nothing to cut: retrieval order stays
                    rankings.append(positions)
                    continue
                ranked = await self.reranker.arerank(
                    query, [self._text(i) for i in positions], keep
                )
                rankings.append([positions[j] for j, _ in ranked])
            reranked = interleave(rankings)
            details.update(candidates=sum(len(h) for h in hits), kept=len(reranked),
                           keep_per_query=keep)
        return {"reranked": reranked}

    async def grade(self, state: RagState, config: RunnableConfig) -> RagState:
        question = state["question"]
        graded = list(state.get("graded", []))
        relevant = [list(r) for r in state.get("relevant", [])]
        already = set(graded)
        todo = [i for i in state.get("reranked", []) if i not in already]
        if not self.config.grade:
            return {"graded": graded + todo, "relevant": [*relevant, todo]}
        chat, on_stage, cfg = chat_function(config), stage_callback(config), self.config
        limiter = asyncio.Semaphore(max(1, cfg.grade_concurrency))
        round_no = state.get("round", 0)

        async def one(position: int) -> bool:
            async with limiter:
                chunk = self.index.chunks[position]
                info = {"round": round_no, "chunk": position, "chunk_id": chunk.chunk_id}
                with timed_stage("grade", on_stage, info) as details:
                    result = await grade_document(
                        chat, question, self._text(position), cfg.generation, cfg.grade_default
                    )
                    details.update(relevant=result.value, replies=[result.reply])
                return result.value

        verdicts = await asyncio.gather(*(one(i) for i in todo))
        relevant.append([i for i, ok in zip(todo, verdicts, strict=True) if ok])
        return {
            "graded": graded + todo,
            "relevant": relevant,
            "llm_calls": state.get("llm_calls", 0) + len(todo),
        }

    async def sufficiency(self, state: RagState, config: RunnableConfig) -> RagState:
        round_no = state.get("round", 0)
        relevant = self._context(state)
        if round_no >= self.config.max_rounds or not relevant:
            # No call: the round limit ends the loop anyway / nothing relevant is never enough.
            return {"sufficient": False}
        docs = [self.index.chunks[i] for i in relevant]
        info = {"round": round_no, "docs": len(docs)}
        with timed_stage("sufficiency", stage_callback(config), info) as details:
            result = await check_sufficiency(
                chat_function(config),
                state["question"],
                docs,
                self.config.generation,
                self.config.sufficiency_default,
            )
            details.update(sufficient=result.value, replies=[result.reply])
        return {"sufficient": result.value, "llm_calls": state.get("llm_calls", 0) + 1}

    def route_after_sufficiency(self, state: RagState) -> str:
        if state.get("sufficient") or state.get("round", 0) >= self.config.max_rounds:
            return "answer"
        return "next_queries"

    async def next_queries(self, state: RagState, config: RunnableConfig) -> RagState:
        asked = list(state.get("asked", []))
        docs = [self.index.chunks[i] for i in self._context(state)]
        info = {"round": state.get("round", 0), "kind": "next_subqueries"}
        with timed_stage("decompose", stage_callback(config), info) as details:
            result = await next_subqueries(
                chat_function(config),
                state["question"],
                asked,
                docs,
                self.config.max_subqueries,
                self.config.generation,
            )
            details.update(queries=result.value, replies=[result.reply])
        return {
            "queries": result.value,
            "asked": asked + result.value,
            "llm_calls": state.get("llm_calls", 0) + 1,
        }

    def route_after_next_queries(self, state: RagState) -> str:
        return "retrieve" if state.get("queries") else "answer"

    async def answer(self, state: RagState, config: RunnableConfig) -> RagState:
        limit = self.config.generation.max_context_docs
        context = self._context(state)
        if not context:
            context = list(state.get("reranked", [])) or list(state.get("seen", []))
        context = context[:limit]
        docs = [self.index.chunks[i] for i in context]
        info = {"round": state.get("round", 0), "docs": len(docs)}
        with timed_stage("generate", stage_callback(config), info) as details:
            result = await generate_answer(
                chat_function(config), state["question"], docs, self.config.generation
            )
            details.update(answer=result.value, replies=[result.reply])
        return {
            "answer": result.value,
            "context": context,
            "llm_calls": state.get("llm_calls", 0) + 1,
        }
