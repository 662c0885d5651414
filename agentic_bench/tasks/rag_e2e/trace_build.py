"""Turn one answered question into a trace :class:`Session` (``--record-trace``).

Each question is a session with one turn (the question). Its steps, in start order, are the
pipeline's ``embed`` (inputs: that round's queries), ``retrieve`` (``query``: the round's
queries joined by newlines; documents: id, title, score), ``rerank`` (the kept chunks with
their text) and every LLM call with its exact ``messages``, ``params`` and recorded ``output``.
``agentic-bench replay FILE --history recorded`` then sends every LLM call as recorded (same
count, same control flow) and waits the recorded embed/retrieve/rerank durations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentic_bench.metrics.declarations import step_value
from agentic_bench.records.llm import result_timestamps
from agentic_bench.tasks.rag_e2e.graph_run import GraphRun, RoundLog
from agentic_bench.tasks.rag_e2e.question_log import LlmCall, QuestionLog, StageMark
from agentic_bench.trace.model import (
    SCHEMA_VERSION,
    AssistantOutput,
    Document,
    EmbedStep,
    LlmStep,
    References,
    RerankStep,
    RetrieveStep,
    Session,
    Turn,
    Usage,
)
from rag_pipeline import Chunk, Question


def _unique_hits(log: RoundLog) -> list[tuple[int, float]]:
    seen: dict[int, float] = {}
    for rank in range(max((len(h) for h in log.hits), default=0)):
        for hits in log.hits:
            if rank < len(hits) and hits[rank][0] not in seen:
                seen[hits[rank][0]] = hits[rank][1]
    return list(seen.items())


def _llm_step(call: LlmCall) -> LlmStep:
    r = call.result
    # the declared TTFT (metrics/declarations.py), as the call's record and the summary have it
    ttft = step_value("ttft", result_timestamps(r, r.t_sent_ns))
    usage = None
    if r.input_tokens is not None or r.output_tokens is not None:
        usage = Usage(input_tokens=r.input_tokens, output_tokens=r.output_tokens)
    return LlmStep(messages=call.messages, params=dict(call.params),
                   output=AssistantOutput(content=call.content), usage=usage,
                   duration_ms=max(0.0, (r.t_end_ns - r.t_sent_ns) / 1e6),
                   ttft_ms=ttft if isinstance(ttft, float) else None)


def _stage_step(mark: StageMark, rounds: dict[int, RoundLog], chunks: Sequence[Chunk],
                retrieve_k: int) -> EmbedStep | RetrieveStep | RerankStep | None:
    log = rounds.get(int(mark.info.get("round", 0)))
    queries = log.queries if log else []
    duration = max(0.0, mark.duration_ms)
    if mark.stage == "embed":
        return EmbedStep(inputs=queries, duration_ms=duration)
    if mark.stage == "retrieve":
        docs = [Document(id=chunks[i].chunk_id, title=chunks[i].title, score=score)
                for i, score in (_unique_hits(log) if log else [])]
        return RetrieveStep(query="\n".join(queries), k=retrieve_k, documents=docs,
                            duration_ms=duration)
    if mark.stage == "rerank":
        docs = [Document(id=chunks[i].chunk_id, title=chunks[i].title, text=chunks[i].text)
                for i in (log.reranked if log else [])]
        return RerankStep(query="\n".join(queries), documents=docs, duration_ms=duration)
    return None


def question_session(question: Question, log: QuestionLog, run: GraphRun,
                     chunks: Sequence[Chunk], *, flow: str, retrieve_k: int,
                     source: dict[str, str]) -> Session:
    """The trace session for one answered question."""
    timeline: list[tuple[int, int, Any]] = []
    for call in log.llm:
        timeline.append((call.start_ns, call.step, _llm_step(call)))
    for mark in log.stages:
        step = _stage_step(mark, run.rounds, chunks, retrieve_k)
        if step is not None:
            timeline.append((mark.start_ns, mark.step, step))
    timeline.sort(key=lambda item: (item[0], item[1]))
    stages = [c.stage for c in sorted(log.llm, key=lambda c: (c.start_ns, c.step))]
    result = run.result
    return Session(
        schema_version=SCHEMA_VERSION,
        session_id=question.id,
        category=question.type or None,
        turns=[Turn(user=question.question, steps=[s for _, _, s in timeline])],
        references=References(answer=question.answer, documents=list(question.supporting_titles)),
        metadata={**source, "task": "rag-e2e", "flow": flow,
                  "llm_stages": stages, "rounds": result.rounds, "queries": result.queries,
                  "answer": result.answer, "sufficient": result.sufficient},
    )
