from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rag_pipeline import Document, HnswIndex, build_index

TOPICS = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape"]
CORPUS = [
    Document(f"d{i}", f"Title {i}", f"document {i} about {TOPICS[i % 7]} " * 30) for i in range(40)
]


def test_build_then_cache_hit(tmp_path: Path, hash_embedder: Any) -> None:
    progress: list[tuple[int, int]] = []
    index, stats = build_index(
        CORPUS,
        hash_embedder,
        kind="hnsw",
        chunk_size=300,
        overlap=30,
        cache_dir=tmp_path,
        progress=lambda done, total: progress.append((done, total)),
        batch_size=16,
    )
    assert not stats.from_cache
    assert stats.chunks == len(index.chunks) > len(CORPUS)
    assert progress[0] == (0, stats.chunks) and progress[-1] == (stats.chunks, stats.chunks)
    assert stats.passages_per_s > 0 and stats.peak_rss_mb > 0 and stats.dim == 64
    assert isinstance(index.index, HnswIndex)
    calls = len(hash_embedder.calls)

    again, cached = build_index(
        CORPUS, hash_embedder, kind="hnsw", chunk_size=300, overlap=30, cache_dir=tmp_path
    )
    assert cached.from_cache and cached.content_hash == stats.content_hash
    assert len(hash_embedder.calls) == calls  # nothing re-embedded
    q = hash_embedder.embed_queries(["about cherry"])
    assert again.search(q, 5) == index.search(q, 5)

    _, other = build_index(
        CORPUS, hash_embedder, kind="flat", chunk_size=300, overlap=30, cache_dir=tmp_path
    )
    assert not other.from_cache and other.cache_key != stats.cache_key
    assert len(list(tmp_path.iterdir())) == 2


def test_corrupt_cache_is_rebuilt(tmp_path: Path, hash_embedder: Any) -> None:
    _, first = build_index(CORPUS[:5], hash_embedder, kind="flat", cache_dir=tmp_path)
    (target,) = tmp_path.iterdir()
    (target / "ids.json").write_text('["x", "y", "z", "w", "v"]')
    index, second = build_index(CORPUS[:5], hash_embedder, kind="flat", cache_dir=tmp_path)
    assert not second.from_cache and second.content_hash == first.content_hash
    assert index.index.ids[0] == "d0#0"


def test_build_with_bm25(hash_embedder: Any) -> None:
    index, stats = build_index(CORPUS[:10], hash_embedder, kind="flat", bm25=True)
    assert index.bm25 is not None and stats.from_cache is False
    hits = index.search_bm25(["cherry"], 3)[0]
    assert {index.chunks[i].doc_id for i, _ in hits} == {"d2", "d9"}
    assert np.isclose(stats.passages_per_s, stats.chunks / stats.embed_s)
