"""Run one question through the rag_pipeline graph and keep what each round did.

:meth:`RagPipeline.arun` returns only the final state; a trace needs every round's queries,
retrieval hits and reranked chunks. This runs the same compiled graph with LangGraph's
``stream_mode="updates"`` and folds the per-node updates into the final state and a per-round
log (no change to the pipeline's behaviour).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rag_pipeline import ChatFn, RagPipeline, RagResult, StageCallback


@dataclass
class RoundLog:
    """What one retrieval round did (chunk positions refer to the index's chunk list)."""

    round: int
    queries: list[str]
    hits: list[list[tuple[int, float]]] = field(default_factory=list)
    reranked: list[int] = field(default_factory=list)


@dataclass
class GraphRun:
    result: RagResult
    rounds: dict[int, RoundLog]


def _initial(question: str, mode: str) -> dict[str, Any]:
    if mode in ("multi_hop", "mlperf"):
        return {"question": question}
    if mode == "single_shot":
        return {"question": question, "queries": [question], "asked": [question]}
    raise ValueError(f"unknown flow {mode!r}; expected 'multi_hop', 'single_shot' or 'mlperf'")


async def run_graph(pipeline: RagPipeline, question: str, mode: str,
                    on_stage: StageCallback, chat: ChatFn) -> GraphRun:
    """Answer ``question`` with the ``mode`` graph; ``on_stage`` sees every stage event."""
    state: dict[str, Any] = _initial(question, mode)
    graph = pipeline.graph(mode)
    rounds: dict[int, RoundLog] = {}
    queries: list[str] = list(state.get("queries", []))
    config = pipeline.run_config(on_stage, chat)
    async for chunk in graph.astream(state, config=config, stream_mode="updates"):
        for node, update in chunk.items():
            if not isinstance(update, dict):
                continue
            state.update(update)
            if node in ("decompose", "next_queries", "queries") and "queries" in update:
                queries = list(update["queries"])
            elif node == "retrieve":
                number = int(update.get("round", len(rounds) + 1))
                hits = [[(int(i), float(s)) for i, s in h] for h in update.get("hits", [])]
                rounds[number] = RoundLog(number, list(queries) or [question], hits)
            elif node in ("rerank", "collect") and rounds:
                rounds[max(rounds)].reranked = list(update.get("reranked", []))
    return GraphRun(RagResult.from_state(question, state, pipeline.index.chunks), rounds)
