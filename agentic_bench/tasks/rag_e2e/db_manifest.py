"""e2e-rag-db's vector-DB manifest: write one for our index, verify our index against one.

Reference: mlcommons/inference b66003e1, ``e2e-rag/db_manifest.py`` (rebuilt from its rules, so a
manifest written by the reference tool verifies here and ours carries the same fields):

* format (243-256): ``version`` 2 (``"v2-behavioral"`` accepted, 96), ``retriever_model`` /
  ``embedding_model``, ``total_passages``, ``embedding_dim``, ``index_params`` (FAISS class,
  dim, metric type, efConstruction, efSearch, M = level-0 neighbours / 2; 144-166),
  ``corpus_set_sha256`` (sha256 over the *sorted* per-passage sha256 hex digests, each followed
  by a NUL byte: order-independent, 104-126), ``probe_top_k`` 10, ``reference_queries`` and
  ``reference_top_k``;
* probes (183-187): ``random.Random(0xC0FFEE).sample(range(rows), 50)``, sorted, each the row's
  ``Prompt``; the top 10 passages' URLs per probe, duplicates kept (190-201; an unmapped page
  reports its base file name);
* verify (258-409): version; passage count and dimension; index parameters compared as a whole;
  the corpus hash reported, never gated; the gate is the mean over probes of |ref ∩ ours| / |ref|
  on the *sets* of normalised URLs (lower case, scheme, ``.html``, the wiki prefix and the
  ``#anchor`` dropped, ``/`` → ``_``; 208-240) at ≥ 0.95 (``DEFAULT_RETRIEVAL_THRESHOLD``;
  the issue's "0.999 over 100 probes" is not what this snapshot of the reference does).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

MANIFEST_VERSION = 2
ACCEPTED_VERSIONS: tuple[object, ...] = (2, "v2-behavioral")
PROBE_SEED = 0xC0FFEE
PROBES = 50
PROBE_TOP_K = 10
RETRIEVAL_THRESHOLD = 0.95


class ManifestError(ValueError):
    """The manifest file cannot be read as an e2e-rag-db manifest."""


def _open(path: Path, mode: str) -> IO[str]:
    if path.name.endswith(".gz"):
        return gzip.open(path, mode, encoding="utf-8")  # type: ignore[return-value]
    return path.open(mode, encoding="utf-8")


def probe_indices(rows: int, n: int = PROBES) -> list[int]:
    """db_manifest.py 183-187: the probe rows, sorted."""
    return sorted(random.Random(PROBE_SEED).sample(range(rows), min(n, rows)))


def manifest_url(doc_id: str) -> str:
    """The URL a passage reports: its page URL, else its file's base name (190-201)."""
    return doc_id[len("file:"):] if doc_id.startswith("file:") else doc_id


def normalize_url(url: str) -> str:
    """db_manifest.py 208-221."""
    u = url.lower()
    for scheme in ("https://", "http://"):
        if u.startswith(scheme):
            u = u[len(scheme):]
    if u.endswith(".html"):
        u = u[:-5]
    u = u.replace("en.wikipedia.org/wiki/", "").replace("en.wikipedia.org_wiki_", "")
    return u.split("#")[0].replace("/", "_").strip("_")


def corpus_set_sha256(passages: Sequence[str]) -> str:
    """db_manifest.py 104-126: order-independent fingerprint of the passage texts."""
    digest = hashlib.sha256()
    for each in sorted(hashlib.sha256(p.encode("utf-8", errors="replace")).hexdigest()
                       for p in passages):
        digest.update(each.encode("ascii"))
        digest.update(b"\x00")
    return digest.hexdigest()


def faiss_params(index: Any) -> dict[str, Any]:
    """db_manifest.py 144-166 on our index's FAISS object."""
    import faiss

    base = faiss.downcast_index(index._index)
    params: dict[str, Any] = {"class": type(base).__name__, "dim": int(base.d),
                              "metric_type": int(base.metric_type)}
    hnsw = getattr(base, "hnsw", None)
    if hnsw is not None:
        params["efConstruction"] = int(hnsw.efConstruction)
        params["efSearch"] = int(hnsw.efSearch)
        params["M"] = int(hnsw.nb_neighbors(0)) // 2
    return params


def top_k_urls(chunk_index: Any, embedder: Any, probes: Sequence[dict[str, Any]],
               k: int = PROBE_TOP_K) -> list[dict[str, Any]]:
    """Each probe's top-k passage URLs, in rank order (duplicates kept)."""
    if not probes:
        return []
    vectors = embedder.embed_queries([str(p["prompt"]) for p in probes])
    hits = chunk_index.search(vectors, k)
    return [{"index": p["index"],
             "top_k_urls": [manifest_url(chunk_index.chunks[i].doc_id) for i, _ in row]}
            for p, row in zip(probes, hits, strict=True)]


