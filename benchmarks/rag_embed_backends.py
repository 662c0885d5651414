"""Embedding backends side by side: torch fp32, torch bf16, onnx-int8 — speed and recall@10.

Takes N seeded HotpotQA questions (default 300), indexes their own paragraphs (chunked 768/32,
as rag-e2e indexes them; the title is embedded with each chunk) with each backend, then asks
the questions: recall@10 is the share of a question's gold titles among the titles of its top
10 chunks (exact search, so the figure is the embedder's alone). Both backends embed the same
texts in the same process, one after the other; passages/s counts the embedding call only (the
onnx-int8 export happens before, once, and is cached). One JSON line per figure.
torch-fp32 is what `rag build-index` does by default (batches of 32); torch-bf16 and onnx-int8
are `--embed-backend torch-bf16 | onnx-int8` (batches of 16, sorted by length).

    .venv/bin/python benchmarks/rag_embed_backends.py [--questions 300] [--threads N]

Exit status 1 when no faster backend is at least 3x faster than torch-fp32 with a recall@10 at
most 0.01 below it (the #20 acceptance figures).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from agentic_bench.tasks.rag_e2e.backend_calibration import hotpotqa_probe
from rag_pipeline import SentenceTransformerEmbedder
from rag_pipeline.embedders.local import packaged_minilm_path
from rag_pipeline.embedders.onnx_int8 import OnnxInt8Embedder

SPEEDUP, RECALL_SLACK = 3.0, 0.01


def emit(figure: str, value: Any, **extra: Any) -> None:
    print(json.dumps({"figure": figure, "value": value, **extra}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--threads", type=int, default=None,
                        help="onnxruntime threads (default: every core, as torch uses)")
    args = parser.parse_args()
    probe = hotpotqa_probe(args.questions)  # the questions `--embed-backend auto` asks
    texts = probe.texts
    emit("chunks", len(texts), questions=len(probe.asked),
         mean_chars=round(float(np.mean([len(t) for t in texts])), 1))
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as cache:
        backends = {
            "torch-fp32": SentenceTransformerEmbedder(),
            "torch-bf16": SentenceTransformerEmbedder(bf16=True),
            "onnx-int8": OnnxInt8Embedder(packaged_minilm_path(), Path(cache),
                                          threads=args.threads),
        }
        for name, embedder in backends.items():
            started = time.perf_counter()
            embedder.embed_queries(["warm-up"])  # load (and for onnx-int8: export, quantise)
            emit(f"{name}.load_s", round(time.perf_counter() - started, 2))
            started = time.perf_counter()
            vectors = embedder.embed_passages(texts)
            seconds = time.perf_counter() - started
            recall = probe.recall_at_10(embedder, vectors)
            results[name] = {"passages_per_s": len(texts) / seconds, "recall@10": recall}
            emit(f"{name}.passages_per_s", round(len(texts) / seconds, 1),
                 seconds=round(seconds, 1))
            emit(f"{name}.recall@10", round(recall, 4))
    base = results["torch-fp32"]
    passed = False
    for name in ("torch-bf16", "onnx-int8"):
        speedup = results[name]["passages_per_s"] / base["passages_per_s"]
        drop = base["recall@10"] - results[name]["recall@10"]
        emit(f"{name}.speedup", round(speedup, 2), target=SPEEDUP)
        emit(f"{name}.recall@10_drop", round(drop, 4), target=RECALL_SLACK)
        passed |= speedup >= SPEEDUP and drop <= RECALL_SLACK
    return 0 if passed else 1

if __name__ == "__main__":
    sys.exit(main())
