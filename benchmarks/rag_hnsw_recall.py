"""HNSW recall@10 against exact search on real HotpotQA paragraphs and questions.

Embeds about 5,000 pooled HotpotQA paragraphs (chunked 768/32) with all-MiniLM-L6-v2, builds a
FAISS flat (exact) and an HNSW (M=32, efConstruction=200) index over the same vectors, and
searches 500 held-out HotpotQA questions (their text is never indexed). Prints one JSON line per
figure; exits non-zero when recall@10 at efSearch=100 is below 0.95.

    .venv/bin/python benchmarks/rag_hnsw_recall.py [--paragraphs 5000] [--queries 500]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

from rag_pipeline import (
    FlatIndex,
    HnswIndex,
    SentenceTransformerEmbedder,
    build_index,
    load_hotpotqa,
    peak_rss_mb,
    pooled_corpus,
    sample_questions,
)

ACCEPT_RECALL = 0.95


def emit(figure: str, value: Any, **extra: Any) -> None:
    print(json.dumps({"figure": figure, "value": value, **extra}), flush=True)


def recall_at_k(
    approx: list[list[tuple[int, float]]], exact: list[list[tuple[int, float]]]
) -> float:
    total = 0.0
    for a, e in zip(approx, exact, strict=True):
        truth = {i for i, _ in e}
        total += len({i for i, _ in a} & truth) / max(len(truth), 1)
    return total / max(len(exact), 1)


def timed_search(index: FlatIndex | HnswIndex, queries: np.ndarray, k: int) -> tuple[list, float]:
    start = time.perf_counter()
    hits = [index.search(q, k)[0] for q in queries]  # one query at a time, like serving
    return hits, (time.perf_counter() - start) * 1000 / len(queries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--cache-dir", default=None, help="re-use embeddings between runs")
    parser.add_argument("--ef-search", default="16,32,64,100,200")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    questions = sample_questions(load_hotpotqa(), n=10**9)  # all, in file order
    shuffled = sample_questions(questions, n=len(questions) - 1, seed=args.seed)
    held_out, rest = shuffled[: args.queries], shuffled[args.queries :]
    corpus = pooled_corpus(rest)[: args.paragraphs]
    emit("paragraphs", len(corpus))
    emit("queries", len(held_out))

    embedder = SentenceTransformerEmbedder(batch_size=args.batch_size)
    flat_ci, stats = build_index(
        corpus, embedder, kind="flat", cache_dir=args.cache_dir, batch_size=256
    )
    emit("chunks", stats.chunks, chunk_size=768, overlap=32)
    emit("embed_passages_per_s", round(stats.passages_per_s, 1), from_cache=stats.from_cache)
    emit("embed_s", round(stats.embed_s, 2))
    flat = flat_ci.index
    assert isinstance(flat, FlatIndex)
    vectors = flat.vectors()

    start = time.perf_counter()
    hnsw = HnswIndex(vectors.shape[1], m=32, ef_construction=200, ef_search=100)
    hnsw.add(vectors, flat.ids)
    emit("hnsw_build_s", round(time.perf_counter() - start, 3), m=32, ef_construction=200)

    queries = embedder.embed_queries([q.question for q in held_out])
    exact, flat_ms = timed_search(flat, queries, args.k)
    emit("flat_search_ms_per_query", round(flat_ms, 4))
    accepted = None
    for ef in (int(x) for x in args.ef_search.split(",")):
        hnsw.set_ef_search(ef)
        approx, hnsw_ms = timed_search(hnsw, queries, args.k)
        recall = recall_at_k(approx, exact)
        emit(f"hnsw_recall_at_{args.k}", round(recall, 4), ef_search=ef)
        emit("hnsw_search_ms_per_query", round(hnsw_ms, 4), ef_search=ef)
        if ef == 100:
            accepted = recall
    emit("peak_rss_mb", round(peak_rss_mb(), 1))
    if accepted is not None:
        ok = accepted >= ACCEPT_RECALL
        emit("acceptance", ok, ef_search=100, recall=round(accepted, 4), threshold=ACCEPT_RECALL)
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
