"""Rerankers: re-order candidate documents for a query.

Every reranker returns ``(position in docs, score)`` pairs, best first, at most ``top_k``; the
position identifies the document even when two texts are equal. ``arerank`` is the primary
(async) entry point; ``rerank`` is its synchronous twin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rag_pipeline.embedders.base import Embedder, aembed_passages, aembed_queries
from rag_pipeline.generation import ChatFn, GenerationConfig, grade_document
from rag_pipeline.index import Hit
from rag_pipeline.remote_http import (
    AiohttpPoster,
    PostJson,
    RemoteServiceError,
    auth_headers,
    run_sync,
    shown_url,
)


class RerankerUnavailableError(RuntimeError):
    """The reranker cannot run here (missing weights or runtime)."""


@runtime_checkable
class Reranker(Protocol):
    """Scores ``docs`` against ``query`` and returns the ``top_k`` best as (position, score)."""

    @property
    def name(self) -> str: ...

    async def arerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]: ...

    def rerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]: ...


def top_by_score(scores: Sequence[float], top_k: int) -> list[Hit]:
    """Positions sorted by descending score (stable: ties keep input order), cut to ``top_k``."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return [(i, float(scores[i])) for i in order[: max(top_k, 0)]]


class IdentityReranker:
    """Keeps the retrieval order (scores decrease with rank); a no-op baseline."""

    name = "identity"

    async def arerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        return self.rerank(query, docs, top_k)

    def rerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        return [(i, 1.0 / (1 + i)) for i in range(min(len(docs), max(top_k, 0)))]


class EmbeddingReranker:
    """Re-scores candidates by cosine similarity under ``embedder`` (ideally a stronger one)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    @property
    def name(self) -> str:
        return f"embedding:{self.embedder.name}"

    @staticmethod
    def _score(query_vec: np.ndarray, doc_vecs: np.ndarray, top_k: int) -> list[Hit]:
        scores = (doc_vecs @ query_vec.reshape(-1)).tolist()
        return top_by_score(scores, top_k)

    async def arerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        if not docs:
            return []
        query_vec = await aembed_queries(self.embedder, [query])
        doc_vecs = await aembed_passages(self.embedder, list(docs))
        return self._score(query_vec, doc_vecs, top_k)

    def rerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        if not docs:
            return []
        query_vec = self.embedder.embed_queries([query])
        return self._score(query_vec, self.embedder.embed_passages(list(docs)), top_k)


class LlmGradeReranker:
    """Pointwise yes/no relevance grading by an LLM (as MLPerf's pipeline grades documents).

    Score is 1.0 for "yes", 0.0 for "no"; equal grades keep the input order. At most
    ``concurrency`` grading calls are in flight. Unparseable replies count as ``default``.
    """

    name = "llm-grade"

    def __init__(
        self,
        chat: ChatFn,
        config: GenerationConfig | None = None,
        concurrency: int = 4,
        default: bool = True,
    ) -> None:
        self.chat = chat
        self.config = config or GenerationConfig()
        self.concurrency = max(1, concurrency)
        self.default = default

    async def arerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        limiter = asyncio.Semaphore(self.concurrency)

        async def grade(text: str) -> float:
            async with limiter:
                result = await grade_document(self.chat, query, text, self.config, self.default)
            return 1.0 if result.value else 0.0

        scores = await asyncio.gather(*(grade(d) for d in docs))
        return top_by_score(scores, top_k)

    def rerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        return run_sync(lambda: self.arerank(query, docs, top_k))


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` loaded from user-supplied local weights.

    No cross-encoder weights ship with this project; pass ``model_path`` to a local model
    directory. Loading happens on first use, offline.
    """

    def __init__(
        self, model_path: str | Path | None, batch_size: int = 32, device: str = "cpu"
    ) -> None:
        if model_path is None or not str(model_path).strip():
            raise RerankerUnavailableError(
                "CrossEncoderReranker needs model_path= pointing to local cross-encoder weights "
                "(none are bundled); use EmbeddingReranker or LlmGradeReranker instead"
            )
        self.model_path = Path(model_path)
        if not self.model_path.is_dir():
            raise RerankerUnavailableError(f"cross-encoder directory not found: {model_path}")
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None

    @property
    def name(self) -> str:
        return f"cross-encoder:{self.model_path.name}"

    def _load(self) -> Any:
        if self._model is None:
            import os

            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from rag_pipeline.embedders.quiet_loading import silence_loading_bars

            silence_loading_bars()
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(
                str(self.model_path), device=self.device, local_files_only=True
            )
        return self._model

    def rerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        if not docs:
            return []
        scores = self._load().predict(
            [(query, d) for d in docs], batch_size=self.batch_size, show_progress_bar=False
        )
        return top_by_score(np.asarray(scores, dtype=np.float64).reshape(-1).tolist(), top_k)

    async def arerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        return await asyncio.to_thread(self.rerank, query, list(docs), top_k)


def parse_rerank_response(body: Any, n_docs: int) -> list[Hit]:
    """Cohere/Jina/vLLM ``{"results": [{"index", "relevance_score"}]}`` or TEI ``[{"index",
    "score"}]`` → (position, score) pairs best first; out-of-range positions are dropped."""
    items = body.get("results", body.get("data")) if isinstance(body, dict) else body
    if not isinstance(items, list):
        raise RemoteServiceError(f"unexpected rerank response: {str(body)[:300]}")
    hits: list[Hit] = []
    for item in items:
        try:
            position = int(item["index"])
            score = float(item.get("relevance_score", item.get("score")))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RemoteServiceError(f"unexpected rerank item: {str(item)[:200]}") from exc
        if 0 <= position < n_docs:
            hits.append((position, score))
    hits.sort(key=lambda h: -h[1])
    return hits


class RemoteReranker:
    """POSTs to a rerank endpoint (``style="cohere"``: Cohere/Jina/vLLM ``/v1/rerank``;
    ``style="tei"``: Hugging Face TEI ``/rerank``). ``url`` is the full endpoint URL."""

    def __init__(
        self,
        url: str,
        model: str | None = None,
        *,
        style: str = "cohere",
        post: PostJson | None = None,
        api_key: str | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        if style not in ("cohere", "tei"):
            raise ValueError(f"style must be 'cohere' or 'tei', got {style!r}")
        self.url, headers = auth_headers(url, api_key)  # user:password → Basic auth
        self.model = model
        self.style = style
        self._post: PostJson = post or AiohttpPoster(headers, timeout_s)

    @property
    def name(self) -> str:
        """The reranker as records and summaries name it: never a credential."""
        return f"remote:{self.model or shown_url(self.url)}"

    def payload(self, query: str, docs: Sequence[str], top_k: int) -> dict[str, Any]:
        if self.style == "tei":
            return {"query": query, "texts": list(docs), "raw_scores": False}
        body: dict[str, Any] = {"query": query, "documents": list(docs), "top_n": top_k}
        if self.model:
            body["model"] = self.model
        return body

    async def arerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        if not docs or top_k <= 0:
            return []
        body = await self._post(self.url, self.payload(query, docs, top_k))
        return parse_rerank_response(body, len(docs))[:top_k]

    async def aclose(self) -> None:
        """Close the default HTTP session (an injected ``post`` is the caller's to close)."""
        if isinstance(self._post, AiohttpPoster):
            await self._post.aclose()

    def rerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        return run_sync(lambda: self.arerank(query, docs, top_k))
