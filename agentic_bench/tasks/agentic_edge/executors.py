"""Which executor runs each agentic-edge session, and the single-turn BFCL one.

Single-turn: one request per sample in the chosen tool mode; the reply is decoded and scored
(native mode: MLPerf's own rules; other modes: their parser and bfcl-eval's AST checker); the
verdict goes into the sample record (``bfcl_valid``). Multi-turn samples run in
:mod:`.multi_turn_run` (a tool loop on bfcl-eval's simulated APIs, parsed with ``ast``, never
evaluated); MLCommons' coding conversations in :mod:`.coding_phase`; our recorded BFCL
trajectories through the plain trace replayer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from agentic_bench.contracts import ExecContext, SessionOutcome, SessionTicket
from agentic_bench.replay.session import SessionReplayer
from agentic_bench.tasks.agentic_edge.coding_phase import (
    STREAM_CUT,
    CodingPhase,
    run_conversation,
)
from agentic_bench.tasks.agentic_edge.data import BfclSample
from agentic_bench.tasks.agentic_edge.multi_turn import MultiTurnSample
from agentic_bench.tasks.agentic_edge.reference_scoring import score_reply, scoring_text
from agentic_bench.tasks.agentic_edge.scoring import Verdict, score_single
from agentic_bench.tasks.agentic_edge.stream_errors import noting_stream_errors
from agentic_bench.tasks.agentic_edge.tool_modes import build_request, parse_reply
from agentic_bench.tasks.recorder import SessionRecorder
from agentic_bench.transport.result import ChatResult
from agentic_bench.transport.sse import dropped_stream_error

MAX_STEPS_PER_TURN = 25
# json-schema / prompt single-turn and our recorded trajectories (not MLPerf): BFCL answers
# are short, and this bounds a small model's run-on replies
OTHER_MODES_MAX_TOKENS = 256


@dataclass
class EdgeItems:
    """What each session index of the run stands for."""

    single: dict[str, BfclSample] = field(default_factory=dict)
    multi: dict[str, MultiTurnSample] = field(default_factory=dict)
    tool_mode: str = "native"
    max_steps: int = MAX_STEPS_PER_TURN
    agent: str = "loop"
    coding: CodingPhase = field(default_factory=CodingPhase)


def make_executor(items: EdgeItems):  # type: ignore[no-untyped-def]
    def factory(ctx: ExecContext):  # type: ignore[no-untyped-def]
        def tagged(phase: str):  # type: ignore[no-untyped-def]
            return lambda rec: ctx.sink({**rec, "phase": phase})

        perf_ctx = ExecContext(ctx.transport, tagged("performance"), ctx.t0_ns, ctx.options,
                               transport_kind=ctx.transport_kind)
        acc_ctx = ExecContext(ctx.transport, tagged("accuracy"), ctx.t0_ns, ctx.options,
                              transport_kind=ctx.transport_kind)
        # our recorded BFCL trajectories keep the bound they always had (not MLPerf's phase)
        legacy = replace(ctx.options, overrides={"max_tokens": OTHER_MODES_MAX_TOKENS,
                                                 **ctx.options.overrides})
        replayer = SessionReplayer(ctx.transport, perf_ctx.sink, legacy, ctx.t0_ns)

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            sid = ticket.session.session_id
            if sid in items.single:
                return await run_single(acc_ctx, ticket, items.single[sid], items.tool_mode)
            if sid in items.multi:
                from agentic_bench.tasks.agentic_edge.multi_turn_run import run_multi

                return await run_multi(acc_ctx, ticket, items.multi[sid], items.max_steps,
                                       items.agent)
            if sid in items.coding.conversations:
                return await run_conversation(perf_ctx, ticket, items.coding.conversations[sid],
                                              items.coding.turn_timeout_s,
                                              items.coding.tool_delays, items.coding.cap)
            return await replayer.run(ticket)

        return execute

    return factory


ANSWER_EXCERPT = 400  # characters of a text answer kept in its sample record, to see why it failed


SCORED_TEXT_LIMIT = 8_000  # characters of the scored text kept in a sample record


def _verdict(sample: BfclSample, mode: str, result: ChatResult) -> tuple[Verdict, dict[str, Any]]:
    """Native mode: MLPerf's own scoring path; the other modes: their parser + the checker.
    Also what a sample record keeps to show (and re-check) the decision."""
    if mode == "native":
        text = scoring_text(result.content, result.tool_calls, result.reasoning)
        verdict, calls = score_reply(sample, text)
        return verdict, {"scored_text": text[:SCORED_TEXT_LIMIT],
                         "scored_text_chars": len(text), "extracted_calls": calls}
    parsed = parse_reply(sample, mode, content=result.content,  # type: ignore[arg-type]
                         tool_calls=result.tool_calls)
    return score_single(sample, parsed), {}


async def run_single(ctx: ExecContext, ticket: SessionTicket, sample: BfclSample,
                     mode: str) -> SessionOutcome:
    if mode == "native":  # MLPerf's stream rules (tool-call deltas, error events) per request
        ticket = replace(ticket, request_context=replace(ticket.request_context,
                                                         tool_deltas="mlperf"))
        ctx = noting_stream_errors(ctx)
    rec = SessionRecorder(ctx, ticket)
    body = build_request(sample, mode)  # type: ignore[arg-type]
    body.setdefault("temperature", 0)
    body.setdefault("seed", 42)
    if mode != "native":  # native sends MLPerf's max_completion_tokens 1024
        body.setdefault("max_tokens", OTHER_MODES_MAX_TOKENS)
    rec.start_turn()
    result = await rec.llm(body, 0, 0, **_pending(sample))
    # MLPerf (native): a failed request still completes, with no data (endpoints ea332753
    # worker.py 456-475, session.py 618-651), and is scored as the empty reply
    # (bfcl_v4_scorer.py 131-147: "" → passes irrelevance, fails every AST subset) and counted
    # among the completed samples the 995 gate reads (335). Only a request the harness
    # cancelled (an interrupt) stays not completed: the reference never completes those either.
    # a stream cut after the 200 is no failure there: the reply is what arrived; an error event
    # in the 200 stream is dropped there (adapter_protocol.py 47, openai_msgspec_adapter.py
    # 125-130): the request is ok here, with what arrived before (and after) the event
    arrived = result.ok or (mode == "native" and result.error_type in STREAM_CUT)
    failed_native = mode == "native" and result.status == "error" and not arrived
    completed = arrived or failed_native
    if arrived:
        verdict, shown = _verdict(sample, mode, result)
    elif failed_native:
        verdict, calls = score_reply(sample, "")
        shown = {"scored_text": "", "scored_text_chars": 0, "extracted_calls": calls,
                 "scored_as": "empty reply (the request failed)"}
    else:
        verdict, shown = None, {}
    valid = bool(verdict and verdict.valid)
    ctx.sink({"type": "sample", "session_id": ticket.session_id, "sample_id": sample.id,
              "subset": sample.subset, "category": sample.category, "bfcl_valid": valid,
              "answered": arrived, "completed": completed,
              "bfcl_error": None if verdict is None else verdict.error,
              "tool_mode": mode, "answer_excerpt": result.content[:ANSWER_EXCERPT] or None,
              **shown, **_stream_error(result)})
    rec.end_turn(0)
    status = rec.end_session(1)
    return SessionOutcome(ticket.session_id, status, 1, rec.turns_ok, rec.requests, rec.errors)


def _stream_error(result: ChatResult) -> dict[str, Any]:
    text = dropped_stream_error(result)
    return {"stream_error": text} if text else {}


def _pending(sample: BfclSample) -> dict[str, Any]:
    return {"sample_id": sample.id, "subset": sample.subset}
