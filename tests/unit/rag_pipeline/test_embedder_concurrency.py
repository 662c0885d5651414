"""#43 E2E-RAG item 4: embedding calls from several threads run at once, as the reference's do.

Reference (mlcommons/inference b66003e1 ``e2e-rag/``): the LoadGen SUT runs its queries on a
pool of 10 threads (``reference_SUT.py`` 202-205) and never calls ``enable_threading``, so
``retrieve/vectordb.py`` 640-645 embeds each query with no lock (``_embedding_lock`` stays None,
170); the DB workers embed "WITHOUT holding db_lock" (``reference_SUT_datasetup.py`` 255-263).
Before #43 our local embedders took a lock around every encode, so two calls never overlapped:
the barrier tests below time out on that code.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from rag_pipeline.embedders.local import SentenceTransformerEmbedder
from rag_pipeline.embedders.onnx_int8 import OnnxInt8Embedder

DIM = 4


class MeetingModel:
    """A model whose encode returns only once ``parties`` encodes are inside it at the same
    time (a barrier): calls made one at a time break the barrier after its timeout."""

    def __init__(self, parties: int = 2) -> None:
        self.barrier = threading.Barrier(parties, timeout=5)

    def meet(self, rows: int) -> np.ndarray:
        self.barrier.wait()
        return np.ones((rows, DIM), dtype=np.float32)

    # sentence-transformers' surface
    def encode(self, items: Sequence[str], **_: Any) -> np.ndarray:
        return self.meet(len(items))

    def get_embedding_dimension(self) -> int:
        return DIM

    # onnxruntime's surface
    def run(self, _: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        rows, tokens = feeds["input_ids"].shape
        return [self.meet(rows)[:, None, :].repeat(tokens, axis=1)]


def fake_tokenizer(texts: list[str], **_: Any) -> dict[str, np.ndarray]:
    return {"input_ids": np.ones((len(texts), 3), dtype=np.int64),
            "attention_mask": np.ones((len(texts), 3), dtype=np.int64)}


def in_two_threads(call: Callable[[], np.ndarray]) -> list[np.ndarray]:
    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(call) for _ in range(2)]
        return [f.result(timeout=30) for f in futures]


def test_sentence_transformer_encodes_overlap() -> None:
    embedder = SentenceTransformerEmbedder(model_path="/unused")
    embedder._model = MeetingModel()  # loaded: only encoding is exercised
    out = in_two_threads(lambda: embedder.embed_queries(["q"]))
    assert [o.shape for o in out] == [(1, DIM), (1, DIM)]


def test_onnx_int8_encodes_overlap() -> None:
    embedder = OnnxInt8Embedder("/unused", "/unused")
    embedder._session, embedder._tokenizer = MeetingModel(), fake_tokenizer
    embedder._inputs, embedder._dim = ["input_ids", "attention_mask"], DIM
    out = in_two_threads(lambda: embedder.embed_passages(["p"]))
    assert [o.shape for o in out] == [(1, DIM), (1, DIM)]


def test_the_real_model_from_many_threads_matches_one_thread() -> None:
    """The packaged all-MiniLM-L6-v2 (fast tokenizer, torch CPU) called from 4 threads at once
    from its very first call: no "Already borrowed", and the vectors those calls return are the
    ones a single thread gets."""
    pytest.importorskip("sentence_transformers")
    from rag_pipeline.embedders.local import packaged_minilm_path

    try:
        path = packaged_minilm_path()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    texts = [[f"question {n} about topic {n * 7} and something else"] * (1 + n % 3)
             for n in range(4)]
    shared = SentenceTransformerEmbedder(model_path=path)
    start = threading.Barrier(len(texts), timeout=30)

    def embed(batch: list[str]) -> np.ndarray:
        start.wait()  # every thread's first call at the same moment (loading included)
        return shared.embed_passages(batch)

    with ThreadPoolExecutor(len(texts)) as pool:
        together = list(pool.map(embed, texts))
    for batch, vectors in zip(texts, together, strict=True):  # now one call at a time
        np.testing.assert_allclose(vectors, shared.embed_passages(batch), atol=1e-5)
