"""BFCL multi-turn samples as closed loops: each user turn runs a tool loop of up to
``max_steps`` LLM calls (a plain loop, or the LangGraph agent); the session record carries
bfcl-eval's multi-turn checker verdict."""

from __future__ import annotations

import asyncio
from typing import Any

from agentic_bench.contracts import ExecContext, SessionOutcome, SessionTicket
from agentic_bench.tasks.agentic_edge.agent_step import agent_step
from agentic_bench.tasks.agentic_edge.api_environment import ApiEnvironment
from agentic_bench.tasks.agentic_edge.multi_turn import (
    MultiTurnSample,
    tools_at_turn,
    turn_messages,
)
from agentic_bench.tasks.agentic_edge.multi_turn_check import check_multi_turn
from agentic_bench.tasks.recorder import SessionRecorder


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
