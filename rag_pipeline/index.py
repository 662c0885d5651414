"""FAISS vector indexes (exact inner product and HNSW) with a hashed on-disk format.

Vectors are compared by inner product, i.e. cosine similarity for the normalised vectors the
embedders produce. ``save(dir)`` writes ``index.faiss``, ``ids.json`` and ``manifest.json``; the
manifest carries a sha256 content hash over the vectors, the chunk ids and the index parameters,
which ``load`` recomputes and checks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    import faiss

MANIFEST = "manifest.json"
INDEX_FILE = "index.faiss"
IDS_FILE = "ids.json"
FORMAT_VERSION = 1

Hit = tuple[int, float]


class IndexIntegrityError(ValueError):
    """A saved index does not match its manifest (corrupt, edited or mismatched files)."""


def as_matrix(
    vectors: np.ndarray | Sequence[Sequence[float]], dim: int | None = None
) -> np.ndarray:
    """``vectors`` as a C-contiguous float32 2-D array (checking the width when ``dim`` is set)."""
    arr = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise ValueError(f"expected a 2-D array of vectors, got shape {arr.shape}")
    if dim is not None and arr.shape[0] and arr.shape[1] != dim:
        raise ValueError(f"expected vectors of dimension {dim}, got {arr.shape[1]}")
    return arr


def content_hash(vectors: np.ndarray, ids: Sequence[str], params: dict[str, Any]) -> str:
    """sha256 over the index parameters, the chunk ids and the float32 vector bytes."""
    arr = as_matrix(vectors)
    digest = hashlib.sha256()
    digest.update(json.dumps(params, sort_keys=True).encode())
    digest.update(f"|{arr.shape[0]}x{arr.shape[1] if arr.size else 0}|".encode())
    for chunk_id in ids:
        digest.update(chunk_id.encode())
        digest.update(b"\0")
    digest.update(arr.tobytes())
    return digest.hexdigest()


@runtime_checkable
class VectorIndex(Protocol):
    """A searchable set of vectors, each tagged with a chunk id."""

    dim: int
    ids: list[str]

    @property
    def kind(self) -> str: ...

    @property
    def params(self) -> dict[str, Any]: ...

    @property
    def ntotal(self) -> int: ...

    def add(self, vectors: np.ndarray, ids: Sequence[str]) -> None: ...

    def search(self, queries: np.ndarray, k: int) -> list[list[Hit]]: ...

    def content_hash(self) -> str: ...

    def save(self, directory: str | Path) -> Path: ...


class _FaissIndex:
    """Shared FAISS plumbing; subclasses say which FAISS index to build."""

    kind: ClassVar[str] = ""

    def __init__(self, dim: int) -> None:
        if dim <= 0:
            raise ValueError(f"dimension must be positive, got {dim}")
        self.dim = dim
        self.ids: list[str] = []
        self._index: faiss.Index = self._make()

    # -- subclass hooks
    def _make(self) -> faiss.Index:
        raise NotImplementedError

    def _configure(self) -> None:
        """Apply search-time parameters (after construction or loading)."""

    @property
    def params(self) -> dict[str, Any]:
        return {"kind": self.kind, "dim": self.dim, "metric": "inner_product"}

    # -- common API
    @property
    def ntotal(self) -> int:
        return int(self._index.ntotal)

    def add(self, vectors: np.ndarray, ids: Sequence[str]) -> None:
        arr = as_matrix(vectors, self.dim)
        if arr.shape[0] != len(ids):
            raise ValueError(f"{arr.shape[0]} vectors but {len(ids)} ids")
        if arr.shape[0]:
            self._index.add(arr)
            self.ids.extend(ids)

    def search(self, queries: np.ndarray, k: int) -> list[list[Hit]]:
        arr = as_matrix(queries, self.dim)
        if k <= 0 or self.ntotal == 0 or arr.shape[0] == 0:
            return [[] for _ in range(arr.shape[0])]
        scores, idx = self._index.search(arr, min(k, self.ntotal))
        return [
            [(int(i), float(s)) for i, s in zip(row_i, row_s, strict=True) if i >= 0]
            for row_i, row_s in zip(idx, scores, strict=True)
        ]

    def vectors(self) -> np.ndarray:
        """All stored vectors (reconstructed from the index), shape ``(ntotal, dim)``."""
        if self.ntotal == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._index.reconstruct_n(0, self.ntotal), dtype=np.float32)

    def content_hash(self) -> str:
        return content_hash(self.vectors(), self.ids, self.params)

    @classmethod
    def load(cls, directory: str | Path, verify: bool = True) -> _FaissIndex:
        """Load a saved index of this kind (see :func:`load_index`)."""
        obj = load_index(directory, verify=verify)
        if not isinstance(obj, cls):
            raise IndexIntegrityError(f"{directory} holds a {obj.kind!r} index, not {cls.kind!r}")
        return obj

    def save(self, directory: str | Path) -> Path:
        """Write the index, ids and manifest (last, so its presence marks a complete save)."""
        import faiss

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        manifest_path = out / MANIFEST
        manifest_path.unlink(missing_ok=True)
        faiss.write_index(self._index, str(out / INDEX_FILE))
        (out / IDS_FILE).write_text(json.dumps(self.ids), encoding="utf-8")
        manifest = {
            "format_version": FORMAT_VERSION,
            "kind": self.kind,
            "params": self.params,
            "ntotal": self.ntotal,
            "content_hash": self.content_hash(),
        }
        manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        return manifest_path


class FlatIndex(_FaissIndex):
    """Exact inner-product search (``faiss.IndexFlatIP``)."""

    kind: ClassVar[str] = "flat"

    def _make(self) -> faiss.Index:
        import faiss

        return faiss.IndexFlatIP(self.dim)


class HnswIndex(_FaissIndex):
    """Approximate search with ``faiss.IndexHNSWFlat``; MLPerf E2E-RAG settings.

    ``metric`` ``"inner_product"`` (default) or ``"l2"`` (the reference's own index: FAISS'
    default metric). With ``l2`` the squared distance d of unit vectors is reported as the
    similarity ``1 - d / 2`` (their inner product), so scores mean the same for both.
    """

    kind: ClassVar[str] = "hnsw"

    def __init__(
        self, dim: int, m: int = 32, ef_construction: int = 200, ef_search: int = 100,
        metric: str = "inner_product",
    ) -> None:
        if metric not in ("inner_product", "l2"):
            raise ValueError(f"metric must be 'inner_product' or 'l2', got {metric!r}")
        self.m = m
        self.ef_construction = ef_construction
        self.ef_search = ef_search
        self.metric = metric
        super().__init__(dim)

    def _make(self) -> faiss.Index:
        import faiss

        if self.metric == "l2":
            index = faiss.IndexHNSWFlat(self.dim, self.m)
        else:
            index = faiss.IndexHNSWFlat(self.dim, self.m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = self.ef_construction
        index.hnsw.efSearch = self.ef_search
        return index

    def search(self, queries: np.ndarray, k: int) -> list[list[Hit]]:
        hits = super().search(queries, k)
        if self.metric != "l2":
            return hits
        return [[(i, 1.0 - d / 2.0) for i, d in row] for row in hits]

    def _configure(self) -> None:
        self._index.hnsw.efSearch = self.ef_search  # type: ignore[attr-defined]

    def set_ef_search(self, ef_search: int) -> None:
        self.ef_search = ef_search
        self._configure()

    @property
    def params(self) -> dict[str, Any]:
        # ef_search is a search-time knob: it is not part of the content hash.
        return {**super().params, "m": self.m, "ef_construction": self.ef_construction,
                **({"metric": "l2"} if self.metric == "l2" else {})}


def make_index(kind: str, dim: int, **params: Any) -> FlatIndex | HnswIndex:
    """A new empty index of ``kind`` ``"flat"`` or ``"hnsw"``."""
    if kind == "flat":
        return FlatIndex(dim)
    if kind == "hnsw":
        return HnswIndex(dim, **params)
    raise ValueError(f"unknown index kind {kind!r}; expected 'flat' or 'hnsw'")


def read_manifest(directory: str | Path) -> dict[str, Any]:
    path = Path(directory) / MANIFEST
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"no saved index at {directory} (missing {MANIFEST})") from None
    except ValueError as exc:
        raise IndexIntegrityError(f"{path}: manifest is not valid JSON: {exc}") from exc
    if manifest.get("format_version") != FORMAT_VERSION:
        raise IndexIntegrityError(f"{path}: unsupported format_version")
    return manifest


def load_index(
    directory: str | Path, verify: bool = True, ef_search: int | None = None
) -> FlatIndex | HnswIndex:
    """Load an index saved by ``save``; with ``verify`` recompute and check the content hash."""
    import faiss

    base = Path(directory)
    manifest = read_manifest(base)
    params = dict(manifest["params"])
    kind = params.pop("kind", manifest.get("kind"))
    dim = int(params.pop("dim"))
    metric = params.pop("metric", None)
    if kind == "hnsw" and metric == "l2":
        params["metric"] = "l2"
    if kind == "hnsw" and ef_search is not None:
        params["ef_search"] = ef_search
    obj = make_index(kind, dim, **params)
    obj._index = faiss.read_index(str(base / INDEX_FILE))
    obj._configure()
    obj.ids = json.loads((base / IDS_FILE).read_text(encoding="utf-8"))
    if obj.ntotal != len(obj.ids) or obj.ntotal != manifest.get("ntotal"):
        raise IndexIntegrityError(
            f"{base}: {obj.ntotal} vectors, {len(obj.ids)} ids, manifest says {manifest['ntotal']}"
        )
    if verify and obj.content_hash() != manifest["content_hash"]:
        raise IndexIntegrityError(f"{base}: content hash does not match the manifest")
    return obj
