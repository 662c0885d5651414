"""Plain data types shared across the pipeline: documents and their chunks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Document:
    """A retrievable unit of text before chunking (e.g. one Wikipedia lead paragraph)."""

    doc_id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Chunk:
    """A window of a document's text; ``start`` is the character offset in the document."""

    doc_id: str
    chunk_id: str
    title: str
    text: str
    start: int

    def passage_text(self) -> str:
        """The text that gets embedded / indexed: title and chunk text on separate lines."""
        return f"{self.title}\n{self.text}" if self.title else self.text
