"""LLM calls through an injected async chat function: prompts and robust output parsing.

The chat function is supplied by the caller (the harness sends it through its own timed
transport). It receives OpenAI-style ``messages`` and request ``params`` (``max_tokens``,
``temperature``) and returns any object with a ``.content`` string; everything else on the reply
is opaque to this module and is handed back to the caller untouched.

Small models produce junk: every parser here falls back to a sensible value and never raises or
evaluates model output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from rag_pipeline.documents import Chunk

Message = dict[str, Any]
T = TypeVar("T")


@runtime_checkable
class ChatReply(Protocol):
    """What the pipeline needs from a chat reply: its text."""

    @property
    def content(self) -> str | None: ...


ChatFn = Callable[[list[Message], dict[str, Any]], Awaitable[ChatReply]]


@dataclass(frozen=True, slots=True)
class GenerationConfig:
    """Request parameters and prompt budgets."""

    temperature: float = 0.0
    max_tokens_decompose: int = 96
    max_tokens_grade: int = 4
    max_tokens_sufficiency: int = 4
    max_tokens_answer: int = 48
    max_doc_chars: int = 800
    max_context_docs: int = 6
    # sent when set (MLPerf E2E-RAG sends top_p 1.0, top_k -1, reasoning_effort "medium")
    top_p: float | None = None
    top_k: int | None = None
    reasoning_effort: str | None = None

    def params(self, max_tokens: int) -> dict[str, Any]:
        out: dict[str, Any] = {"temperature": self.temperature, "max_tokens": max_tokens}
        for key in ("top_p", "top_k", "reasoning_effort"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


def mlperf_generation() -> GenerationConfig:
    """MLPerf E2E-RAG's request parameters (mlcommons/inference b66003e1,
    ``e2e-rag/multi_shot_retrieval.py`` 273-309: temperature 1.0, top_p 1.0, top_k -1,
    reasoning_effort medium; 481: max_tokens 4096 for grading; 602, 726, 814: 10240 for
    sufficiency, the answer and the search queries)."""
    return GenerationConfig(temperature=1.0, max_tokens_decompose=10240, max_tokens_grade=4096,
                            max_tokens_sufficiency=10240, max_tokens_answer=10240, top_p=1.0,
                            top_k=-1, reasoning_effort="medium")


@dataclass(frozen=True, slots=True)
class LlmResult(Generic[T]):
    """A parsed value and the raw reply object it came from."""

    value: T
    reply: ChatReply


# ---------------------------------------------------------------- parsing

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_LIST_PREFIX = re.compile(
    r"^\s*(?:[-*•]+|\(?\d{1,2}[.):]|(?:sub-?)?query\s*\d*\s*[:.-]|q\d*\s*[:.-])\s*", re.IGNORECASE
)
_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
_ANSWER_PREFIX = re.compile(
    r"^\s*(?:final\s+)?(?:short\s+)?answer\s*(?:is)?\s*[:\-]?\s*|^\s*the answer is\s*[:\-]?\s*",
    re.IGNORECASE,
)
_MAX_QUERY_CHARS = 300
_MAX_ANSWER_CHARS = 200


def reply_text(reply: object) -> str:
    """``reply.content`` as a string with any ``<think>`` block removed; '' when absent."""
    content = getattr(reply, "content", None)
    if not isinstance(content, str):
        return ""
    return _THINK.sub("", content).strip()


def parse_yes_no(text: str, default: bool) -> bool:
    """The first standalone yes/no in ``text``; ``default`` when there is none."""
    match = _YES_NO.search(text)
    if match is None:
        return default
    return match.group(1).lower() == "yes"


def _json_list(text: str) -> list[str] | None:
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end <= start:
        return None
    try:
        value = json.loads(text[start : end + 1])
    except ValueError:
        return None
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


def parse_queries(text: str, limit: int, exclude: Sequence[str] = ()) -> list[str]:
    """Search queries from a list-shaped reply (lines, bullets, numbering or a JSON list).

    Drops preambles ("Here are the queries:"), empty and over-long lines, duplicates and anything
    in ``exclude`` (case-insensitive), and keeps at most ``limit``.
    """
    candidates = _json_list(text)
    if candidates is None:
        candidates = text.splitlines()
    seen = {q.strip().lower() for q in exclude}
    out: list[str] = []
    for raw in candidates:
        line = _LIST_PREFIX.sub("", raw).strip().strip("\"'`").strip()
        if not line or line.endswith(":") or len(line) > _MAX_QUERY_CHARS:
            continue
        key = line.lower()
        if key in seen:
            continue
        seen.add(key)
        out.append(line)
        if len(out) >= limit:
            break
    return out


def parse_answer(text: str) -> str:
    """A short answer: the first non-empty line without "Answer:" prefixes, quotes or final dot."""
    for line in text.splitlines():
        line = _ANSWER_PREFIX.sub("", line).strip().strip("\"'`*").strip()
        if line:
            if line.endswith(".") and line.rsplit(" ", 1)[-1].count(".") == 1:
                line = line[:-1]  # a sentence's full stop, not an abbreviation like "D.C."
            return line[:_MAX_ANSWER_CHARS]
    return ""


# ---------------------------------------------------------------- prompts


def format_docs(docs: Sequence[Chunk], cfg: GenerationConfig) -> str:
    """Numbered documents for a prompt, each cut to ``cfg.max_doc_chars``."""
    lines = []
    for n, chunk in enumerate(docs[: cfg.max_context_docs], start=1):
        lines.append(f"[{n}] {chunk.title}: {chunk.text[: cfg.max_doc_chars]}")
    return "\n".join(lines) if lines else "(no documents)"


def decompose_messages(question: str, limit: int) -> list[Message]:
    return [
        {
            "role": "system",
            "content": (
                f"Break the user's question into at most {limit} short web search queries that "
                "together find the facts needed to answer it. Reply with one query per line "
                "and nothing else."
            ),
        },
        {"role": "user", "content": f"Question: {question}"},
    ]


def grade_messages(question: str, doc_text: str, cfg: GenerationConfig) -> list[Message]:
    return [
        {
            "role": "system",
            "content": "You judge whether a document helps answer a question. "
            "Reply with only yes or no.",
        },
        {
            "role": "user",
            "content": (
                f"Question: {question}\n\nDocument: {doc_text[: cfg.max_doc_chars]}"
                "\n\nDoes the document contain information that helps answer the question? "
                "Answer yes or no."
            ),
        },
    ]


def sufficiency_messages(
    question: str, docs: Sequence[Chunk], cfg: GenerationConfig
) -> list[Message]:
    return [
        {
            "role": "system",
            "content": "You decide whether documents contain enough information to answer a "
            "question. Reply with only yes or no.",
        },
        {
            "role": "user",
            "content": (
                f"Question: {question}\n\nDocuments:\n{format_docs(docs, cfg)}\n\n"
                "Do these documents contain enough information to answer the question? "
                "Answer yes or no."
            ),
        },
    ]


def next_queries_messages(
    question: str, asked: Sequence[str], docs: Sequence[Chunk], limit: int, cfg: GenerationConfig
) -> list[Message]:
    searched = "\n".join(f"- {q}" for q in asked) or "- (nothing yet)"
    return [
        {
            "role": "system",
            "content": (
                "The documents found so far are not enough to answer the question. Write at "
                f"most {limit} new short web search queries for the missing facts. Reply with "
                "one query per line and nothing else."
            ),
        },
        {
            "role": "user",
            "content": (
                f"Question: {question}\n\nAlready searched:\n{searched}\n\n"
                f"Documents found so far:\n{format_docs(docs, cfg)}"
            ),
        },
    ]


def answer_messages(question: str, docs: Sequence[Chunk], cfg: GenerationConfig) -> list[Message]:
    return [
        {
            "role": "system",
            "content": (
                "Answer the question using the documents. Reply with only the short answer "
                "(a name, a date, a number, or yes/no), without explanation."
            ),
        },
        {
            "role": "user",
            "content": f"Documents:\n{format_docs(docs, cfg)}\n\nQuestion: {question}\nAnswer:",
        },
    ]


# ---------------------------------------------------------------- calls


async def decompose(
    chat: ChatFn, question: str, limit: int, cfg: GenerationConfig
) -> LlmResult[list[str]]:
    """Sub-queries for ``question`` (at most ``limit``); falls back to the question itself."""
    reply = await chat(decompose_messages(question, limit), cfg.params(cfg.max_tokens_decompose))
    queries = parse_queries(reply_text(reply), limit)
    return LlmResult(queries or [question], reply)


async def grade_document(
    chat: ChatFn, question: str, doc_text: str, cfg: GenerationConfig, default: bool = True
) -> LlmResult[bool]:
    """Whether ``doc_text`` is relevant to ``question``; ``default`` when the reply is junk."""
    messages = grade_messages(question, doc_text, cfg)
    reply = await chat(messages, cfg.params(cfg.max_tokens_grade))
    return LlmResult(parse_yes_no(reply_text(reply), default), reply)


async def check_sufficiency(
    chat: ChatFn, question: str, docs: Sequence[Chunk], cfg: GenerationConfig, default: bool = False
) -> LlmResult[bool]:
    """Whether ``docs`` suffice to answer; ``default`` when the reply is junk."""
    messages = sufficiency_messages(question, docs, cfg)
    reply = await chat(messages, cfg.params(cfg.max_tokens_sufficiency))
    return LlmResult(parse_yes_no(reply_text(reply), default), reply)


async def next_subqueries(
    chat: ChatFn,
    question: str,
    asked: Sequence[str],
    docs: Sequence[Chunk],
    limit: int,
    cfg: GenerationConfig,
) -> LlmResult[list[str]]:
    """New queries (at most ``limit``, none already asked); may be empty."""
    messages = next_queries_messages(question, asked, docs, limit, cfg)
    reply = await chat(messages, cfg.params(cfg.max_tokens_decompose))
    return LlmResult(parse_queries(reply_text(reply), limit, exclude=asked), reply)


async def generate_answer(
    chat: ChatFn, question: str, docs: Sequence[Chunk], cfg: GenerationConfig
) -> LlmResult[str]:
    """A short HotpotQA-style answer."""
    reply = await chat(answer_messages(question, docs, cfg), cfg.params(cfg.max_tokens_answer))
    return LlmResult(parse_answer(reply_text(reply)), reply)
