"""Recorded sessions for performance replay, built from BFCL multi-turn ground truth.

Per sample, one :class:`~agentic_bench.trace.model.Session`: the session's tools are the OpenAI
schemas of every function (held-out ones included); each BFCL turn becomes a ``Turn`` whose steps
are, for every ground-truth call in order, an ``llm`` step issuing that call followed by a
``tool`` step holding the result of really executing it on bfcl-eval's simulated API
(:class:`ApiEnvironment`, state carried across turns), and a closing ``llm`` step with a short
reply. A turn whose ground truth is empty (miss_func / miss_param) has just that reply.
Everything is deterministic: ids derive from the session id, turn and call index.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentic_bench.tasks.agentic_edge import bfcl_env
from agentic_bench.tasks.agentic_edge.api_environment import ApiEnvironment, parse_call
from agentic_bench.tasks.agentic_edge.multi_turn import (
    MULTI_TURN_SUBSETS,
    MultiTurnSample,
    all_tools,
    load_multi_turn,
    turn_messages,
)
from agentic_bench.trace.model import (
    SCHEMA_VERSION,
    AssistantOutput,
    LlmStep,
    References,
    Session,
    ToolCall,
    ToolStep,
    Turn,
)

DONE_REPLY = "Done: the requested actions have been completed."
CANNOT_REPLY = (
    "I cannot complete this request with the functions and information available. "
    "Please provide the missing details or tools."
)


def session_id_for(sample: MultiTurnSample) -> str:
    """``multi_turn_base_0`` → ``bfcl-mt-base-0``."""
    short = sample.subset.removeprefix("multi_turn_").replace("_", "-")
    index = sample.id.rsplit("_", 1)[-1]
    return f"bfcl-mt-{short}-{index}"


def _user_text(sample: MultiTurnSample, turn: int) -> str:
    return "\n\n".join(m["content"] for m in turn_messages(sample, turn) if m["role"] == "user")


def _build_turn(
    env: ApiEnvironment, sid: str, turn: int, user: str, calls: list[str]
) -> tuple[Turn, list[ToolCall]]:
    steps: list[Any] = []
    refs: list[ToolCall] = []
    for k, call_text in enumerate(calls):
        name, args, kwargs = parse_call(call_text)
        arguments = env.bind_arguments(name, args, kwargs)
        call_id = f"{sid}-t{turn}-c{k}"
        call = ToolCall(id=call_id, name=name, arguments=arguments)
        refs.append(call)
        steps.append(LlmStep(output=AssistantOutput(tool_calls=[call])))
        result = env.execute(name, kwargs, args)
        steps.append(ToolStep(call_id=call_id, name=name, arguments=arguments, result=result))
    steps.append(LlmStep(output=AssistantOutput(content=DONE_REPLY if calls else CANNOT_REPLY)))
    return Turn(user=user, steps=steps, references={"ground_truth": list(calls)}), refs


def build_session(sample: MultiTurnSample) -> Session:
    """The recorded session of one multi-turn sample (ground truth executed for real)."""
    sid = session_id_for(sample)
    env = ApiEnvironment.for_sample(sample)
    turns: list[Turn] = []
    reference_calls: list[list[ToolCall]] = []
    for i, calls in enumerate(sample.ground_truth):
        turn, refs = _build_turn(env, sid, i, _user_text(sample, i), list(calls))
        turns.append(turn)
        reference_calls.append(refs)
    missed = {
        str(t): [d["name"] for d in docs] for t, docs in sorted(sample.missed_functions.items())
    }
    return Session(
        schema_version=SCHEMA_VERSION,
        session_id=sid,
        tools=all_tools(sample),
        turns=turns,
        category=sample.subset,
        references=References(
            tool_calls=reference_calls,
            extra={"bfcl_id": sample.id, "involved_classes": list(sample.involved_classes)},
        ),
        metadata={
            "source": {"package": bfcl_env.BFCL_DISTRIBUTION, "version": bfcl_env.bfcl_version()},
            "bfcl_id": sample.id,
            "missed_function": missed,
            "long_context": sample.long_context,
        },
    )


def build_trajectories(
    subsets: Iterable[str] = MULTI_TURN_SUBSETS, limit_per_subset: int | None = None
) -> list[Session]:
    """Sessions for the first ``limit_per_subset`` samples (all when ``None``) of each subset."""
    return [
        build_session(sample)
        for subset in subsets
        for sample in load_multi_turn(subset, limit_per_subset)
    ]
