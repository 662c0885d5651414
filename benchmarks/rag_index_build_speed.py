"""Where `rag build-index` spends its embedding time, beside plain sentence-transformers (#33).

The issue's figure: `rag build-index --limit 3000` embedded 20.2 passages/s where a plain fp32
`SentenceTransformer.encode(batch_size=256)` of the same kind of passages did 24.5 (0.82x).
This script embeds the *same* passages — the chunks of `rag build-index --limit 3000`'s corpus —
in one process, in turn and interleaved over ``--rounds``:

- ``build_index_path``: what `rag build-index` runs (rag_pipeline/build.py): the passages
  sorted longest first over the whole corpus, embedded in chunks of 256 by the default embedder
  (batches of 32), the vectors put back in corpus order;
- ``corpus_order_batch64``: the path before #33 item 4 (chunks of 256 in corpus order, batches
  of 64);
- ``plain_st_256`` / ``plain_st_32``: one `SentenceTransformer.encode` call over all of them
  with batch 256 (the issue's comparison) and 32 (sentence-transformers' default).

Then `agentic-bench rag build-index --limit N` end to end into an empty cache (its own
passages/s). One JSON line per figure; passages/s counts the embedding call only.

    .venv/bin/python benchmarks/rag_index_build_speed.py [--limit 3000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def emit(figure: str, value: Any, **extra: Any) -> None:
    print(json.dumps({"figure": figure, "value": value, **extra}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=3000, help="paragraphs (as --limit)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds")
    args = parser.parse_args()

    from agentic_bench.tasks.rag_e2e.index_cache import select
    from rag_pipeline import SentenceTransformerEmbedder, chunk_documents
    from rag_pipeline.build import embed_passages_batched, in_corpus_order, length_order

    chosen = select(limit=args.limit)
    texts = [c.passage_text() for c in chunk_documents(chosen.corpus)]
    lengths = [len(t) for t in texts]
    emit("passages", len(texts), mean_chars=round(float(np.mean(lengths)), 1),
         std_chars=round(float(np.std(lengths)), 1), threads=os.cpu_count())
    embedder = SentenceTransformerEmbedder()
    model = embedder._load()  # the same fp32 model object for every variant
    embedder.embed_passages(texts[:32])  # warm-up

    def plain(batch: int) -> Callable[[], np.ndarray]:
        return lambda: np.asarray(model.encode(texts, batch_size=batch, normalize_embeddings=True,
                                               convert_to_numpy=True, show_progress_bar=False))

    def build_path() -> np.ndarray:  # what build_index does (rag_pipeline/build.py)
        order = length_order(texts)
        return in_corpus_order(embed_passages_batched(embedder, [texts[i] for i in order], 256),
                               order)

    before = SentenceTransformerEmbedder(batch_size=64)  # the path before #33 item 4
    before._model = model
    variants: dict[str, Callable[[], np.ndarray]] = {
        "build_index_path": build_path,
        "corpus_order_batch64": lambda: embed_passages_batched(before, texts, 256),
        "plain_st_256": plain(256), "plain_st_32": plain(32),
    }
    rates: dict[str, list[float]] = {name: [] for name in variants}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for name, run in variants.items():
            t0 = time.perf_counter()
            vectors[name] = run()
            rates[name].append(len(texts) / (time.perf_counter() - t0))
    base = vectors["build_index_path"]
    for name, values in rates.items():
        cos = float(np.min(np.sum(base * vectors[name], axis=1)))
        emit(f"{name}_passages_per_s", round(max(values), 1),
             rounds=[round(v, 1) for v in values], min_cosine_to_build_path=round(cos, 7))
    best_plain = max(max(rates["plain_st_256"]), max(rates["plain_st_32"]))
    emit("build_path_vs_plain_st_256", round(max(rates["build_index_path"])
                                              / max(rates["plain_st_256"]), 3))
    emit("build_path_vs_best_plain_st", round(max(rates["build_index_path"]) / best_plain, 3))

    with tempfile.TemporaryDirectory() as cache:
        cli = Path(sys.executable).with_name("agentic-bench")
        res = subprocess.run([str(cli), "rag", "build-index", "--limit", str(args.limit),
                              "--cache-dir", cache, "--quiet"], capture_output=True, text=True)
        found = re.search(r"embed\s+([\d.]+) s, ([\d.]+) passages/s", res.stdout)
        emit("rag_build_index_end_to_end_passages_per_s",
             float(found.group(2)) if found else None, exit=res.returncode,
             embed_s=float(found.group(1)) if found else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
