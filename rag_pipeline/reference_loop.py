"""The MLPerf E2E-RAG loop as the reference runs it (flow ``mlperf``; wired in :mod:`.graph`).

Transcribes ``multi_shot_retrieval()`` of mlcommons/inference b66003e1
``e2e-rag/multi_shot_retrieval.py`` (``msr`` below), iteration by iteration::

    iteration 1: queries (decompose)                          → retrieve → collect
    iteration i: grade new pages → sufficiency → answer (sufficient) → end
                                              └→ queries → retrieve → collect
    collect at iteration max_iterations ends the loop unanswered ("")

- **Collect** (msr 1479-1562): per query ``retrieve_k`` chunks, reranked only when there are
  more than ``max(rerank_k, retrieve_k // queries)`` and cut to that; the first chunk of each
  page not seen before in this question becomes a *new page* (order: query by query); a chunk
  of a page without a URL (``file:<name>``: ``url_mapping.json`` has none) is dropped, neither
  graded, kept nor counted, as the reference keeps only results whose ``original_url`` is
  set (msr 1549-1556; ``read_docs.py`` 425-427 gives an unmapped page ``""``).
- **Grade** (msr 1313-1333, 468-573): one call over all new pages; ``relevance[i] == 1`` keeps
  page i; an empty reply, no JSON object, a list of the wrong length or any failure keeps all.
- **Sufficiency** (msr 1341-1367, 576-704): only when something is kept; the JSON
  ``sufficient`` is read for its truth value; at the last iteration it is forced true (also on
  an empty or unreadable reply or a failure); else those count as not sufficient.
- **Queries** (msr 1240-1282, 1391-1417, 799-914): the kept pages (at most the last 12), the
  search history with each query's new-page count and the feedback so far; ``queries`` of the
  JSON reply, the question itself on an empty reply, no JSON or a failure, and when the list is
  empty (1474-1477). Feedback lines are kept when new (1420-1424).
- **Answer** (msr 1371-1390, 707-797): from all kept pages in full; an empty reply or a failure
  answers ``Unknown``.
- **Retrieval list** (msr 1598-1607): the kept pages in the order kept, cut to 10 by the caller.

A chat reply's text is its content stripped, or, when that is empty, the first-to-last brace
span of its ``reasoning`` (msr 356-366). A failed call (the chat function raises) takes the
stage's fallback; the question goes on.
"""

from __future__ import annotations

import json
import re
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypedDict

from rag_pipeline.events import timed_stage
from rag_pipeline.generation import ChatFn
from rag_pipeline.index import Hit
from rag_pipeline.loop_prompts import PromptSet, own_prompts
from rag_pipeline.nodes import RagNodes, chat_function, stage_callback
from rag_pipeline.reference_corpus import reference_url

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

QUERY_GEN_DOCS = 12  # msr 1396-1399: the last 12 kept pages go into a query prompt
UNKNOWN = "Unknown"  # msr 779-797: what an empty or failed answer call becomes
# The iteration a call belongs to (the reference's ``hop_count``, msr 1289, 1324, 1354, 1382,
# 1412) while the chat function runs: a chat function may read it to key the call.
current_hop: ContextVar[int | None] = ContextVar("reference_loop_hop", default=None)


class CallMustSucceed(Exception):
    """Raised by a chat function for a call the loop may not fall back from: in the reference's
    perf-test mode a call with a cached reply must succeed (msr 408-418, 430-455; the stage
    functions re-raise it, 563-570, 690-697, 785-793, 903-911), so the question fails."""


_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)\n?```", re.DOTALL)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class LoopState(TypedDict, total=False):
    question: str
    iteration: int
    queries: list[str]  # this iteration's queries
    asked: list[str]  # every query issued, in order (the search history)
    found: list[int]  # new pages each asked query found
    feedback: list[str]
    last_feedback: str
    round: int
    hits: list[list[Hit]]
    seen: list[int]
    pages: list[str]  # pages met so far (their doc ids), graded or not
    new: list[int]  # this iteration's new pages: the first chunk of each
    kept: list[int]  # chunks of the pages graded relevant, in the order kept
    relevant: list[list[int]]  # kept per grading call
    reranked: list[int]
    sufficient: Any
    answer: str
    context: list[int]
    llm_calls: int


def reply_text(reply: object) -> str:
    """The text a reply yields in the reference: content stripped, else the ``{...}`` span of
    the reasoning (msr 356-366)."""
    content = getattr(reply, "content", None)
    text = content.strip() if isinstance(content, str) else ""
    if not text:
        reasoning = getattr(reply, "reasoning", None)
        if isinstance(reasoning, str) and (match := _OBJECT.search(reasoning)):
            text = match.group(0)
    return text


def json_object(text: str) -> Any:
    """The reply's JSON as the reference reads it: the fenced block when there is one, then the
    greedy first-``{``-to-last-``}`` span; ``None`` without a span; raises when it does not
    parse (msr 538-554, 663-676, 880-894)."""
    if "```" in text and (fenced := _FENCE.search(text)):
        text = fenced.group(1).strip()
    match = _OBJECT.search(text)
    if match is None:
        return None
    return json.loads(match.group(0))


