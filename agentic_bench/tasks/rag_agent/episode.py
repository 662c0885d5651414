"""One question as an agent episode: LLM calls with the RAG tools until the model answers.

The loop: the model gets the question and the tools (:data:`.tools.TOOL_SCHEMAS`); a reply with
tool calls has each call run here (:class:`.tools.RagTools`), its output appended as a ``tool``
message, and the model is called again; a reply without one is the answer. At most
``max_steps`` LLM calls: a model still calling tools then leaves the question unanswered.

Records, as any agent's (:class:`agentic_bench.tasks.recorder.SessionRecorder`): each LLM call a
``kind: "llm"`` step with ``stage: "agent"``; each stage of a tool call a ``kind: "tool"`` step
with ``stage`` (embed, search, rerank, open, dispatch), ``tool`` and ``call``; the question is
one turn and one session, whose records carry ``tool_wait_ms`` (the sum of the tool calls'
waits) and ``tool_stages_ms`` (the same wait by stage: they add up to it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import ExecContext, Execute, SessionOutcome, SessionTicket
from agentic_bench.tasks.rag_agent.scoring import episode_sample
from agentic_bench.tasks.rag_agent.tools import TOOL_SCHEMAS, RagTools, ToolOutcome
from agentic_bench.tasks.recorder import SessionRecorder
from agentic_bench.units import NS_PER_MS
from rag_pipeline import Question

MAX_TOKENS = 256  # each LLM call's max_tokens (the run's --max-tokens overrides it)
SYSTEM_PROMPT = (
    "You answer questions that need facts from two Wikipedia pages. Call search(query) to find "
    "paragraphs and open(page_id) to read a page; search again for the second fact. When you "
    "know the answer, reply with it alone: a few words, a name, a date or yes/no, no sentence.")


@dataclass
class AgentShared:
    """What the sessions of one run share (read-only during the run)."""

    tools: RagTools
    questions: dict[str, Question]
    max_steps: int = 6
    max_tokens: int = MAX_TOKENS


@dataclass
class Trajectory:
    """What one episode did: its tool calls' outcomes, LLM calls, answer and how it ended."""

    outcomes: list[ToolOutcome] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    llm_calls: int = 0
    answer: str | None = None
    stop: str = "max_steps"  # answer | max_steps | error
    error: str | None = None
    steps: int = 0  # step records written so far

    def next_step(self) -> int:
        """The number of the episode's next step record."""
        self.steps += 1
        return self.steps - 1

    @property
    def tool_wait_ns(self) -> int:
        return sum(o.wait_ns for o in self.outcomes)

    def stage_ns(self) -> dict[str, int]:
        """The tool wait by stage (embed, search, rerank, open, dispatch)."""
        out: dict[str, int] = {}
        for outcome in self.outcomes:
            for span in outcome.stages:
                out[span.stage] = out.get(span.stage, 0) + span.duration_ns
        return out


def make_executor(shared: AgentShared) -> Callable[[ExecContext], Execute]:
    """The workload's executor factory: each session runs :func:`run_episode`."""
    def factory(ctx: ExecContext) -> Execute:
        async def execute(ticket: SessionTicket) -> SessionOutcome:
            return await run_episode(ctx, ticket, shared)

        return execute

    return factory


def _assistant_message(content: str, calls: list[dict[str, Any]], ids: list[str]
                       ) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function",
             "function": {"name": c.get("name", ""), "arguments": c.get("arguments") or "{}"}}
            for cid, c in zip(ids, calls, strict=True)]
    return message


def _record_tool(rec: SessionRecorder, traj: Trajectory, outcome: ToolOutcome) -> None:
    for span in outcome.stages:
        extra = {k: v for k, v in span.info.items() if k in ("k", "hits", "candidates", "kept",
                                                              "reranker", "chars")}
        if outcome.error:
            extra["tool_error"] = outcome.error[:200]
        rec.stage("tool", 0, traj.next_step(), span.start_ns, span.end_ns, stage=span.stage,
                  tool=outcome.tool, call=len(traj.outcomes) - 1, **extra)


async def agent_loop(rec: SessionRecorder, shared: AgentShared, question: Question,
                     traj: Trajectory) -> None:
    """Run the episode's LLM calls and tool calls into ``traj`` (see the module's text)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT},
                                      {"role": "user", "content": question.question}]
    for _ in range(shared.max_steps):
        body = {"messages": list(messages), "tools": TOOL_SCHEMAS, "tool_choice": "auto",
                "temperature": 0, "max_tokens": shared.max_tokens}
        result = await rec.llm(body, 0, traj.next_step(), stage="agent")
        traj.llm_calls += 1
        if not result.ok:
            traj.stop, traj.error = "error", f"LLM call failed: {result.error_type}: " \
                f"{result.error}"[:500]
            return
        calls = list(result.tool_calls)
        if not calls:
            traj.answer, traj.stop = result.content or "", "answer"
            return
        ids = [c.get("id") or f"call_{traj.llm_calls}_{i}" for i, c in enumerate(calls)]
        messages.append(_assistant_message(result.content or "", calls, ids))
        for cid, call in zip(ids, calls, strict=True):
            outcome = await shared.tools.call(str(call.get("name", "")), call.get("arguments"))
            if outcome.tool == "search" and outcome.error is None:
                traj.queries.append(str(outcome.stages[0].info.get("query", "")))
            traj.outcomes.append(outcome)
            _record_tool(rec, traj, outcome)
            messages.append({"role": "tool", "tool_call_id": cid, "content": outcome.output})


async def run_episode(ctx: ExecContext, ticket: SessionTicket,
                      shared: AgentShared) -> SessionOutcome:
    """One question: the agent loop, its records, its ``sample`` record."""
    question = shared.questions[ticket.session.session_id]
    rec = SessionRecorder(ctx, ticket)
    traj = Trajectory()
    rec.start_turn()
    started = perf_counter_ns()
    try:
        await agent_loop(rec, shared, question, traj)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a tool's failure is data: record it, keep the run going
        traj.stop, traj.error = "error", f"{type(exc).__name__}: {exc}"[:500]
        rec.stage("pipeline", 0, traj.next_step(), started, perf_counter_ns(),
                  status="error", stage="pipeline", error_type="internal", error=traj.error)
    wait: dict[str, Any] = {"tool_wait_ms": traj.tool_wait_ns / NS_PER_MS,
            "tool_stages_ms": {k: v / NS_PER_MS for k, v in sorted(traj.stage_ns().items())},
            "agent_tool_calls": len(traj.outcomes)}
    sample = episode_sample(ticket.session_id, question, traj.answer, traj.outcomes,
                            traj.queries, traj.llm_calls, traj.stop, traj.error)
    ctx.sink(sample)
    rec.end_turn(0, status="error" if traj.error else None, **wait)
    status = rec.end_session(1, em=sample["em"], f1=sample["f1"], **wait)
    return SessionOutcome(ticket.session_id, status, 1, rec.turns_ok, rec.requests, rec.errors)


__all__ = ["MAX_TOKENS", "SYSTEM_PROMPT", "AgentShared", "Trajectory", "agent_loop",
           "make_executor", "run_episode"]
