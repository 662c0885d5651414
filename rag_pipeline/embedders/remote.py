"""An embedder behind an OpenAI-compatible ``/v1/embeddings`` endpoint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rag_pipeline.embedders.base import normalize_rows
from rag_pipeline.remote_http import (
    AiohttpPoster,
    PostJson,
    RemoteServiceError,
    auth_headers,
    run_sync,
)


class RemoteEmbedder:
    """Embeds through ``POST {base_url}/embeddings`` (``base_url`` like ``http://host:8000/v1``).

    Transport, in order of preference: an injected ``openai.AsyncOpenAI``-like ``client``
    (``await client.embeddings.create(model=..., input=[...])``), an injected ``post`` coroutine
    ``(url, payload) -> json``, or a default ``aiohttp`` poster. Vectors are re-normalised.
    ``dim`` is discovered from the first response unless given.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        client: Any = None,
        post: PostJson | None = None,
        api_key: str | None = None,
        dim: int | None = None,
        name: str | None = None,
        batch_size: int = 64,
        query_prefix: str = "",
        passage_prefix: str = "",
        timeout_s: float = 60.0,
    ) -> None:
        if client is None and base_url is None:
            raise ValueError("RemoteEmbedder needs base_url= or client=")
        self.model = model
        headers: dict[str, str] = {}
        if base_url:  # user:password → Basic auth; a query (?api-version=...) kept
            base_url, headers = auth_headers(base_url, api_key)
            parts = base_url.split("?", 1)
            base_url, self.query = parts[0].rstrip("/"), (parts[1] if len(parts) > 1 else "")
        else:
            self.query = ""
        self.base_url = base_url
        self._client = client
        self._post: PostJson | None = post
        if client is None and post is None:
            self._post = AiohttpPoster(headers, timeout_s)
        self._dim = dim
        self._name = name or f"remote:{model}"
        self.batch_size = batch_size
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed_queries(["dimension probe"])
        assert self._dim is not None
        return self._dim

    async def _request(self, batch: list[str]) -> list[list[float]]:
        if self._client is not None:
            resp = await self._client.embeddings.create(model=self.model, input=batch)
            data = sorted(resp.data, key=lambda d: getattr(d, "index", 0))
            return [list(d.embedding) for d in data]
        assert self._post is not None and self.base_url is not None
        url = f"{self.base_url}/embeddings" + (f"?{self.query}" if self.query else "")
        body = await self._post(url, {"model": self.model, "input": batch})
        try:
            items = sorted(body["data"], key=lambda d: d.get("index", 0))
            return [item["embedding"] for item in items]
        except (KeyError, TypeError, AttributeError) as exc:
            raise RemoteServiceError(f"unexpected embeddings response: {str(body)[:300]}") from exc

    async def _aembed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        items = [prefix + t for t in texts]
        rows: list[list[float]] = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            vectors = await self._request(batch)
            if len(vectors) != len(batch):
                raise RemoteServiceError(f"sent {len(batch)} texts, got {len(vectors)} vectors")
            rows.extend(vectors)
        if not rows:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        out = normalize_rows(np.asarray(rows, dtype=np.float32))
        self._dim = out.shape[1]
        return out

    async def aembed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return await self._aembed(texts, self.query_prefix)

    async def aembed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return await self._aembed(texts, self.passage_prefix)

    async def aclose(self) -> None:
        """Close the default HTTP session (injected clients are the caller's to close)."""
        if isinstance(self._post, AiohttpPoster):
            await self._post.aclose()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return run_sync(lambda: self.aembed_queries(texts))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return run_sync(lambda: self.aembed_passages(texts))
