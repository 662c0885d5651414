"""Character chunking with overlap (MLPerf E2E-RAG uses 768 characters, 32 overlap)."""

from __future__ import annotations

from collections.abc import Iterable

from rag_pipeline.documents import Chunk, Document

DEFAULT_CHUNK_SIZE = 768
DEFAULT_OVERLAP = 32


def split_text(
    text: str, size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_OVERLAP
) -> list[tuple[int, str]]:
    """Split ``text`` into windows of ``size`` characters, consecutive windows sharing ``overlap``.

    Returns ``(start, window)`` pairs. The last window ends at the end of the text; no window is
    wholly contained in the previous one. Empty text gives no windows.
    """
    if size <= 0:
        raise ValueError(f"chunk size must be positive, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be in [0, size), got overlap={overlap} size={size}")
    if not text:
        return []
    step = size - overlap
    windows: list[tuple[int, str]] = []
    start = 0
    while True:
        windows.append((start, text[start : start + size]))
        if start + size >= len(text):
            break
        start += step
    return windows


def chunk_document(
    doc: Document, size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_OVERLAP
) -> list[Chunk]:
    """Chunk one document; chunk ids are ``"{doc_id}#{n}"``. A document with ``passages`` keeps
    them as its chunks (``size`` and ``overlap`` do not apply)."""
    if doc.passages:
        return [Chunk(doc_id=doc.doc_id, chunk_id=f"{doc.doc_id}#{n}", title=doc.title,
                      text=text, start=start, embed_title=False)
                for n, (start, text) in enumerate(doc.passages)]
    return [
        Chunk(
            doc_id=doc.doc_id,
            chunk_id=f"{doc.doc_id}#{n}",
            title=doc.title,
            text=window,
            start=start,
        )
        for n, (start, window) in enumerate(split_text(doc.text, size, overlap))
    ]


def chunk_documents(
    docs: Iterable[Document], size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_OVERLAP
) -> list[Chunk]:
    """Chunk every document, preserving document order."""
    chunks: list[Chunk] = []
    for doc in docs:
        chunks.extend(chunk_document(doc, size, overlap))
    return chunks