def parse_relevance(text: str, count: int) -> list[Any]:
    """The ``relevance`` list of a grading reply; all relevant (``[1] * count``) on an empty
    reply, no JSON object, a wrong length or anything that fails (msr 534-573)."""
    everything: list[Any] = [1] * count
    if not text:
        return everything
    try:
        value = json_object(text)
        if value is None:
            return everything
        relevance = value.get("relevance", [])
        if len(relevance) != count:
            return everything
        return list(relevance)
    except Exception:
        return everything


def parse_sufficient(text: str, final: bool) -> Any:
    """``sufficient`` of a sufficiency reply (its value, read for truth by the caller); forced
    true at the last iteration (msr 655-704)."""
    try:
        value = json_object(text) if text else None
        if value is None:
            return final
        sufficient = value.get("sufficient", False)
    except Exception:
        return final
    return sufficient if sufficient or not final else True


def parse_queries(text: str, question: str, prompts: PromptSet) -> tuple[Any, Any]:
    """``(queries, feedback)`` of a query reply: the question alone on an empty reply, without
    JSON or when it fails to parse, each with its feedback line (msr 876-914)."""
    if not text:
        return [question], prompts.feedback_empty
    try:
        value = json_object(text)
        if value is None:
            return [question], prompts.feedback_no_json
        return (value.get("queries", [question]),
                value.get("feedback", prompts.feedback_default))
    except Exception as exc:
        return [question], prompts.feedback_error.format(error=exc)


