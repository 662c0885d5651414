"""Late-interaction reranking as MLPerf's reference computes it (mlcommons/inference b66003e1,
e2e-rag/reranker_worker.py 103-133): query padded to 32 tokens with the padding dropped, passages
to 512 in one padded batch, unnormalised dot products, MaxSim over non-padding passage tokens,
summed over query tokens. Checked against a token-by-token loop on real (MiniLM) weights."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from rag_pipeline.embedders.local import packaged_minilm_path  # noqa: E402
from rag_pipeline.late_interaction import LateInteractionReranker  # noqa: E402

DOCS = ["Bees make honey in hives during the summer.",
        "Paris is the capital and largest city of France, on the Seine.",
        "The Houston Astros played the 1965 season in the Astrodome."]


def _loop_scores(model_dir: Path, query: str, docs: list[str]) -> list[float]:
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    with torch.no_grad():
        q = tokenizer(query, return_tensors="pt", truncation=True, max_length=32)
        q_tokens = model(**q).last_hidden_state[0]  # unpadded: the same real tokens
        scores = []
        for doc in docs:
            d = tokenizer(doc, return_tensors="pt", truncation=True, max_length=512)
            d_tokens = model(**d).last_hidden_state[0]
            scores.append(sum(max(float(qt @ dt) for dt in d_tokens) for qt in q_tokens))
    return scores


def test_maxsim_scores_and_order() -> None:
    model_dir = packaged_minilm_path()
    reranker = LateInteractionReranker(model_dir)
    query = "What is the capital of France?"
    scores = reranker.scores(query, DOCS)
    # a padded batch gives the scores each passage gets alone (padding is masked out)
    assert scores == pytest.approx(_loop_scores(model_dir, query, DOCS), rel=1e-4)
    hits = reranker.rerank(query, DOCS, 2)
    assert [i for i, _ in hits] == sorted(range(3), key=lambda i: -scores[i])[:2]
    assert hits[0][0] == 1
    assert reranker.rerank(query, [], 3) == []


def test_missing_weights_are_refused(tmp_path: Path) -> None:
    from rag_pipeline.rerank import RerankerUnavailableError

    with pytest.raises(RerankerUnavailableError, match=r"config\.json"):
        LateInteractionReranker(tmp_path).scores("q", ["d"])
