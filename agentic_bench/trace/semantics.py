"""Checks a schema cannot express: tool names declared, every tool step's ``call_id`` naming a
tool call of the llm step before it in the same turn (or fan-out branch), and an llm step in
every turn and branch that has steps."""

from __future__ import annotations

from collections.abc import Sequence

from agentic_bench.trace.model import ParallelStep, Session, Step


def check_session(session: Session) -> list[tuple[str, str]]:
    """Return (field path, message) for each semantic problem in one session."""
    problems: list[tuple[str, str]] = []
    declared = session.tool_names()
    for ti, turn in enumerate(session.turns):
        if turn.steps:
            _check_steps(turn.steps, f"turns[{ti}]", declared, problems, "a turn")
    return problems


def _has_llm(steps: Sequence[Step]) -> bool:
    return any(s.kind == "llm" or (isinstance(s, ParallelStep)
                                   and any(_has_llm(b.steps) for b in s.branches))
               for s in steps)


def _check_steps(steps: Sequence[Step], base: str, declared: set[str],
                 problems: list[tuple[str, str]], what: str) -> None:
    call_ids: set[str] | None = None  # ids of the latest llm step's tool calls
    for si, step in enumerate(steps):
        where = f"{base}.steps[{si}]"
        names: list[tuple[str, str]] = []
        if step.kind == "llm":
            names = [(f"{where}.output.tool_calls[{ci}].name", call.name)
                     for ci, call in enumerate(step.output.tool_calls)]
            call_ids = {c.id for c in step.output.tool_calls if c.id}
        elif step.kind == "tool":
            names = [(f"{where}.name", step.name)]
            if step.call_id is not None and step.call_id not in (call_ids or set()):
                known = ", ".join(sorted(call_ids or ())) or "none"
                problems.append((f"{where}.call_id", f"{step.call_id!r} names no tool call "
                                 f"of the preceding llm step (its call ids: {known})"))
        elif isinstance(step, ParallelStep):
            for bi, branch in enumerate(step.branches):
                _check_steps(branch.steps, f"{where}.branches[{bi}]", declared, problems,
                             "a branch")
        for path, name in names:
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                problems.append((path, f"tool {name!r} is not declared in tools ({known})"))
    if not _has_llm(steps):
        problems.append((f"{base}.steps", f"{what} with steps needs at least one llm step"))
