"""One step of the multi-turn tool loop: an LLM call, then its tool calls on the simulated
APIs. Shared by the plain loop (:mod:`.multi_turn_run`) and the LangGraph agent
(:mod:`.langgraph_agent`)."""

from __future__ import annotations

import json
from time import perf_counter_ns
from typing import Any

from agentic_bench.tasks.agentic_edge.api_environment import ApiEnvironment
from agentic_bench.tasks.agentic_edge.multi_turn import MultiTurnSample
from agentic_bench.tasks.recorder import SessionRecorder

# not MLPerf (which has no multi-turn phase): bounds a small model's run-on replies
MAX_TOKENS = 256


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
            "temperature": 0, "seed": 42, "max_tokens": MAX_TOKENS}
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


