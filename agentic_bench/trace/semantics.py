"""Checks a schema cannot express: the request fields an llm step sends (``params``: typed as
the chat API types them, e.g. ``max_tokens`` an integer >= 1), tool names declared, every tool
step's ``call_id`` naming a tool call of the llm step before it in the same turn (or fan-out
branch), an llm step in
every turn and branch that has steps, and for agent trees (spawn and join steps, prompts given
as blocks): spawned branch ids unique in the session, every join naming branches spawned
before it in the same conversation, a task for every branch whose history derives from it, and
prompt blocks only where a block layout (``token_blocks``) and their token counts are given."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agentic_bench.trace.model import (
    Branch,
    LlmStep,
    ParallelStep,
    Session,
    SpawnStep,
    Step,
    TokenBlocks,
)


@dataclass
class _Scope:
    """One conversation's view while checking: the spawns it has made so far."""

    blocks: TokenBlocks | None
    spawned: set[str] = field(default_factory=set)


def check_session(session: Session) -> list[tuple[str, str]]:
    """Return (field path, message) for each semantic problem in one session."""
    problems: list[tuple[str, str]] = []
    declared = session.tool_names()
    ids: dict[str, str] = {}
    root = _Scope(session.token_blocks)
    for ti, turn in enumerate(session.turns):
        if turn.steps:
            _check_steps(turn.steps, f"turns[{ti}]", declared, problems, "a turn", root, ids)
    return problems


def _has_llm(steps: Sequence[Step]) -> bool:
    return any(s.kind == "llm" or (isinstance(s, ParallelStep)
                                   and any(_has_llm(b.steps) for b in s.branches))
               or (isinstance(s, SpawnStep) and _has_llm(s.branch.steps))
               for s in steps)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


# the OpenAI chat request fields a step's params may set, checked as the API types them (the
# harness sends params as they are; an unknown key is passed through for the server to judge)
PARAM_RULES: dict[str, tuple[str, object]] = {
    "max_tokens": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "max_completion_tokens": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "min_tokens": ("an integer >= 0", lambda v: _is_int(v) and v >= 0),
    "n": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "seed": ("an integer", _is_int),
    "temperature": ("a number in [0, 2]", lambda v: _is_num(v) and 0 <= v <= 2),
    "top_p": ("a number in [0, 1]", lambda v: _is_num(v) and 0 <= v <= 1),
    "presence_penalty": ("a number in [-2, 2]", lambda v: _is_num(v) and -2 <= v <= 2),
    "frequency_penalty": ("a number in [-2, 2]", lambda v: _is_num(v) and -2 <= v <= 2),
    "stream": ("true or false", lambda v: isinstance(v, bool)),
    "ignore_eos": ("true or false", lambda v: isinstance(v, bool)),
    "stop": ("a string or a list of strings",
             lambda v: isinstance(v, str) or (isinstance(v, list)
                                              and all(isinstance(x, str) for x in v))),
    "tool_choice": ("a string or an object", lambda v: isinstance(v, str | dict)),
    "response_format": ("an object", lambda v: isinstance(v, dict)),
    "logit_bias": ("an object", lambda v: isinstance(v, dict)),
    "user": ("a string", lambda v: isinstance(v, str)),
}


def _check_params(step: LlmStep, where: str, problems: list[tuple[str, str]]) -> None:
    for key, value in step.params.items():
        rule = PARAM_RULES.get(key)
        if rule is not None and not rule[1](value):  # type: ignore[operator]
            problems.append((f"{where}.params.{key}", f"expected {rule[0]}, got {value!r}"))


def _check_llm(step: LlmStep, where: str, scope: _Scope, problems: list[tuple[str, str]],
               ) -> None:
    _check_params(step, where, problems)
    if step.prompt is None:
        if scope.blocks is not None:
            problems.append((f"{where}.prompt", "missing: every llm step of a conversation "
                             "laid out in token_blocks gives its prompt as blocks"))
        return
    if step.messages is not None:
        problems.append((f"{where}.messages", "an llm step gives messages or prompt blocks, "
                         "not both"))
    if scope.blocks is None:
        problems.append((f"{where}.prompt", "prompt blocks need token_blocks (block_size) on "
                         "the session or its branch"))
    usage = step.usage
    if usage is None or usage.input_tokens is None or usage.output_tokens is None:
        problems.append((f"{where}.usage", "prompt blocks need usage.input_tokens and "
                         "usage.output_tokens (the prompt's and the reply's recorded size)"))


def _check_branch(branch: Branch, where: str, declared: set[str],
                  problems: list[tuple[str, str]], parent: _Scope, ids: dict[str, str]) -> None:
    blocks = parent.blocks
    if branch.token_blocks is not None:
        blocks = branch.token_blocks
    scope = _Scope(blocks)
    derives = any(isinstance(s, LlmStep) and s.messages is None and s.prompt is None
                  for s in branch.steps)
    if derives and not branch.task:
        problems.append((f"{where}.task", "a branch whose llm steps derive their history "
                         "needs a task (its user message)"))
    _check_steps(branch.steps, where, declared, problems, "a branch", scope, ids)


def _check_steps(steps: Sequence[Step], base: str, declared: set[str],
                 problems: list[tuple[str, str]], what: str, scope: _Scope,
                 ids: dict[str, str]) -> None:
    call_ids: set[str] | None = None  # ids of the latest llm step's tool calls
    for si, step in enumerate(steps):
        where = f"{base}.steps[{si}]"
        names: list[tuple[str, str]] = []
        if step.kind == "llm":
            names = [(f"{where}.output.tool_calls[{ci}].name", call.name)
                     for ci, call in enumerate(step.output.tool_calls)]
            call_ids = {c.id for c in step.output.tool_calls if c.id}
            _check_llm(step, where, scope, problems)
        elif step.kind == "tool":
            names = [(f"{where}.name", step.name)]
            if step.call_id is not None and step.call_id not in (call_ids or set()):
                known = ", ".join(sorted(call_ids or ())) or "none"
                problems.append((f"{where}.call_id", f"{step.call_id!r} names no tool call "
                                 f"of the preceding llm step (its call ids: {known})"))
        elif isinstance(step, ParallelStep):
            for bi, branch in enumerate(step.branches):
                _check_branch(branch, f"{where}.branches[{bi}]", declared, problems, scope, ids)
        elif step.kind == "spawn":
            branch = step.branch
            if not branch.id:
                problems.append((f"{where}.branch.id", "a spawned branch needs an id (joins "
                                 "name it)"))
            elif branch.id in ids:
                problems.append((f"{where}.branch.id", f"duplicate branch id {branch.id!r} "
                                 f"(first at {ids[branch.id]})"))
            else:
                ids[branch.id] = where
                scope.spawned.add(branch.id)
            _check_branch(branch, f"{where}.branch", declared, problems, scope, ids)
        elif step.kind == "join":
            for name in step.branches:
                if name not in scope.spawned:
                    problems.append((f"{where}.branches", f"{name!r} was not spawned earlier "
                                     "in this conversation"))
        for path, name in names:
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                problems.append((path, f"tool {name!r} is not declared in tools ({known})"))
    if not _has_llm(steps):
        problems.append((f"{base}.steps", f"{what} with steps needs at least one llm step"))
