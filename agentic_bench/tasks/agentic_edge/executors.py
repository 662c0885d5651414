"""Run BFCL samples against the endpoint: single-turn scoring and the multi-turn closed loop.

Single-turn: one request per sample in the chosen tool mode; the reply is decoded and scored
with bfcl-eval's AST checker; the verdict goes into the step record (``bfcl_valid``).
Multi-turn: each user turn runs a tool loop (native tool calling) of up to ``max_steps`` LLM
calls; the model's calls execute on bfcl-eval's simulated API classes (parsed with ``ast``,
never evaluated); the session record carries bfcl-eval's multi-turn checker verdict.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field, replace
from time import perf_counter_ns
from typing import Any

from agentic_bench.replay.session import SessionOutcome, SessionReplayer, SessionTicket
from agentic_bench.tasks.agentic_edge.api_environment import ApiEnvironment
from agentic_bench.tasks.agentic_edge.coding_phase import CodingPhase, run_conversation
from agentic_bench.tasks.agentic_edge.data import BfclSample
from agentic_bench.tasks.agentic_edge.multi_turn import (
    MultiTurnSample,
    tools_at_turn,
    turn_messages,
)
from agentic_bench.tasks.agentic_edge.multi_turn_check import check_multi_turn
from agentic_bench.tasks.agentic_edge.reference_scoring import score_reply, scoring_text
from agentic_bench.tasks.agentic_edge.scoring import Verdict, score_single
from agentic_bench.tasks.agentic_edge.tool_modes import build_request, parse_reply
from agentic_bench.tasks.recorder import SessionRecorder
from agentic_bench.transport.result import ChatResult
from agentic_bench.workload import ExecContext

MAX_STEPS_PER_TURN = 25
# json-schema / prompt single-turn and the multi-turn loop (not MLPerf): BFCL answers are
# short, and this bounds a small model's run-on replies
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

        perf_ctx = ExecContext(ctx.transport, tagged("performance"), ctx.t0_ns, ctx.options)
        acc_ctx = ExecContext(ctx.transport, tagged("accuracy"), ctx.t0_ns, ctx.options)
        # our recorded BFCL trajectories keep the bound they always had (not MLPerf's phase)
        legacy = replace(ctx.options, overrides={"max_tokens": OTHER_MODES_MAX_TOKENS,
                                                 **ctx.options.overrides})
        replayer = SessionReplayer(ctx.transport, perf_ctx.sink, legacy, ctx.t0_ns)

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            sid = ticket.session.session_id
            if sid in items.single:
                return await run_single(acc_ctx, ticket, items.single[sid], items.tool_mode)
            if sid in items.multi:
                return await run_multi(acc_ctx, ticket, items.multi[sid], items.max_steps,
                                       items.agent)
            if sid in items.coding.conversations:
                return await run_conversation(perf_ctx, ticket, items.coding.conversations[sid],
                                              items.coding.turn_timeout_s,
                                              items.coding.tool_delays)
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
    rec = SessionRecorder(ctx, ticket)
    body = build_request(sample, mode)  # type: ignore[arg-type]
    body.setdefault("temperature", 0)
    body.setdefault("seed", 42)
    if mode != "native":  # native sends MLPerf's max_completion_tokens 1024
        body.setdefault("max_tokens", OTHER_MODES_MAX_TOKENS)
    rec.start_turn()
    result = await rec.llm(body, 0, 0, **_pending(sample))
    verdict, shown = _verdict(sample, mode, result) if result.ok else (None, {})
    valid = bool(verdict and verdict.valid)
    ctx.sink({"type": "sample", "session_id": ticket.session_id, "sample_id": sample.id,
              "subset": sample.subset, "category": sample.category, "bfcl_valid": valid,
              "answered": result.ok, "bfcl_error": None if verdict is None else verdict.error,
              "tool_mode": mode, "answer_excerpt": result.content[:ANSWER_EXCERPT] or None,
              **shown})
    rec.end_turn(0)
    status = rec.end_session(1)
    return SessionOutcome(ticket.session_id, status, 1, rec.turns_ok, rec.requests, rec.errors)


def _pending(sample: BfclSample) -> dict[str, Any]:
    return {"sample_id": sample.id, "subset": sample.subset}


def _decode(call: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    try:
        args = json.loads(call.get("arguments") or "{}")
    except json.JSONDecodeError:
        return None
    return (call["name"], args) if isinstance(args, dict) else None


async def agent_step(rec: SessionRecorder, env: ApiEnvironment, sample: MultiTurnSample,
                     messages: list[dict[str, Any]], tools: list[dict[str, Any]], turn: int,
                     step: int) -> list[dict[str, Any]] | None:
    """One LLM call of the tool loop, then its tool calls on the simulated APIs.

    Appends the assistant and tool messages to ``messages``; returns the decoded calls of
    this step, or None when the turn is over (no tool call, or the request failed).
    """
    body = {"messages": list(messages), "tools": tools, "tool_choice": "auto",
            "temperature": 0, "seed": 42, "max_tokens": OTHER_MODES_MAX_TOKENS}
    result = await rec.llm(body, turn, step, sample_id=sample.id, subset=sample.subset)
    if not result.ok:
        return None
    calls = [(c, _decode(c)) for c in result.tool_calls]
    ids = [c.get("id") or f"call_{turn}_{step}_{i}" for i, (c, _) in enumerate(calls)]
    assistant: dict[str, Any] = {"role": "assistant", "content": result.content or ""}
    if calls:
        assistant["tool_calls"] = [
            {"id": i, "type": "function",
             "function": {"name": c["name"], "arguments": c["arguments"]}}
            for i, (c, _) in zip(ids, calls, strict=True)]
    messages.append(assistant)
    if not calls:
        return None
    for cid, (call, decoded) in zip(ids, calls, strict=True):
        t0 = perf_counter_ns()
        output = ("Error: arguments are not a JSON object" if decoded is None
                  else env.execute(decoded[0], decoded[1]))
        rec.stage("tool", turn, step, t0, perf_counter_ns(), name=call["name"])
        messages.append({"role": "tool", "tool_call_id": cid, "content": output})
    return [{name: args} for _, d in calls if d for name, args in [d]]


async def loop_turn(rec: SessionRecorder, env: ApiEnvironment, sample: MultiTurnSample,
                    messages: list[dict[str, Any]], turn: int,
                    max_steps: int) -> list[list[dict[str, Any]]]:
    """A plain tool loop: call the model until it answers without a tool call."""
    tools = tools_at_turn(sample, turn)
    steps: list[list[dict[str, Any]]] = []
    for step in range(max_steps):
        calls = await agent_step(rec, env, sample, messages, tools, turn, step)
        if calls is None:
            break
        steps.append(calls)
    return steps


async def run_multi(ctx: ExecContext, ticket: SessionTicket, sample: MultiTurnSample,
                    max_steps: int, agent: str = "loop") -> SessionOutcome:
    rec = SessionRecorder(ctx, ticket)
    env = await asyncio.to_thread(ApiEnvironment.for_sample, sample)
    if agent == "langgraph":
        from agentic_bench.tasks.agentic_edge.langgraph_agent import langgraph_turn as run_turn
    else:
        run_turn = loop_turn
    messages: list[dict[str, Any]] = []
    model_calls: list[list[list[dict[str, Any]]]] = []
    for turn in range(sample.num_turns):
        rec.start_turn()
        messages.extend(turn_messages(sample, turn))
        model_calls.append(await run_turn(rec, env, sample, messages, turn, max_steps))
        rec.end_turn(turn)
    verdict = await asyncio.to_thread(check_multi_turn, sample, model_calls)
    ctx.sink({"type": "sample", "session_id": ticket.session_id, "sample_id": sample.id,
              "subset": sample.subset, "category": "multi_turn", "bfcl_valid": verdict.valid,
              "answered": rec.errors == 0, "bfcl_error": verdict.error, "tool_mode": "native",
              "agent": agent})
    status = rec.end_session(sample.num_turns, bfcl_valid=verdict.valid)
    return SessionOutcome(ticket.session_id, status, sample.num_turns, rec.turns_ok,
                          rec.requests, rec.errors)
