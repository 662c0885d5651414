"""Build (or load from cache) a chunk index for a corpus: chunk → embed → FAISS."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rag_pipeline.chunk_index import ChunkIndex
from rag_pipeline.chunking import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, chunk_documents
from rag_pipeline.documents import Chunk, Document
from rag_pipeline.embed_checkpoint import embed_with_checkpoint
from rag_pipeline.embedders.base import Embedder
from rag_pipeline.index import IndexIntegrityError, load_index, make_index

ProgressFn = Callable[[int, int], None]
"""``progress(done, total)`` — passages embedded so far."""

BUILD_FILE = "build.json"
CACHE_FORMAT = 1


@dataclass(frozen=True, slots=True)
class BuildStats:
    """What building (or loading) the index cost.

    On a cache hit ``embed_s`` is 0, ``build_s`` is the load time, and ``passages_per_s`` is the
    throughput recorded when the cached index was built. ``resumed_passages`` were embedded by
    an earlier, interrupted build (saved blocks); ``embed_s`` and ``passages_per_s`` cover only
    the passages embedded by this build.
    """

    documents: int
    chunks: int
    kind: str
    embedder: str
    dim: int
    embed_s: float
    index_s: float
    build_s: float
    passages_per_s: float
    peak_rss_mb: float
    from_cache: bool
    cache_key: str
    content_hash: str
    resumed_passages: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (0 where unavailable)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def cache_key(
    chunks: Sequence[Chunk],
    embedder_name: str,
    kind: str,
    index_params: dict[str, Any],
    chunk_size: int,
    overlap: int,
) -> str:
    """sha256 over everything that determines the index: settings, chunk ids and texts."""
    digest = hashlib.sha256()
    settings = {
        "format": CACHE_FORMAT,
        "embedder": embedder_name,
        "kind": kind,
        "params": index_params,
        "chunk_size": chunk_size,
        "overlap": overlap,
    }
    digest.update(json.dumps(settings, sort_keys=True).encode())
    for chunk in chunks:
        digest.update(chunk.chunk_id.encode())
        digest.update(b"\0")
        digest.update(chunk.passage_text().encode())
        digest.update(b"\1")
    return digest.hexdigest()


def embed_passages_batched(
    embedder: Embedder,
    texts: Sequence[str],
    batch_size: int = 256,
    progress: ProgressFn | None = None,
) -> np.ndarray:
    """Embed ``texts`` in batches, reporting progress after each batch."""
    total = len(texts)
    parts: list[np.ndarray] = []
    if progress is not None:
        progress(0, total)
    for start in range(0, total, batch_size):
        parts.append(embedder.embed_passages(list(texts[start : start + batch_size])))
        if progress is not None:
            progress(min(start + batch_size, total), total)
    if not parts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)


def length_order(texts: Sequence[str]) -> list[int]:
    """Positions of ``texts``, longest first (ties in corpus order): embedding passages of
    like length together pads each batch least (sentence-transformers sorts within one
    ``encode`` call only; a build calls it per chunk of passages)."""
    return sorted(range(len(texts)), key=lambda i: -len(texts[i]))


def in_corpus_order(vectors: np.ndarray, order: Sequence[int]) -> np.ndarray:
    """Rows embedded in ``order`` (:func:`length_order`) put back where their texts were."""
    out = np.empty_like(vectors)
    out[np.asarray(order, dtype=np.int64)] = vectors
    return out


def _try_load(
    directory: Path, key: str, chunks: list[Chunk], ef_search: int | None
) -> tuple[ChunkIndex, dict[str, Any]] | None:
    build_file = directory / BUILD_FILE
    if not build_file.is_file():
        return None
    try:
        meta = json.loads(build_file.read_text(encoding="utf-8"))
        if meta.get("cache_key") != key:
            return None
        index = load_index(directory, verify=True, ef_search=ef_search)
    except (IndexIntegrityError, ValueError, OSError, KeyError):
        return None
    if index.ids != [c.chunk_id for c in chunks]:
        return None
    return ChunkIndex(index=index, chunks=chunks), meta


def build_index(
    corpus: Sequence[Document],
    embedder: Embedder,
    kind: str = "hnsw",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    overlap: int = DEFAULT_OVERLAP,
    cache_dir: str | Path | None = None,
    progress: ProgressFn | None = None,
    *,
    batch_size: int = 256,
    index_params: dict[str, Any] | None = None,
    bm25: bool = False,
) -> tuple[ChunkIndex, BuildStats]:
    """Chunk ``corpus``, embed the chunks and index them (``kind`` ``"flat"`` or ``"hnsw"``).

    With ``cache_dir`` the index is saved under ``cache_dir/<kind>-<key>/`` and re-used when the
    cache key (embedder name, settings, chunk ids and texts) matches and the saved content hash
    verifies; otherwise it is rebuilt. While it builds, the embedded passages are saved in
    blocks under ``cache_dir/.<kind>-<key>.embedding/``, so an interrupted build resumes.
    ``index_params`` go to the index (``m``, ``ef_construction``, ``ef_search`` for HNSW;
    ``ef_search`` does not affect the cache key).
    ``bm25=True`` also attaches a BM25 index over the chunks.
    """
    started = time.perf_counter()
    params = dict(index_params or {})
    ef_search = params.get("ef_search")
    keyed_params = {k: v for k, v in params.items() if k != "ef_search"}
    chunks = chunk_documents(corpus, chunk_size, overlap)
    key = cache_key(chunks, embedder.name, kind, keyed_params, chunk_size, overlap)
    target = Path(cache_dir) / f"{kind}-{key[:16]}" if cache_dir is not None else None

    if target is not None:
        loaded = _try_load(target, key, chunks, ef_search)
        if loaded is not None:
            chunk_index, meta = loaded
            if bm25:
                chunk_index.enable_bm25()
            stats = BuildStats(
                documents=len(corpus),
                chunks=len(chunks),
                kind=kind,
                embedder=embedder.name,
                dim=chunk_index.index.dim,
                embed_s=0.0,
                index_s=0.0,
                build_s=time.perf_counter() - started,
                passages_per_s=float(meta.get("passages_per_s", 0.0)),
                peak_rss_mb=peak_rss_mb(),
                from_cache=True,
                cache_key=key,
                content_hash=str(meta.get("content_hash", "")),
            )
            return chunk_index, stats

    embed_start = time.perf_counter()
    texts = [c.passage_text() for c in chunks]
    order = length_order(texts)  # embedded longest first, then put back in corpus order
    by_length = [texts[i] for i in order]
    resumed = 0
    checkpoint = target.parent / f".{target.name}.embedding" if target is not None else None
    if checkpoint is not None:  # its blocks hold passages by length ("/by-length" in its key)
        vectors, resumed = embed_with_checkpoint(
            embedder, by_length, checkpoint, f"{key}/by-length", batch_size, progress)
    else:
        vectors = embed_passages_batched(embedder, by_length, batch_size, progress)
    vectors = in_corpus_order(vectors, order)
    embed_s = time.perf_counter() - embed_start
    index_start = time.perf_counter()
    dim = int(vectors.shape[1]) if vectors.shape[0] else embedder.dim
    index = make_index(kind, dim, **params)
    index.add(vectors, [c.chunk_id for c in chunks])
    index_s = time.perf_counter() - index_start
    chunk_index = ChunkIndex(index=index, chunks=chunks)
    if bm25:
        chunk_index.enable_bm25()
    digest = index.content_hash()
    embedded = len(chunks) - resumed
    throughput = embedded / embed_s if embed_s > 0 and embedded > 0 else 0.0

    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        index.save(scratch)
        meta = {"cache_key": key, "content_hash": digest, "passages_per_s": throughput}
        meta |= {"embedder": embedder.name, "chunk_size": chunk_size, "overlap": overlap}
        (scratch / BUILD_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        scratch.rename(target)
        if checkpoint is not None:
            shutil.rmtree(checkpoint, ignore_errors=True)

    stats = BuildStats(
        documents=len(corpus),
        chunks=len(chunks),
        kind=kind,
        embedder=embedder.name,
        dim=dim,
        embed_s=embed_s,
        index_s=index_s,
        build_s=time.perf_counter() - started,
        passages_per_s=throughput,
        peak_rss_mb=peak_rss_mb(),
        from_cache=False,
        cache_key=key,
        content_hash=digest,
        resumed_passages=resumed,
    )
    return chunk_index, stats
