"""Build chat requests from a recorded session: the history (from
:mod:`agentic_bench.trace.history`, re-exported here), the salt, the request body."""

from __future__ import annotations

from typing import Any

from agentic_bench.trace.history import (
    assistant_message,
    branch_session,
    call_id,
    context_message,
    messages_before,
    recorded_assistant,
)
from agentic_bench.trace.model import LlmStep, Session


def with_salt(messages: list[dict[str, Any]], salt: str | None) -> list[dict[str, Any]]:
    """Prefix the first message with a unique tag so a prefix cache cannot serve repeats."""
    if not salt or not messages:
        return messages
    first = dict(messages[0])
    if isinstance(first.get("content"), str):
        first["content"] = f"[{salt}] {first['content']}"
    return [first, *messages[1:]]


def request_body(
    session: Session, step: LlmStep, messages: list[dict[str, Any]], model: str,
    overrides: dict[str, Any], params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The chat request: model, messages, the session's tools, the step's recorded
    ``params``, then ``params`` the replayer derives (a prompt given as blocks: its recorded
    reply length), then the run's overrides (``--max-tokens``, ``--temperature``)."""
    body: dict[str, Any] = {"model": model, "messages": messages}
    if session.tools:
        body["tools"] = session.tools
    body.update(step.params)
    if params:
        body.update(params)
    body.update(overrides)
    body["model"] = model
    return body


__all__ = ["assistant_message", "branch_session", "call_id", "context_message", "messages_before",
           "recorded_assistant", "request_body", "with_salt"]
