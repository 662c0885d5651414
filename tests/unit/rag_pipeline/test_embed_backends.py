"""The faster embedding backends (#20 item 7): torch-bf16 and onnx-int8 give vectors close to the
float model's, carry their own names (their own index), and onnx-int8 builds its int8 graph
locally once and reuses it. Speed and recall are measured in benchmarks/rag_embed_backends.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")

from rag_pipeline.embedders.local import (
    EmbedderUnavailableError,
    SentenceTransformerEmbedder,
    packaged_minilm_path,
)

TEXTS = ["Paris is the capital of France.", "Bees make honey in hives.",
         "The 1965 Houston Astros season was the franchise's first in the Astrodome.",
         # longer than the export's sample and than the model's 256-token limit (truncated)
         " ".join(f"Sentence {n} says that honey bees visit flower {n}." for n in range(40))]


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)


def test_bf16_is_close_to_fp32_and_named_apart() -> None:
    fp32, bf16 = SentenceTransformerEmbedder(), SentenceTransformerEmbedder(bf16=True)
    assert bf16.name == fp32.name + "+bf16" and bf16.batch_size == 16
    vectors = bf16.embed_passages(TEXTS)
    assert vectors.dtype == np.float32 and vectors.shape == (4, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert _cosines(vectors, fp32.embed_passages(TEXTS)).min() > 0.99


def test_onnx_int8_exports_once_and_is_close_to_fp32(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from rag_pipeline.embedders.onnx_int8 import OnnxInt8Embedder

    int8 = OnnxInt8Embedder(packaged_minilm_path(), tmp_path, query_prefix="q: ")
    vectors = int8.embed_passages(TEXTS)
    graphs = list(tmp_path.glob("onnx-int8-*/model-int8.onnx"))
    assert len(graphs) == 1 and not list(tmp_path.glob("onnx-int8-*/model-fp32.onnx"))
    assert vectors.shape == (4, 384) and int8.dim == 384
    fp32 = SentenceTransformerEmbedder().embed_passages(TEXTS)
    assert _cosines(vectors, fp32).min() > 0.9
    stamp = graphs[0].stat().st_mtime_ns
    again = OnnxInt8Embedder(packaged_minilm_path(), tmp_path)
    assert np.allclose(again.embed_passages(TEXTS), vectors, atol=1e-6)
    assert graphs[0].stat().st_mtime_ns == stamp  # loaded, not exported again
    # the order of a batch does not change a text's vector (length-sorted batching)
    assert np.allclose(again.embed_passages(TEXTS[::-1])[::-1], vectors, atol=1e-5)
    assert not np.allclose(int8.embed_queries(TEXTS[:1]), vectors[:1])  # the query prefix


def test_onnx_int8_refuses_other_pipelines() -> None:
    from rag_pipeline.embedders.onnx_int8 import _check_pipeline

    class Transformer:
        pass

    class Pooling:
        def __init__(self, mode: str) -> None:
            self.mode = mode

        def get_config_dict(self) -> dict[str, Any]:
            return {"pooling_mode": self.mode}

    class Dense:
        pass

    _check_pipeline([Transformer(), Pooling("mean")])
    for model in ([Transformer(), Pooling("cls")], [Transformer(), Pooling("mean"), Dense()]):
        with pytest.raises(EmbedderUnavailableError, match="mean pooling"):
            _check_pipeline(model)


def test_backend_choice_errors() -> None:
    from agentic_bench.errors import ConfigError
    from agentic_bench.tasks.rag_e2e.index_cache import make_embedder

    with pytest.raises(ConfigError, match="expected one of"):
        make_embedder("minilm", backend="gpu")
    with pytest.raises(ConfigError, match="local sentence-transformers"):
        make_embedder("e5", "http://127.0.0.1:9/v1", backend="onnx-int8")
    assert make_embedder("minilm", backend="torch-bf16").name.endswith("+bf16")