class ReferenceLoopNodes(RagNodes):
    """The nodes of the ``mlperf`` flow (retrieval is :meth:`RagNodes.retrieve`)."""

    def __init__(self, *args: Any, prompts: PromptSet | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.prompts = prompts or own_prompts()

    def _page(self, position: int) -> str:
        return self.index.chunks[position].doc_id

    def _content(self, position: int) -> str:
        return self.index.chunks[position].text

    async def _ask(self, config: RunnableConfig, prompt: str, max_tokens: int,
                   details: dict[str, Any], hop: int) -> str | None:
        """One call of iteration ``hop``; the reply's text, or ``None`` when the call failed
        (recorded in ``details["failed"]``)."""
        chat: ChatFn = chat_function(config)
        params = self.config.generation.params(max_tokens)
        token = current_hop.set(hop)
        try:
            reply = await chat([{"role": "user", "content": prompt}], params)
        except CallMustSucceed:
            raise
        except Exception as exc:  # the reference catches every failure and falls back
            details["failed"], details["failed_type"] = str(exc)[:300], type(exc).__name__
            return None
        finally:
            current_hop.reset(token)
        details["replies"] = [reply]
        return reply_text(reply)

    async def queries(self, state: LoopState, config: RunnableConfig) -> LoopState:
        question, cfg, p = state["question"], self.config, self.prompts
        iteration = state.get("iteration", 0) or 1
        kept = state.get("kept", [])[-QUERY_GEN_DOCS:]
        prompt = p.queries.format(
            question=question, kept_docs=p.docs_text([self._content(i) for i in kept]),
            history=p.history_text(state.get("asked", []), state.get("found", [])),
            feedback_history=p.feedback_text(state.get("feedback", [])),
            max_queries=cfg.max_subqueries)
        kind = "decompose" if not state.get("asked") else "next_subqueries"
        info = {"round": state.get("round", 0), "kind": kind, "iteration": iteration}
        with timed_stage("decompose", stage_callback(config), info) as details:
            text = await self._ask(config, prompt, cfg.generation.max_tokens_decompose, details,
                                   iteration)
            if text is None:
                queries, feedback = [question], p.feedback_error.format(error=details["failed"])
            else:
                queries, feedback = parse_queries(text, question, p)
            if not isinstance(queries, list) or not queries:  # msr 1474-1477
                queries = [question]
            queries = [q if isinstance(q, str) else json.dumps(q) for q in queries]
            details["queries"] = queries
        feedback_list = list(state.get("feedback", []))
        last = state.get("last_feedback", "")
        line = feedback if isinstance(feedback, str) else ""
        if line.strip() and line != last:  # msr 1420-1424
            feedback_list.append(line.strip())
        return {"iteration": iteration, "queries": queries, "feedback": feedback_list,
                "last_feedback": line, "llm_calls": state.get("llm_calls", 0) + 1}

    async def collect(self, state: LoopState, config: RunnableConfig) -> LoopState:
        queries = state.get("queries") or [state["question"]]
        hits = state.get("hits", [])
        keep = max(self.config.rerank_k, self.config.retrieve_k // max(1, len(queries)))
        pages = list(state.get("pages", []))
        met = set(pages)
        new: list[int] = []
        found: list[int] = []
        info = {"round": state.get("round", 0), "reranker": self.reranker.name}
        with timed_stage("rerank", stage_callback(config), info) as details:
            for query, query_hits in zip(queries, hits, strict=False):
                positions = [i for i, _ in query_hits]
                if len(positions) > keep:  # msr 1518-1531
                    ranked = await self.reranker.arerank(
                        query, [self._text(i) for i in positions], keep)
                    positions = [positions[j] for j, _ in ranked]
                before = len(new)
                for position in positions:  # msr 1549-1556
                    page = self._page(position)
                    if not reference_url(page):  # no URL: the reference drops the result
                        continue
                    if page not in met:
                        met.add(page)
                        pages.append(page)
                        new.append(position)
                found.append(len(new) - before)
            details.update(candidates=sum(len(h) for h in hits), kept=len(new),
                           keep_per_query=keep)
        return {"pages": pages, "new": new, "reranked": new,
                "asked": [*state.get("asked", []), *queries],
                "found": [*state.get("found", []), *found]}

    def route_after_collect(self, state: LoopState) -> str:
        return "end" if state.get("iteration", 1) >= self.config.max_rounds else "grade"

    async def grade(self, state: LoopState, config: RunnableConfig) -> LoopState:  # type: ignore[override]
        iteration = state.get("iteration", 1) + 1
        new = state.get("new", [])
        kept = list(state.get("kept", []))
        relevant = [list(r) for r in state.get("relevant", [])]
        calls = state.get("llm_calls", 0)
        if new and not self.config.grade:  # --no-grade: every new page is kept
            kept += new
            relevant.append(list(new))
        elif new:
            p = self.prompts
            prompt = p.relevance.format(
                question=state["question"],
                new_docs=p.new_docs_text([self._content(i) for i in new]),
                kept_docs=p.kept_docs_brief([self._content(i) for i in kept]),
                num_docs=len(new))
            info = {"round": state.get("round", 0), "docs": len(new), "iteration": iteration}
            with timed_stage("grade", stage_callback(config), info) as details:
                text = await self._ask(config, prompt, self.config.generation.max_tokens_grade,
                                       details, iteration)
                verdicts = parse_relevance(text or "", len(new))
                chosen = [i for i, v in zip(new, verdicts, strict=True) if v == 1]
                details["relevant"] = len(chosen)
            kept += chosen
            relevant.append(chosen)
            calls += 1
        return {"iteration": iteration, "new": [], "kept": kept, "relevant": relevant,
                "llm_calls": calls}

    async def sufficiency(self, state: LoopState, config: RunnableConfig) -> LoopState:  # type: ignore[override]
        kept = state.get("kept", [])
        if not kept:  # msr 1365-1367: no call
            return {"sufficient": False}
        iteration, limit = state.get("iteration", 1), self.config.max_rounds
        p = self.prompts
        prompt = p.sufficiency.format(
            question=state["question"], kept_docs=p.docs_text([self._content(i) for i in kept]),
            iteration=iteration, max_iterations=limit)
        info = {"round": state.get("round", 0), "docs": len(kept), "iteration": iteration}
        with timed_stage("sufficiency", stage_callback(config), info) as details:
            text = await self._ask(config, prompt,
                                   self.config.generation.max_tokens_sufficiency, details,
                                   iteration)
            sufficient = parse_sufficient(text or "", iteration >= limit)
            details["sufficient"] = bool(sufficient)
        return {"sufficient": sufficient, "llm_calls": state.get("llm_calls", 0) + 1}

    def route_after_sufficiency(self, state: LoopState) -> str:  # type: ignore[override]
        return "answer" if state.get("sufficient") else "queries"

    async def answer(self, state: LoopState, config: RunnableConfig) -> LoopState:  # type: ignore[override]
        kept = state.get("kept", [])
        p = self.prompts
        prompt = p.answer.format(question=state["question"],
                                 kept_docs=p.docs_text([self._content(i) for i in kept]))
        info = {"round": state.get("round", 0), "docs": len(kept)}
        with timed_stage("generate", stage_callback(config), info) as details:
            text = await self._ask(config, prompt, self.config.generation.max_tokens_answer,
                                   details, state.get("iteration", 1))
            answer = text or UNKNOWN
            details["answer"] = answer
        return {"answer": answer, "context": list(kept), "sufficient": True,
                "llm_calls": state.get("llm_calls", 0) + 1}

