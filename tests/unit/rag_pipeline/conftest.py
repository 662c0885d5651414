"""Test doubles shared by the rag_pipeline unit tests."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np
import pytest

_TOKEN = re.compile(r"\w+")


class HashEmbedder:
    """Deterministic bag-of-words embedder: texts sharing words get similar vectors."""

    name = "hash-bow-64"
    dim = 64

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                out[row, zlib.crc32(token.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()
