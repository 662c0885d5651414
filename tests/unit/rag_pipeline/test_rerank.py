from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rag_pipeline import (
    CrossEncoderReranker,
    EmbeddingReranker,
    IdentityReranker,
    LlmGradeReranker,
    RemoteReranker,
    RemoteServiceError,
    RerankerUnavailableError,
)

DOCS = ["paris is in france", "dogs bark", "the capital of france is paris", "cats"]


def test_embedding_reranker(hash_embedder: Any) -> None:
    reranker = EmbeddingReranker(hash_embedder)
    sync = reranker.rerank("capital of france", DOCS, 2)
    assert [i for i, _ in sync] == [2, 0]
    assert asyncio.run(reranker.arerank("capital of france", DOCS, 2)) == sync
    assert reranker.rerank("x", [], 3) == []


def test_identity_reranker() -> None:
    assert [i for i, _ in IdentityReranker().rerank("q", DOCS, 3)] == [0, 1, 2]


def test_llm_grade_reranker_keeps_order_among_equal_grades() -> None:
    class Reply:
        def __init__(self, content: str) -> None:
            self.content = content

    async def chat(messages: list[dict[str, Any]], params: dict[str, Any]) -> Reply:
        return Reply("yes" if "paris" in messages[-1]["content"] else "No")

    reranker = LlmGradeReranker(chat, concurrency=2)
    assert reranker.rerank("capital?", DOCS, 3) == [(0, 1.0), (2, 1.0), (1, 0.0)]


def test_cross_encoder_needs_local_weights(tmp_path: Path) -> None:
    with pytest.raises(RerankerUnavailableError, match="model_path"):
        CrossEncoderReranker(None)
    with pytest.raises(RerankerUnavailableError, match="not found"):
        CrossEncoderReranker(tmp_path / "nope")


def test_remote_reranker_cohere_and_tei() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def cohere_post(url: str, payload: dict[str, Any]) -> Any:
        sent.append((url, payload))
        return {
            "results": [{"index": 2, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.4}]
        }

    cohere = RemoteReranker("http://x/v1/rerank", "bge", post=cohere_post)
    assert cohere.rerank("q", DOCS, 2) == [(2, 0.9), (0, 0.4)]
    assert sent[0] == (
        "http://x/v1/rerank",
        {"query": "q", "documents": DOCS, "top_n": 2, "model": "bge"},
    )

    async def tei_post(url: str, payload: dict[str, Any]) -> Any:
        assert payload == {"query": "q", "texts": DOCS, "raw_scores": False}
        return [{"index": 1, "score": 0.2}, {"index": 3, "score": 0.7}, {"index": 9, "score": 1}]

    tei = RemoteReranker("http://x/rerank", style="tei", post=tei_post)
    assert tei.rerank("q", DOCS, 5) == [(3, 0.7), (1, 0.2)]

    async def junk_post(url: str, payload: dict[str, Any]) -> Any:
        return {"error": "boom"}

    with pytest.raises(RemoteServiceError):
        RemoteReranker("http://x", post=junk_post).rerank("q", DOCS, 2)
