from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rag_pipeline import FlatIndex, HnswIndex, IndexIntegrityError, content_hash, load_index


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _build(kind: type[FlatIndex] | type[HnswIndex], vectors: np.ndarray) -> FlatIndex:
    index = kind(vectors.shape[1])
    index.add(vectors, [f"c{i}" for i in range(len(vectors))])
    return index


def test_flat_is_exact_and_hnsw_recall_is_high() -> None:
    rng = np.random.default_rng(0)
    base, queries = _unit(rng, 2000, 32), _unit(rng, 50, 32)
    flat, hnsw = _build(FlatIndex, base), _build(HnswIndex, base)
    exact = np.argsort(-(queries @ base.T), axis=1)[:, :10]
    flat_hits = flat.search(queries, 10)
    assert [[i for i, _ in row] for row in flat_hits] == exact.tolist()
    scores = [s for s in (row[0][1] for row in flat_hits)]
    assert np.allclose(scores, (queries @ base.T).max(axis=1), atol=1e-5)
    hnsw_hits = hnsw.search(queries, 10)
    recall = np.mean(
        [
            len({i for i, _ in h} & set(e.tolist())) / 10
            for h, e in zip(hnsw_hits, exact, strict=True)
        ]
    )
    assert recall >= 0.95


def test_search_edge_cases() -> None:
    empty = FlatIndex(4)
    assert empty.search(np.ones((2, 4), dtype=np.float32), 5) == [[], []]
    small = _build(FlatIndex, _unit(np.random.default_rng(1), 3, 4))
    assert len(small.search(np.ones(4, dtype=np.float32), 10)[0]) == 3
    with pytest.raises(ValueError):
        small.search(np.ones((1, 5), dtype=np.float32), 1)
    with pytest.raises(ValueError):
        small.add(np.ones((2, 4), dtype=np.float32), ["only-one-id"])


@pytest.mark.parametrize("kind", [FlatIndex, HnswIndex])
def test_save_load_round_trip(tmp_path: Path, kind: type[FlatIndex] | type[HnswIndex]) -> None:
    vectors = _unit(np.random.default_rng(2), 300, 16)
    index = _build(kind, vectors)
    index.save(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    ids = [f"c{i}" for i in range(300)]
    assert manifest["content_hash"] == content_hash(vectors, ids, index.params)
    loaded = load_index(tmp_path)
    assert type(loaded) is kind and loaded.ids == ids
    assert loaded.content_hash() == manifest["content_hash"]
    q = vectors[:5]
    assert loaded.search(q, 5) == index.search(q, 5)
    assert kind.load(tmp_path).ntotal == 300


def test_load_detects_tampering(tmp_path: Path) -> None:
    index = _build(FlatIndex, _unit(np.random.default_rng(3), 20, 8))
    index.save(tmp_path)
    ids = json.loads((tmp_path / "ids.json").read_text())
    ids[0] = "tampered"
    (tmp_path / "ids.json").write_text(json.dumps(ids))
    with pytest.raises(IndexIntegrityError, match="content hash"):
        load_index(tmp_path)
    assert load_index(tmp_path, verify=False).ids[0] == "tampered"
    with pytest.raises(IndexIntegrityError):
        HnswIndex.load(tmp_path, verify=False)  # wrong kind
    with pytest.raises(FileNotFoundError):
        load_index(tmp_path / "missing")


def test_hash_depends_on_params_ids_and_vectors() -> None:
    v = _unit(np.random.default_rng(4), 5, 4)
    base = content_hash(v, ["a", "b", "c", "d", "e"], {"kind": "flat"})
    assert base != content_hash(v, ["a", "b", "c", "d", "x"], {"kind": "flat"})
    assert base != content_hash(v, ["a", "b", "c", "d", "e"], {"kind": "hnsw"})
    assert base != content_hash(v * 0.5, ["a", "b", "c", "d", "e"], {"kind": "flat"})


def test_l2_hnsw_is_the_references_index_with_similarity_scores(tmp_path: Path) -> None:
    """metric="l2": FAISS' default metric, as MLPerf's reference builds IndexHNSWFlat(dim, 32);
    on unit vectors it finds the inner-product neighbours, and reports 1 - d/2 (= the inner
    product) so scores keep their meaning; the metric survives a save/load."""
    import faiss

    rng = np.random.default_rng(1)
    base, queries = _unit(rng, 1500, 32), _unit(rng, 40, 32)
    l2 = HnswIndex(32, metric="l2")
    l2.add(base, [f"c{i}" for i in range(len(base))])
    assert l2._index.metric_type == faiss.METRIC_L2 and l2.params["metric"] == "l2"
    assert _build(HnswIndex, base).params["metric"] == "inner_product"  # default unchanged
    exact = np.argsort(-(queries @ base.T), axis=1)[:, :10]
    hits = l2.search(queries, 10)
    recall = np.mean([len({i for i, _ in h} & set(e.tolist())) / 10
                      for h, e in zip(hits, exact, strict=True)])
    assert recall >= 0.95
    for row, q in zip(hits, queries, strict=True):
        assert np.allclose([s for _, s in row], [float(base[i] @ q) for i, _ in row], atol=1e-5)
        assert [s for _, s in row] == sorted((s for _, s in row), reverse=True)
    l2.save(tmp_path / "l2")
    again = load_index(tmp_path / "l2")
    assert isinstance(again, HnswIndex) and again.metric == "l2"
    assert again.search(queries[:3], 5) == l2.search(queries[:3], 5)
    with pytest.raises(ValueError, match="metric"):
        HnswIndex(8, metric="cosine")
