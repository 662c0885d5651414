"""Lexical retrieval with BM25 (``bm25s``) and reciprocal rank fusion with dense results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rag_pipeline.index import Hit

DEFAULT_RRF_K = 60


class Bm25Index:
    """BM25 over a list of texts; hits are ``(position in texts, bm25 score)``.

    Tokenisation is ``bm25s``'s (lower-case, ``\\w\\w+`` tokens, English stop words, optional
    stemmer such as ``Stemmer.Stemmer("english").stemWord``). Documents sharing no term with the
    query score 0 and are not returned.
    """

    def __init__(
        self,
        texts: Sequence[str],
        k1: float = 1.5,
        b: float = 0.75,
        stopwords: str | list[str] = "en",
        stemmer: Callable[[str], str] | None = None,
    ) -> None:
        import bm25s

        self._stopwords = stopwords
        self._stemmer = stemmer
        self.size = len(texts)
        self._retriever: Any = bm25s.BM25(k1=k1, b=b)
        if texts:
            self._retriever.index(self._tokenize(texts), show_progress=False)

    def _tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        import bm25s

        tokens: list[list[str]] = bm25s.tokenize(
            list(texts),
            stopwords=self._stopwords,
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )
        return tokens

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        """Top-``k`` documents per query, best first."""
        if k <= 0 or self.size == 0 or not queries:
            return [[] for _ in queries]
        docs, scores = self._retriever.retrieve(
            self._tokenize(queries), k=min(k, self.size), show_progress=False, n_threads=1
        )
        return [
            [(int(d), float(s)) for d, s in zip(row_d, row_s, strict=True) if s > 0]
            for row_d, row_s in zip(docs, scores, strict=True)
        ]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Hit]],
    k: int = DEFAULT_RRF_K,
    top_k: int | None = None,
    weights: Sequence[float] | None = None,
) -> list[Hit]:
    """Fuse ranked lists: each item scores ``sum(weight / (k + rank))`` (rank from 1).

    The input scores are ignored (only ranks matter), so dense cosine and BM25 scores can be
    mixed. Ties keep first-seen order. Returns ``(item, fused score)`` best first.
    """
    if weights is not None and len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    fused: dict[int, float] = {}
    for n, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[n]
        for rank, (item, _score) in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    ordered = sorted(fused.items(), key=lambda kv: kv[1], reverse=True)
    return ordered if top_k is None else ordered[:top_k]
