"""The embedder interface and helpers shared by the implementations."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of width ``dim``.

    Queries and passages have separate methods because some models (e5) prefix them differently.
    Both return an array of shape ``(len(texts), dim)``.
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero), as C-contiguous float32."""
    arr = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(arr / norms, dtype=np.float32)


async def aembed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Embed queries without blocking the event loop.

    Uses the embedder's own ``aembed_queries`` when it has one (remote embedders), otherwise runs
    the synchronous method in a worker thread.
    """
    native = getattr(embedder, "aembed_queries", None)
    if native is not None:
        result: np.ndarray = await native(texts)
        return result
    return await asyncio.to_thread(embedder.embed_queries, list(texts))


async def aembed_passages(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Like :func:`aembed_queries` for passages."""
    native = getattr(embedder, "aembed_passages", None)
    if native is not None:
        result: np.ndarray = await native(texts)
        return result
    return await asyncio.to_thread(embedder.embed_passages, list(texts))
