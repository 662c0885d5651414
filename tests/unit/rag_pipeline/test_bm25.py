from __future__ import annotations

from rag_pipeline import Bm25Index, reciprocal_rank_fusion

DOCS = [
    "The cat sat on the mat",
    "Dogs are loyal animals",
    "Paris is the capital of France",
    "The Eiffel Tower is a landmark in Paris",
]


def test_bm25_ranks_lexical_matches() -> None:
    index = Bm25Index(DOCS)
    hits = index.search(["capital of France", "eiffel paris", "zebra"], k=3)
    assert hits[0][0][0] == 2
    assert [i for i, _ in hits[1]][:2] == [3, 2]
    assert hits[2] == []  # no shared term: nothing returned
    assert all(s > 0 for row in hits for _, s in row)


def test_bm25_empty_corpus_and_k() -> None:
    assert Bm25Index([]).search(["x"], 3) == [[]]
    assert Bm25Index(DOCS).search(["paris"], 0) == [[]]


def test_rrf_fuses_by_rank() -> None:
    dense = [(1, 0.9), (2, 0.8), (3, 0.1)]
    lexical = [(2, 12.0), (4, 3.0)]
    fused = reciprocal_rank_fusion([dense, lexical], k=60)
    assert [i for i, _ in fused] == [2, 1, 4, 3]
    assert fused[0][1] == 1 / 62 + 1 / 61
    assert reciprocal_rank_fusion([dense, lexical], top_k=2) == fused[:2]
    weighted = reciprocal_rank_fusion([dense, lexical], weights=[0.0, 1.0])
    assert weighted[0][0] == 2 and weighted[1][0] == 4
