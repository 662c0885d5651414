"""A vector index together with the chunks it indexes (and an optional BM25 side index)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_pipeline.bm25 import Bm25Index
from rag_pipeline.documents import Chunk
from rag_pipeline.index import Hit, VectorIndex


@dataclass(slots=True)
class ChunkIndex:
    """``index`` position ``i`` holds the vector of ``chunks[i]``."""

    index: VectorIndex
    chunks: list[Chunk]
    bm25: Bm25Index | None = None

    def __post_init__(self) -> None:
        if self.index.ntotal != len(self.chunks):
            raise ValueError(f"index has {self.index.ntotal} vectors for {len(self.chunks)} chunks")

    def __len__(self) -> int:
        return len(self.chunks)

    def search(self, query_vectors: np.ndarray, k: int) -> list[list[Hit]]:
        """Dense top-``k`` (chunk position, score) per query vector."""
        return self.index.search(query_vectors, k)

    def search_bm25(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        """Lexical top-``k`` per query text (empty lists when no BM25 index is attached)."""
        if self.bm25 is None:
            return [[] for _ in queries]
        return self.bm25.search(queries, k)

    def enable_bm25(self) -> Bm25Index:
        """Build (once) and attach a BM25 index over the chunk texts."""
        if self.bm25 is None:
            self.bm25 = Bm25Index([c.passage_text() for c in self.chunks])
        return self.bm25
