"""The agent's tools: ``search(query)`` and ``open(page_id)`` over the RAG index, timed by stage.

``search`` runs the retrieval stages of the RAG pipeline: the query is embedded (``embed``),
FAISS returns ``search_k`` chunks (``search``), the reranker keeps ``results_k`` and they are
written out for the model (``rerank``). ``open`` returns a page's text (``open``). Each call's
stages are contiguous :func:`perf_counter_ns` intervals from the call's first instant to its
last, so they add up to the call's wait exactly. A call the model got wrong (an unknown tool,
arguments that are not a JSON object, a missing or empty argument, an unknown page) returns an
``Error: ...`` text for the model to read, timed as one ``dispatch`` stage.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag_pipeline import ChunkIndex, Document, Embedder
    from rag_pipeline.rerank import Reranker

SEARCH, OPEN = "search", "open"

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": SEARCH,
        "description": "Search the Wikipedia paragraphs for a query; returns the best matches "
                       "as [page_id] title: text.",
        "parameters": {"type": "object",
                       "properties": {"query": {"type": "string",
                                                "description": "what to look for"}},
                       "required": ["query"]}}},
    {"type": "function", "function": {
        "name": OPEN,
        "description": "Read one page whole, by the page_id a search result showed.",
        "parameters": {"type": "object",
                       "properties": {"page_id": {"type": "string",
                                                  "description": "a page_id from search"}},
                       "required": ["page_id"]}}},
]


@dataclass(frozen=True, slots=True)
class StageSpan:
    """One timed stage of a tool call: ``embed``, ``search``, ``rerank``, ``open`` or
    ``dispatch`` (a call refused before any retrieval)."""

    stage: str
    start_ns: int
    end_ns: int
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What one tool call gave the model (``output``), its stages, the pages it showed
    (search results, or the page opened) and, for a call the model got wrong, the reason."""

    tool: str
    output: str
    stages: tuple[StageSpan, ...]
    pages: tuple[str, ...] = ()
    error: str | None = None

    @property
    def wait_ns(self) -> int:
        """The call's wait: its first stage's start to its last stage's end."""
        return self.stages[-1].end_ns - self.stages[0].start_ns


def page_texts(documents: Sequence[Document]) -> dict[str, tuple[str, str]]:
    """``page_id`` (the document id: a HotpotQA title) → (title, text), first one kept."""
    pages: dict[str, tuple[str, str]] = {}
    for doc in documents:
        pages.setdefault(doc.doc_id, (doc.title, doc.text))
    return pages


def decode_arguments(arguments: str | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A tool call's arguments as a dict; None when they are not a JSON object."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    try:
        value = json.loads(arguments or "{}")
    except (json.JSONDecodeError, TypeError):
        return None
    return value if isinstance(value, dict) else None


class RagTools:
    """``search`` and ``open`` over one index (shared, read-only, by every session of a run)."""

    def __init__(self, index: ChunkIndex, embedder: Embedder, reranker: Reranker,
                 pages: Mapping[str, tuple[str, str]], *, search_k: int = 10,
                 results_k: int = 3, snippet_chars: int = 200, open_chars: int = 1500) -> None:
        self.index = index
        self.embedder = embedder
        self.reranker = reranker
        self.pages = dict(pages)
        self.search_k = search_k
        self.results_k = results_k
        self.snippet_chars = snippet_chars
        self.open_chars = open_chars

    async def call(self, name: str, arguments: str | Mapping[str, Any] | None) -> ToolOutcome:
        """Run the tool ``name`` with the model's ``arguments`` (JSON text or a dict)."""
        start = perf_counter_ns()
        args = decode_arguments(arguments)
        if args is None:
            return _refused(name, start, "arguments are not a JSON object")
        if name == SEARCH:
            query = args.get("query")
            if not isinstance(query, str) or not query.strip():
                return _refused(name, start, "search needs a non-empty 'query' string")
            return await self.search(query.strip(), start)
        if name == OPEN:
            page = args.get("page_id")
            if not isinstance(page, str) or not page.strip():
                return _refused(name, start, "open needs a 'page_id' string")
            return self.open(page.strip(), start)
        return _refused(name, start, f"unknown tool {name!r} (tools: search, open)")

    async def search(self, query: str, start: int | None = None) -> ToolOutcome:
        """Embed ``query``, search FAISS, rerank; the results as ``[page_id] title: text``."""
        from rag_pipeline import aembed_queries

        t0 = perf_counter_ns() if start is None else start
        vectors = await aembed_queries(self.embedder, [query])
        t1 = perf_counter_ns()
        hits = self.index.search(vectors, self.search_k)[0]
        t2 = perf_counter_ns()
        chunks = [self.index.chunks[position] for position, _ in hits]
        ranked = await self.reranker.arerank(query, [c.passage_text() for c in chunks],
                                             self.results_k)
        kept = [chunks[j] for j, _ in ranked]
        lines = [f"[{c.doc_id}] {c.title}: {c.text[:self.snippet_chars]}" for c in kept]
        output = "\n".join(lines) if lines else "No results."
        t3 = perf_counter_ns()
        stages = (StageSpan("embed", t0, t1, {"query": query}),
                  StageSpan("search", t1, t2, {"k": self.search_k, "hits": len(hits)}),
                  StageSpan("rerank", t2, t3, {"candidates": len(chunks), "kept": len(kept),
                                               "reranker": self.reranker.name}))
        return ToolOutcome(SEARCH, output, stages, tuple(dict.fromkeys(c.doc_id for c in kept)))

    def open(self, page_id: str, start: int | None = None) -> ToolOutcome:
        """The text of page ``page_id`` (cut to ``open_chars``), or an error naming it."""
        t0 = perf_counter_ns() if start is None else start
        key = page_id if page_id in self.pages else page_id.strip("[]")  # "[Paris]" as shown
        if key not in self.pages:
            return _refused(OPEN, t0, f"no page {page_id!r}; use a page_id that search showed")
        title, text = self.pages[key]
        output = f"{title}\n{text[:self.open_chars]}"
        return ToolOutcome(OPEN, output, (StageSpan("open", t0, perf_counter_ns(),
                                                    {"chars": len(output)}),), (key,))


def _refused(name: str, start: int, reason: str) -> ToolOutcome:
    return ToolOutcome(name, f"Error: {reason}", (StageSpan("dispatch", start, perf_counter_ns()),),
                       error=reason)


__all__ = ["OPEN", "SEARCH", "TOOL_SCHEMAS", "RagTools", "StageSpan", "ToolOutcome",
           "decode_arguments", "page_texts"]
