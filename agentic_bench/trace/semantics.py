"""Checks a schema cannot express: tool names declared, and every tool step's ``call_id``
naming a tool call of the llm step before it in the same turn."""

from __future__ import annotations

from agentic_bench.trace.model import Session


def check_session(session: Session) -> list[tuple[str, str]]:
    """Return (field path, message) for each semantic problem in one session."""
    problems: list[tuple[str, str]] = []
    declared = session.tool_names()
    for ti, turn in enumerate(session.turns):
        if not turn.steps:
            continue
        call_ids: set[str] | None = None  # ids of the latest llm step's tool calls
        for si, step in enumerate(turn.steps):
            where = f"turns[{ti}].steps[{si}]"
            names: list[tuple[str, str]] = []
            if step.kind == "llm":
                names = [
                    (f"{where}.output.tool_calls[{ci}].name", call.name)
                    for ci, call in enumerate(step.output.tool_calls)
                ]
                call_ids = {c.id for c in step.output.tool_calls if c.id}
            elif step.kind == "tool":
                names = [(f"{where}.name", step.name)]
                if step.call_id is not None and step.call_id not in (call_ids or set()):
                    known = ", ".join(sorted(call_ids or ())) or "none"
                    problems.append((f"{where}.call_id", f"{step.call_id!r} names no tool call "
                                     f"of the preceding llm step (its call ids: {known})"))
            for path, name in names:
                if name not in declared:
                    known = ", ".join(sorted(declared)) or "none"
                    problems.append((path, f"tool {name!r} is not declared in tools ({known})"))
        if not any(s.kind == "llm" for s in turn.steps):
            problems.append((f"turns[{ti}].steps", "a turn with steps needs at least one llm step"))
    return problems
