"""The prompts of the MLPerf E2E-RAG loop (:mod:`rag_pipeline.reference_loop`) as templates.

A :class:`PromptSet` holds ``str.format`` templates with the reference's field names
(mlcommons/inference b66003e1 ``e2e-rag/multi_shot_retrieval.py``: ``RELEVANCE_CHECK_PROMPT``
60-83 filled at 497-502, ``SUFFICIENCY_CHECK_PROMPT`` 85-112 filled at 613-618,
``QUERY_GENERATION_PROMPT`` 114-155 filled at 837-843, the answer prompt of ``generate_answer``
737-750, and the document, history and feedback lines of 484-495, 604-611, 816-835).

:func:`own_prompts` is agentic-bench's own wording asking for the same JSON shapes (so the same
parsing rules apply); :func:`rag_pipeline.reference_prompt_reader.read_reference_prompts` reads the
reference's own templates from a user's checkout at run time (they are never copied into this
repository).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from string import Formatter

# the fields each template is filled with (name → fields; a template may leave some out)
FIELDS: dict[str, frozenset[str]] = {
    "relevance": frozenset({"question", "new_docs", "kept_docs", "num_docs"}),
    "sufficiency": frozenset({"question", "kept_docs", "iteration", "max_iterations"}),
    "queries": frozenset({"question", "kept_docs", "history", "feedback_history", "max_queries"}),
    "answer": frozenset({"question", "kept_docs"}),
    "new_doc": frozenset({"n", "content"}),
    "kept_header": frozenset({"count"}),
    "kept_doc": frozenset({"n", "snippet"}),
    "doc": frozenset({"n", "content"}),
    "history_line": frozenset({"query", "count"}),
    "no_docs": frozenset(),
    "no_history": frozenset(),
    "first_feedback": frozenset(),
    "feedback_empty": frozenset(),
    "feedback_no_json": frozenset(),
    "feedback_default": frozenset(),
    "feedback_error": frozenset({"error"}),
}


@dataclass(frozen=True, slots=True)
class PromptSet:
    """Every text the loop sends, as ``str.format`` templates.

    ``source`` is empty for our own wording; for prompts read from a reference checkout it names
    each file read and its SHA-256 (``{"path": ..., "sha256": ...}``).
    """

    relevance: str
    sufficiency: str
    queries: str
    answer: str
    new_doc: str
    kept_header: str
    kept_doc: str
    doc: str
    history_line: str
    no_docs: str
    no_history: str
    first_feedback: str
    # the feedback line a query call yields on an empty reply, a reply without JSON, JSON
    # without "feedback", and a failure (msr 877, 895, 900, 914)
    feedback_empty: str
    feedback_no_json: str
    feedback_default: str
    feedback_error: str
    source: tuple[dict[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        for name, allowed in FIELDS.items():
            used = {f for _, f, _, _ in Formatter().parse(getattr(self, name)) if f}
            if not used <= allowed:
                raise ValueError(f"prompt {name!r} uses unknown fields {sorted(used - allowed)}; "
                                 f"expected some of {sorted(allowed)}")

    @property
    def wording(self) -> str:
        return "reference" if self.source else "own"

    def new_docs_text(self, contents: list[str]) -> str:
        return "".join(self.new_doc.format(n=i, content=c) for i, c in enumerate(contents, 1))

    def kept_docs_brief(self, contents: list[str], shown: int = 5, chars: int = 300) -> str:
        """The grader's view of the kept pages: their count and the first ``shown``, each cut
        to ``chars`` characters (msr 488-495); ``no_docs`` when none (502)."""
        if not contents:
            return self.no_docs
        text = self.kept_header.format(count=len(contents))
        for i, content in enumerate(contents[:shown], 1):
            text += self.kept_doc.format(n=i, snippet=content[:chars])
        return text

    def docs_text(self, contents: list[str]) -> str:
        """Kept pages in full (msr 604-611, 728-733, 816-823); ``no_docs`` when none."""
        if not contents:
            return self.no_docs
        return "".join(self.doc.format(n=i, content=c) for i, c in enumerate(contents, 1))

    def history_text(self, asked: list[str], counts: list[int]) -> str:
        """One line per query issued with the new pages it found (msr 826-830)."""
        text = "".join(self.history_line.format(query=q, count=c)
                       for q, c in zip(asked, counts, strict=False))
        return text or self.no_history

    def feedback_text(self, feedback: list[str]) -> str:
        return "\n".join(feedback) if feedback else self.first_feedback


def own_prompts() -> PromptSet:
    """agentic-bench's wording of each step, replying in the reference's JSON shapes."""
    return PromptSet(
        relevance=(
            "Decide for each new document whether it helps answer the question.\n\n"
            "Question: {question}\n\nNew documents:\n{new_docs}\n"
            "Documents already judged relevant:\n{kept_docs}\n\n"
            "Reply with JSON only: {{\"relevance\": [...]}} holding exactly {num_docs} numbers, "
            "one per new document in order: 1 if it helps, 0 if it does not."
        ),
        sufficiency=(
            "Decide whether the documents below hold enough to answer the question.\n\n"
            "Question: {question}\n\nDocuments:\n{kept_docs}\n\n"
            "This is search round {iteration} of at most {max_iterations}; in the last round, "
            "say they are enough so that an answer is written with what there is.\n"
            "Reply with JSON only: {{\"sufficient\": true or false, \"reasoning\": \"why\"}}"
        ),
        queries=(
            "Write web search queries that find what is still missing to answer the question."
            "\n\nQuestion: {question}\n\nDocuments found so far:\n{kept_docs}\n\n"
            "Searches so far:\n{history}\nNotes from earlier rounds:\n{feedback_history}\n\n"
            "Write at most {max_queries} short queries. Reply with JSON only: "
            "{{\"queries\": [\"...\"], \"feedback\": \"what is still missing\"}}"
        ),
        answer=(
            "Answer the question from the documents alone, briefly and specifically. If they "
            "do not say, answer Unknown.\n\nQuestion: {question}\n\nDocuments:\n{kept_docs}\n\n"
            "Answer:"
        ),
        new_doc="\n<new document {n}>\n{content}\n",
        kept_header="({count} relevant so far)\n",
        kept_doc="<relevant {n}> {snippet}\n",
        doc="\n<document {n}>\n{content}\n",
        history_line="* {query} (new pages: {count})\n",
        no_docs="(none)",
        no_history="(none yet)",
        first_feedback="(first round)",
        feedback_empty="(the last query reply was empty)",
        feedback_no_json="(the last query reply held no JSON)",
        feedback_default="(no notes)",
        feedback_error="(the last query call failed: {error})",
    )
