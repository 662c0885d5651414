"""Compare the model's tool calls with recorded ones; find recorded tool results."""

from __future__ import annotations

import json
from typing import Any

from agentic_bench.trace.model import Session, ToolCall


def decode_arguments(raw: str | dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw.strip() else {}
    except (json.JSONDecodeError, AttributeError):
        return None
    return value if isinstance(value, dict) else None


def _key(name: str, args: dict[str, Any] | None) -> str:
    return name + "\x00" + json.dumps(args, sort_keys=True, ensure_ascii=False)


def calls_match(model_calls: list[dict[str, Any]], recorded: list[ToolCall]) -> bool | None:
    """True when the model made exactly the recorded calls (any order); None if neither called."""
    if not model_calls and not recorded:
        return None
    got = sorted(_key(c["name"], decode_arguments(c.get("arguments", ""))) for c in model_calls)
    want = sorted(_key(c.name, c.arguments) for c in recorded)
    return got == want


def recorded_tool_result(
    session: Session, turn_index: int, name: str, arguments: dict[str, Any] | None
) -> str | None:
    """The recorded result of a tool step with this name and arguments (this turn first)."""
    order = [turn_index, *[i for i in range(len(session.turns)) if i != turn_index]]
    for ti in order:
        for step in session.turns[ti].steps:
            if step.kind == "tool" and step.name == name and step.arguments == arguments:
                return step.result
    return None
