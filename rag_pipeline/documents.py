"""Plain data types shared across the pipeline: documents and their chunks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Document:
    """A retrievable unit of text before chunking (e.g. one Wikipedia lead paragraph).

    ``passages`` — ``(start, text)`` pairs — are given when the document comes already cut (MLPerf's
    reference layout, :mod:`rag_pipeline.reference_corpus`); such passages are indexed as they
    are, without the title in front (the reference embeds the passage alone).
    """

    doc_id: str
    title: str
    text: str
    passages: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A window of a document's text; ``start`` is the character offset in the document."""

    doc_id: str
    chunk_id: str
    title: str
    text: str
    start: int
    embed_title: bool = True

    def passage_text(self) -> str:
        """The text that gets embedded / indexed: title and chunk text on separate lines (the
        chunk text alone for a pre-cut passage, or when there is no title)."""
        return f"{self.title}\n{self.text}" if self.title and self.embed_title else self.text
