"""Checks a schema cannot express: tool names declared, call ids consistent."""

from __future__ import annotations

from agentic_bench.trace.model import Session


def check_session(session: Session) -> list[tuple[str, str]]:
    """Return (field path, message) for each semantic problem in one session."""
    problems: list[tuple[str, str]] = []
    declared = session.tool_names()
    for ti, turn in enumerate(session.turns):
        if not turn.steps:
            continue
        for si, step in enumerate(turn.steps):
            where = f"turns[{ti}].steps[{si}]"
            names: list[tuple[str, str]] = []
            if step.kind == "llm":
                names = [
                    (f"{where}.output.tool_calls[{ci}].name", call.name)
                    for ci, call in enumerate(step.output.tool_calls)
                ]
            elif step.kind == "tool":
                names = [(f"{where}.name", step.name)]
            for path, name in names:
                if name not in declared:
                    known = ", ".join(sorted(declared)) or "none"
                    problems.append((path, f"tool {name!r} is not declared in tools ({known})"))
        if not any(s.kind == "llm" for s in turn.steps):
            problems.append((f"turns[{ti}].steps", "a turn with steps needs at least one llm step"))
    return problems