def build_manifest(chunk_index: Any, embedder: Any, questions: Sequence[Any],
                   model: str, n: int = PROBES) -> dict[str, Any]:
    """The manifest of our index, probed with ``questions`` (frames_dataset.tsv's rows)."""
    probes = [{"index": i, "prompt": questions[i].question}
              for i in probe_indices(len(questions), n)]
    return {
        "version": MANIFEST_VERSION, "retriever_model": model, "embedding_model": model,
        "total_passages": len(chunk_index.chunks), "embedding_dim": int(chunk_index.index.dim),
        "index_params": faiss_params(chunk_index.index),
        "corpus_set_sha256": corpus_set_sha256([c.text for c in chunk_index.chunks]),
        "probe_top_k": PROBE_TOP_K, "reference_queries": probes,
        "reference_top_k": top_k_urls(chunk_index, embedder, probes),
    }


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    with _open(path, "wt") as handle:
        json.dump(manifest, handle, indent=2)


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        with _open(path, "rt") as handle:
            manifest = json.load(handle)
    except (OSError, ValueError, EOFError) as exc:
        raise ManifestError(f"{path}: not a readable manifest ({exc})") from exc
    if not isinstance(manifest, dict):
        raise ManifestError(f"{path}: expected a JSON object")
    return manifest


def overlap(ours: Sequence[dict[str, Any]], reference: Sequence[dict[str, Any]],
            k: int) -> tuple[float, float, int, list[tuple[int, float]]]:
    """db_manifest.py 224-240: mean set overlap, top-1 agreement, probes compared, and each
    probe's overlap."""
    ref = {r["index"]: r["top_k_urls"] for r in reference}
    overlaps: list[tuple[int, float]] = []
    top1 = 0
    for entry in ours:
        want = ref.get(entry["index"])
        if want is None:
            continue
        mine = [normalize_url(u) for u in entry["top_k_urls"][:k]]
        theirs = [normalize_url(u) for u in want[:k]]
        overlaps.append((entry["index"], len(set(theirs) & set(mine)) / (len(set(theirs)) or 1)))
        top1 += bool(theirs and mine and theirs[0] == mine[0])
    n = len(overlaps)
    mean = sum(o for _, o in overlaps) / (n or 1)
    return mean, (top1 / n if n else 0.0), n, overlaps


def verify(manifest: dict[str, Any], chunk_index: Any, embedder: Any,
           threshold: float = RETRIEVAL_THRESHOLD) -> dict[str, Any]:
    """``{"passed", "failures", "metrics"}`` for our index against ``manifest``."""
    if manifest.get("version") not in ACCEPTED_VERSIONS:
        return {"passed": False, "metrics": {"manifest_version": manifest.get("version")},
                "failures": [f"not a v2 manifest (version={manifest.get('version')!r})"]}
    try:
        total, dim = int(manifest["total_passages"]), int(manifest["embedding_dim"])
        params, probes = manifest["index_params"], manifest["reference_queries"]
        k, reference = int(manifest["probe_top_k"]), manifest["reference_top_k"]
    except (KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"manifest lacks a field: {exc}") from exc
    ours = faiss_params(chunk_index.index)
    corpus = corpus_set_sha256([c.text for c in chunk_index.chunks])
    metrics: dict[str, Any] = {
        "total_passages": len(chunk_index.chunks), "manifest_total_passages": total,
        "embedding_dim": int(chunk_index.index.dim), "index_params": ours,
        "manifest_index_params": params, "corpus_set_sha256": corpus,
        "manifest_corpus_set_sha256": manifest.get("corpus_set_sha256"),
        "corpus_set_matches": corpus == manifest.get("corpus_set_sha256"),
    }
    failures = []
    if metrics["total_passages"] != total:
        failures.append(f"total_passages: ours {metrics['total_passages']}, manifest {total}")
    if metrics["embedding_dim"] != dim:
        failures.append(f"embedding_dim: ours {metrics['embedding_dim']}, manifest {dim} "
                        "(another retriever model: the comparison means nothing)")
    if ours != params:
        failures.append(f"index_params: ours {ours}, manifest {params}")
    mean, top1, n, per_probe = overlap(top_k_urls(chunk_index, embedder, probes, k),
                                       reference, k)
    metrics |= {"probe_queries_total": n, "retrieval_accuracy": mean,
                "retrieval_top1_rate": top1, "retrieval_threshold": threshold,
                "probe_queries_full_match": sum(1 for _, o in per_probe if o >= 1.0),
                "lowest_probes": sorted(per_probe, key=lambda p: p[1])[:10]}
    if mean < threshold:
        failures.append(f"retrieval overlap {mean:.4f} < {threshold} "
                        f"({metrics['probe_queries_full_match']}/{n} probes fully matched)")
    return {"passed": not failures, "failures": failures, "metrics": metrics}
