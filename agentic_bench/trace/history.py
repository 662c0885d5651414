"""The history a recorded session implies for each of its LLM calls (derived from the trace).

Derived history (when an LLM step carries no recorded ``messages``): the system message,
then for every turn its user message followed by what its steps contributed — an assistant
message per LLM step (content and tool calls), a ``tool`` message per tool step, and the
documents of the *last* retrieve/rerank step before an LLM call as a user message
``Context:`` block placed just before that call. Trace statistics, importers and the replayer
(:mod:`agentic_bench.replay.history`) all read it from here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from agentic_bench.trace.model import (
    Branch,
    Document,
    LlmStep,
    ParallelStep,
    Session,
    SpawnStep,
    Step,
    ToolCall,
    Turn,
)


def call_id(call: ToolCall, turn: int, step: int, index: int) -> str:
    return call.id or f"call_{turn}_{step}_{index}"


def assistant_message(content: str | None, calls: list[dict[str, Any]]) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": content or ""}
    if calls:
        msg["tool_calls"] = [
            {"id": c["id"], "type": "function",
             "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls
        ]
    return msg


def recorded_assistant(step: LlmStep, turn: int, index: int) -> dict[str, Any]:
    calls = [
        {"id": call_id(c, turn, index, i), "name": c.name,
         "arguments": json.dumps(c.arguments, ensure_ascii=False)}
        for i, c in enumerate(step.output.tool_calls)
    ]
    return assistant_message(step.output.content, calls)


def context_message(documents: list[Document]) -> dict[str, Any]:
    lines = ["Context:"]
    for i, doc in enumerate(documents, 1):
        title = f"{doc.title}: " if doc.title else ""
        lines.append(f"[{i}] {title}{doc.text}")
    return {"role": "user", "content": "\n".join(lines)}


def messages_before(session: Session, turn_index: int, step_index: int) -> list[dict[str, Any]]:
    """The recorded history sent for LLM step ``step_index`` of turn ``turn_index``."""
    step = session.turns[turn_index].steps[step_index]
    if isinstance(step, LlmStep) and step.messages is not None:
        return list(step.messages)
    msgs: list[dict[str, Any]] = []
    if session.system:
        msgs.append({"role": "system", "content": session.system})
    for ti, turn in enumerate(session.turns[: turn_index + 1]):
        msgs.append({"role": "user", "content": turn.user})
        pending_docs: list[Document] | None = None
        last = step_index if ti == turn_index else len(turn.steps)
        tool_index = 0
        prior_calls: list[str] = []
        for si, s in enumerate(turn.steps[:last]):
            if s.kind == "llm":
                if pending_docs is not None:
                    msgs.append(context_message(pending_docs))
                    pending_docs = None
                msgs.append(recorded_assistant(s, ti, si))
                prior_calls = [c["id"] for c in msgs[-1].get("tool_calls", [])]
                tool_index = 0
            elif s.kind == "tool":
                cid = s.call_id or (prior_calls[tool_index] if tool_index < len(prior_calls)
                                    else f"call_{ti}_{si}")
                tool_index += 1
                msgs.append({"role": "tool", "tool_call_id": cid, "content": s.result})
            elif s.kind in ("retrieve", "rerank"):
                pending_docs = s.documents
        if ti == turn_index and pending_docs is not None:
            msgs.append(context_message(pending_docs))
    return msgs


def branch_session(session: Session, branch: Branch) -> Session:
    """A fan-out or spawned branch as a session of its own: its system (else the parent's),
    its task as the one user turn, its steps; the parent's tools; its own block layout (else
    the parent's). Its history derives like any turn's."""
    return session.model_copy(update={
        "system": branch.system if branch.system is not None else session.system,
        "turns": [Turn(user=branch.task, steps=branch.steps)],
        "token_blocks": branch.token_blocks or session.token_blocks})


WalkedStep = tuple[int, Session, int, int, Step]


def walk_steps(session: Session) -> Iterator[WalkedStep]:
    """Every step a recorded-history replay runs, as ``(turn, view, view_turn, index, step)``:
    the step is ``view.turns[view_turn].steps[index]`` — the session itself, or inside a
    fan-out or spawned branch the branch as a session of its own (turn 0) — which is what
    :func:`messages_before` takes; ``turn`` is the session's turn it belongs to. Branches come
    in order, depth first (a replay runs them at once); parallel and spawn steps are not
    yielded."""
    for ti, turn in enumerate(session.turns):
        yield from _walk(ti, session, ti, turn.steps)


def _walk(ti: int, view: Session, vti: int, steps: list[Step]) -> Iterator[WalkedStep]:
    for si, step in enumerate(steps):
        if isinstance(step, ParallelStep):
            for branch in step.branches:
                sub = branch_session(view, branch)
                yield from _walk(ti, sub, 0, branch.steps)
        elif isinstance(step, SpawnStep):
            sub = branch_session(view, step.branch)
            yield from _walk(ti, sub, 0, step.branch.steps)
        else:
            yield ti, view, vti, si, step


def llm_requests(session: Session) -> Iterator[tuple[int, LlmStep, list[dict[str, Any]]]]:
    """``(turn, step, history)`` of every LLM call a recorded-history replay sends."""
    for ti, view, vti, si, step in walk_steps(session):
        if isinstance(step, LlmStep):
            yield ti, step, messages_before(view, vti, si)


__all__ = ["assistant_message", "branch_session", "call_id", "context_message",
           "llm_requests", "messages_before", "recorded_assistant", "walk_steps"]
