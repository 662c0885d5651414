"""One session per question: run the RAG graph, record every stage, score the answer.

The graph's chat function is a closure over the question's :class:`SessionRecorder`: each LLM
call is sent through the harness transport, timed (TTFT/TPOT) and recorded with
``stage`` = the pipeline stage that made it (decompose, grade, sufficiency, generate). The
embed/retrieve/rerank stage events become ``recorder.stage`` records with ``stage`` set, so
``summary.stages_ms`` breaks the run down by stage. The question's end-to-end latency is the
session latency. A ``sample`` record carries the per-question accuracy fields and, under
``--flow mlperf``, the question's calls in the reference's log shape (``llm_logs.json``); with
``--perf-cache`` each call is still sent and timed but the loop goes on with the cached reply
of its (sample, component, hop) when there is one (:mod:`.perf_cache`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import ExecContext, SessionOutcome, SessionTicket
from agentic_bench.tasks.rag_e2e.accuracy import DEFAULT_KS, question_scores
from agentic_bench.tasks.rag_e2e.graph_run import GraphRun, run_graph
from agentic_bench.tasks.rag_e2e.perf_cache import (
    CALLS_FIELD,
    COUNTS_FIELD,
    PerfCache,
    QuestionCalls,
)
from agentic_bench.tasks.rag_e2e.question_log import LlmCall, QuestionLog, StageMark
from agentic_bench.tasks.rag_e2e.recorded import QuestionResponses, ResponseCache, TraceWriter
from agentic_bench.tasks.rag_e2e.reference_retrieval import (
    MLPERF_FINAL_DOCS,
    question_metrics,
    set_metrics,
)
from agentic_bench.tasks.rag_e2e.roles import RoleEndpoint, RoleTransport, role_of
from agentic_bench.tasks.rag_e2e.trace_build import question_session
from agentic_bench.tasks.recorder import SessionRecorder
from rag_pipeline import Question, RagPipeline, StageEvent, current_stage
from rag_pipeline.reference_loop import CallMustSucceed, current_hop, reply_text

NON_LLM_STAGES = frozenset({"embed", "retrieve", "rerank"})
_STAGE_INFO = ("round", "n", "k", "bm25", "hits", "candidates", "kept", "reranker")
TITLES_KEPT = 10


class LlmCallFailed(RuntimeError):
    """An LLM call of the pipeline failed; the question is abandoned (unanswered)."""


class CachedCallFailed(LlmCallFailed, CallMustSucceed):
    """A call with a cached reply failed under ``--perf-cache``: the reference stops the
    question rather than go on with the cached reply (msr 408-418, 430-455)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What the pipeline sees of a chat call: its text (and reasoning, which MLPerf's loop
    reads when the text is empty: only what the server sent as ``reasoning_content``, as the
    reference reads ``message.reasoning_content`` alone, msr 359-367)."""

    content: str
    reasoning: str = ""


@dataclass
class RagShared:
    """Everything the sessions of one run share (read-only during the run)."""

    pipeline: RagPipeline
    questions: dict[str, Question]
    flow: str = "multi_hop"
    source: dict[str, str] | None = None
    ks: tuple[int, ...] = DEFAULT_KS
    trace: TraceWriter | None = None
    responses: ResponseCache | None = None
    roles: dict[str, RoleEndpoint] = field(default_factory=dict)  # role -> its own endpoint
    perf_cache: PerfCache | None = None  # --perf-cache: replies by (sample, component, hop)


def make_executor(shared: RagShared) -> Callable[[ExecContext], Callable[
        [SessionTicket], Awaitable[SessionOutcome]]]:
    def factory(ctx: ExecContext) -> Callable[[SessionTicket], Awaitable[SessionOutcome]]:
        if shared.roles:  # grading (etc.) on its own endpoint, closed with the run
            routed = RoleTransport(ctx.transport, shared.roles, ctx.options.request_timeout_s,
                                   ctx.transport_kind)
            ctx = replace(ctx, transport=routed)
            ctx.closers.append(routed.aclose)

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            return await run_question(ctx, ticket, shared)

        return execute

    return factory


def _chat_fn(rec: SessionRecorder, log: QuestionLog, cached: QuestionResponses | None,
             routed: frozenset[str] = frozenset(), calls: QuestionCalls | None = None,
             ) -> Callable[[list[dict[str, Any]], dict[str, Any]], Awaitable[Reply]]:
    async def chat(messages: list[dict[str, Any]], params: dict[str, Any]) -> Reply:
        stage = current_stage.get() or "generate"
        hop = current_hop.get()
        keyed = calls.cached(stage, hop) if calls is not None else None
        step = log.step()
        start = perf_counter_ns()
        result = await rec.llm({"messages": messages, **params}, 0, step, stage=stage,
                               role=role_of(stage, routed))
        if not result.ok:
            failed = CachedCallFailed if keyed is not None else LlmCallFailed
            raise failed(f"{stage} call failed: {result.error_type}: {result.error}")
        content = result.content
        if cached is not None:
            recorded = cached.take(messages)
            content = recorded if recorded is not None else content
        if calls is not None:  # the reference loop: log it, and go on with the cached reply
            calls.log(stage, hop, reply_text(Reply(content, result.reasoning_content)), keyed)
            content = keyed if keyed is not None else content
        log.llm.append(LlmCall(step, stage, start, messages, params, result, content))
        replayed = cached is not None or keyed is not None
        return Reply(content, "" if replayed else result.reasoning_content)

    return chat


def _stage_fn(rec: SessionRecorder, log: QuestionLog) -> Callable[[StageEvent], None]:
    def on_stage(event: StageEvent) -> None:
        if event.stage not in NON_LLM_STAGES:
            return  # LLM stages are recorded by the chat function, with their timings
        step = log.step()
        info = dict(event.info)
        log.stages.append(StageMark(step, event.stage, event.start_ns, event.end_ns, info))
        extra = {k: info[k] for k in _STAGE_INFO if k in info}
        error = info.get("error")
        if error:
            extra.update(error_type="internal", error=str(error)[:500])
        rec.stage(event.stage, 0, step, event.start_ns, event.end_ns,
                  status="error" if error else "ok", stage=event.stage, **extra)

    return on_stage


def _unique(titles: list[str]) -> list[str]:
    return list(dict.fromkeys(titles))


def sample_record(ticket: SessionTicket, question: Question, run: GraphRun | None,
                  error: str | None, llm_calls: int, shared: RagShared,
                  cached: QuestionResponses | None,
                  calls: QuestionCalls | None = None) -> dict[str, Any]:
    """The per-question accuracy record."""
    result = run.result if run is not None and error is None else None
    prediction = result.answer if result else ""
    retrieved = _unique(result.retrieved_titles) if result else []
    context = _unique(result.context_titles) if result else []
    rec: dict[str, Any] = {
        "type": "sample", "task": "rag-e2e", "session_id": ticket.session_id,
        "question_id": question.id, "category": question.type or None,
        "flow": shared.flow, "answered": result is not None, "prediction": prediction,
        "gold": question.answer,
        **question_scores(prediction, question.answer, retrieved, context,
                          question.supporting_titles, shared.ks),
        "rounds": result.rounds if result else 0,
        "llm_calls": llm_calls,
        "queries": result.queries if result else [],
        "sufficient": result.sufficient if result else False,
        "supporting_titles": list(question.supporting_titles),
        "retrieved_titles": retrieved[:TITLES_KEPT],
        "context_titles": context,
        # MLPerf's P/R/F1@k,@N and AP over the kept pages, cut as multi_shot_retrieval.py does
        "mlperf_retrieval": question_metrics(question.supporting_titles,
                                             context[:MLPERF_FINAL_DOCS]),
        "mlperf_set_retrieval": set_metrics(question.supporting_titles,
                                            context[:MLPERF_FINAL_DOCS]),
        "error": error,
    }
    expected_urls = question.extra.get("expected_urls")
    if expected_urls is not None:  # the reference layout: pages are URLs, compared as strings
        from rag_pipeline import reference_url

        urls = _unique([reference_url(c.doc_id) for c in result.context]) if result else []
        rec["expected_urls"], rec["context_urls"] = list(expected_urls), urls
        # the question's retrieval list as the reference stores it: cut to top_k_reranking
        rec["retrieved_urls"] = urls[:MLPERF_FINAL_DOCS]  # (msr 1185, 1606-1607)
        rec["mlperf_retrieval"] = question_metrics(expected_urls, urls[:MLPERF_FINAL_DOCS])
        rec["mlperf_set_retrieval"] = set_metrics(expected_urls, urls[:MLPERF_FINAL_DOCS])
    if cached is not None:
        rec["response_cache"] = cached.counts()
    if calls is not None:
        rec[CALLS_FIELD] = calls.calls
        if calls.cache is not None:
            rec[COUNTS_FIELD] = calls.counts()
    return rec


async def run_question(ctx: ExecContext, ticket: SessionTicket,
                       shared: RagShared) -> SessionOutcome:
    question = shared.questions[ticket.session.session_id]
    rec = SessionRecorder(ctx, ticket)
    log = QuestionLog()
    cached = shared.responses.for_question(question.id) if shared.responses else None
    calls = (QuestionCalls(question.id, shared.perf_cache) if shared.flow == "mlperf"
             else None)
    rec.start_turn()
    started = perf_counter_ns()
    run: GraphRun | None = None
    error: str | None = None
    try:
        chat = _chat_fn(rec, log, cached, frozenset(shared.roles), calls)
        run = await run_graph(shared.pipeline, question.question, shared.flow,
                              _stage_fn(rec, log), chat)
    except asyncio.CancelledError:
        raise
    except LlmCallFailed as exc:
        error = str(exc)
    except Exception as exc:  # a pipeline failure is data: record it, keep the run going
        error = f"{type(exc).__name__}: {exc}"[:500]
        if rec.turn_ok:  # not already recorded as a failed stage
            rec.stage("pipeline", 0, log.step(), started, perf_counter_ns(), status="error",
                      stage="pipeline", error_type="internal", error=error)
    sample = sample_record(ticket, question, run, error, rec.requests, shared, cached, calls)
    ctx.sink(sample)
    rec.end_turn(0, status="error" if error else None)
    status = rec.end_session(1, rounds=sample["rounds"], em=sample["em"], f1=sample["f1"])
    if shared.trace is not None and run is not None and error is None:
        shared.trace.write(question_session(
            question, log, run, shared.pipeline.index.chunks, flow=shared.flow,
            retrieve_k=shared.pipeline.config.retrieve_k, source=shared.source or {}))
    return SessionOutcome(ticket.session_id, status, 1, rec.turns_ok, rec.requests, rec.errors)
