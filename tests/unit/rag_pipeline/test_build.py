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


class _Interrupt(Exception):
    pass


class _StopAfter:
    """Wraps an embedder and raises after ``n`` batches (an interrupted build)."""

    def __init__(self, inner: Any, n: int) -> None:
        self.inner, self.n = inner, n
        self.name, self.dim = inner.name, inner.dim

    def embed_queries(self, texts: Any) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: Any) -> np.ndarray:
        if self.n == 0:
            raise _Interrupt
        self.n -= 1
        return self.inner.embed_passages(texts)


def test_interrupted_build_resumes_from_saved_blocks(tmp_path: Path, hash_embedder: Any) -> None:
    import pytest

    from rag_pipeline.embed_checkpoint import BATCHES_PER_BLOCK

    args: dict[str, Any] = {"kind": "flat", "chunk_size": 300, "overlap": 30, "batch_size": 2}
    _, whole = build_index(CORPUS, hash_embedder, **args)
    block = 2 * BATCHES_PER_BLOCK
    assert whole.chunks > 2 * block  # the corpus spans several blocks
    # interrupted in the middle of the third block: two blocks are saved
    with pytest.raises(_Interrupt):
        build_index(CORPUS, _StopAfter(hash_embedder, 2 * BATCHES_PER_BLOCK + 3),
                    cache_dir=tmp_path, **args)
    (saved,) = [p for p in tmp_path.iterdir() if p.name.endswith(".embedding")]
    assert len(list(saved.glob("block-*.npy"))) == 2
    hash_embedder.calls.clear()
    progress: list[tuple[int, int]] = []
    _, stats = build_index(CORPUS, hash_embedder, cache_dir=tmp_path,
                           progress=lambda d, t: progress.append((d, t)), **args)
    assert stats.resumed_passages == 2 * block and progress[0] == (2 * block, stats.chunks)
    assert sum(len(c) for c in hash_embedder.calls) == stats.chunks - 2 * block
    assert stats.content_hash == whole.content_hash  # the same vectors as one whole build
    assert not saved.exists() and len(list(tmp_path.iterdir())) == 1
    assert np.isclose(stats.passages_per_s, (stats.chunks - 2 * block) / stats.embed_s)


def test_checkpoint_of_other_settings_or_bad_block_is_not_used(
        tmp_path: Path, hash_embedder: Any) -> None:
    from rag_pipeline.embed_checkpoint import embed_with_checkpoint

    texts = [f"text {i} about {TOPICS[i % 7]}" for i in range(100)]
    directory = tmp_path / "ck"
    full, resumed = embed_with_checkpoint(hash_embedder, texts, directory, "k1", batch_size=2)
    assert resumed == 0 and full.shape == (100, 64)
    again, resumed = embed_with_checkpoint(hash_embedder, texts, directory, "k1", batch_size=2)
    assert resumed == 100 and np.array_equal(again, full)
    # another cache key: the saved blocks belong to other settings and are discarded
    _, resumed = embed_with_checkpoint(hash_embedder, texts, directory, "k2", batch_size=2)
    assert resumed == 0
    # a damaged block ends what is trusted: it and the blocks after it are embedded again
    (directory / "block-000001.npy").write_bytes(b"not numpy")
    again, resumed = embed_with_checkpoint(hash_embedder, texts, directory, "k2", batch_size=2)
    assert resumed == 32 and np.array_equal(again, full)


def test_passages_are_embedded_longest_first_and_indexed_in_corpus_order(
        tmp_path: Path, hash_embedder: Any) -> None:
    """#33 item 4: a build embeds the passages sorted by length over the whole corpus (batches
    pad least), and each vector still lands on its own chunk."""
    from rag_pipeline import chunk_documents

    corpus = [Document(f"d{i}", f"T{i}", f"doc {i} {TOPICS[i % 7]} " * (3 + (i * 7) % 23))
              for i in range(30)]
    index, _ = build_index(corpus, hash_embedder, kind="flat", chunk_size=300, overlap=30,
                           cache_dir=tmp_path, batch_size=8)
    sent = [t for call in hash_embedder.calls for t in call]
    assert [len(t) for t in sent] == sorted((len(t) for t in sent), reverse=True)
    texts = {c.chunk_id: c.passage_text() for c in chunk_documents(corpus, 300, 30)}
    assert sorted(sent) == sorted(texts.values())
    for position, chunk in enumerate(index.chunks):  # a chunk's own text finds it first
        query = hash_embedder.embed_passages([chunk.passage_text()])
        [[(best, score)]] = index.search(query, 1)
        assert index.chunks[best].passage_text() == chunk.passage_text(), position
        assert score > 0.999
