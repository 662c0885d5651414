"""ColBERT-style late-interaction reranking, as MLPerf E2E-RAG's reference computes it.

Reference: mlcommons/inference b66003e1, ``e2e-rag/reranker_worker.py`` 79-133 (rebuilt from its
rules, run on the user's local weights — ColBERTv2 there, ``colbert-ir/colbertv2.0``):

* the model is loaded with ``transformers.AutoModel`` — the plain BERT encoder; ColBERT's
  128-d projection (``linear``) is not part of it and is not applied, and no ``[Q]`` / ``[D]``
  marker or query ``[MASK]`` augmentation is added;
* the query is tokenised to at most 32 tokens (padded to 32, the padding then dropped by the
  attention mask), the passages to at most 512, all passages in one padded batch;
* the score of a passage is the sum, over the query's tokens, of the largest dot product
  (unnormalised ``last_hidden_state`` vectors) with any of the passage's non-padding tokens;
* passages are ordered by score, best first;
* the model runs on ``device`` (moved there after loading, its inputs moved to it:
  ``reranker_worker.py`` 83-86, 113, 122; ``--device``, :mod:`rag_pipeline.devices`), scores
  come back as Python floats; one call is scored at a time (a lock), as the reference's single
  reranker process takes one request at a time off its queue (``reranker_worker.py`` 91-100).

Any local BERT-like model folder works (tests use all-MiniLM-L6-v2's transformer); the weights are
never downloaded.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rag_pipeline.index import Hit

QUERY_MAX_TOKENS = 32
PASSAGE_MAX_TOKENS = 512


class LateInteractionReranker:
    """MaxSim reranking with a local encoder (see the module doc)."""

    def __init__(self, model_dir: str | Path, name: str | None = None,
                 device: str = "cpu") -> None:
        self.model_dir = Path(model_dir)
        self.device = device
        self._name = name or f"late-interaction:{self.model_dir.name}"
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            from rag_pipeline.rerank import RerankerUnavailableError

            if not (self.model_dir / "config.json").is_file():
                raise RerankerUnavailableError(
                    f"{self.model_dir}: no config.json (a local transformers model folder, "
                    "e.g. colbert-ir/colbertv2.0, is needed; nothing is downloaded)")
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from transformers import AutoModel, AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir),
                                                            local_files_only=True)
            self._model = AutoModel.from_pretrained(str(self.model_dir),
                                                    local_files_only=True).to(self.device).eval()
        return self._model, self._tokenizer

    def scores(self, query: str, docs: Sequence[str]) -> list[float]:
        """Each passage's MaxSim score, in input order."""
        if not docs:
            return []
        import torch

        with self._lock, torch.no_grad():
            model, tokenizer = self._load()
            q = tokenizer(query, return_tensors="pt", truncation=True,
                          max_length=QUERY_MAX_TOKENS, padding="max_length").to(self.device)
            q_vectors = model(**q).last_hidden_state.squeeze(0)
            q_vectors = q_vectors[q["attention_mask"].squeeze(0).bool()]
            d = tokenizer(list(docs), return_tensors="pt", truncation=True,
                          max_length=PASSAGE_MAX_TOKENS, padding=True).to(self.device)
            d_vectors = model(**d).last_hidden_state
            sim = torch.einsum("qh,bth->bqt", q_vectors, d_vectors)
            sim = sim.masked_fill(~d["attention_mask"].unsqueeze(1).bool(), float("-inf"))
            return [float(s) for s in sim.max(dim=-1).values.sum(dim=-1).float().cpu()]

    def rerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        from rag_pipeline.rerank import top_by_score

        return top_by_score(self.scores(query, docs), top_k)

    async def arerank(self, query: str, docs: Sequence[str], top_k: int) -> list[Hit]:
        return await asyncio.to_thread(self.rerank, query, docs, top_k)
