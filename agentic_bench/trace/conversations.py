"""The conversations of a session tree, each in request order: the session's own (key ``""``,
across its turns) and each spawned branch's (key: the branch id), nested spawns included.

Pure helpers for agent trees whose steps carry recorded start times (``start_s``, e.g. from a
Weka trace): the time span, and the theoretical prefix-cache hit of every request.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agentic_bench.trace.model import Branch, LlmStep, Session, SpawnStep, Step

ROOT = ""


@dataclass(frozen=True)
class ConversationStep:
    key: str  # ROOT or the spawned branch's id
    index: int  # the step's position among its conversation's llm steps
    turn: int  # the session's turn it belongs to
    step: LlmStep
    spawn_s: float | None  # the branch's recorded spawn (None for the session's own)


def conversation_steps(session: Session) -> Iterator[ConversationStep]:
    """Every llm step of the session and its spawned branches, each conversation in order
    (the session's first, then each branch depth first where it is spawned)."""
    counter = {ROOT: 0}
    for ti, turn in enumerate(session.turns):
        yield from _steps(ROOT, ti, turn.steps, None, counter)


def _steps(key: str, ti: int, steps: list[Step], spawn_s: float | None,
           counter: dict[str, int]) -> Iterator[ConversationStep]:
    for step in steps:
        if isinstance(step, LlmStep):
            yield ConversationStep(key, counter[key], ti, step, spawn_s)
            counter[key] += 1
        elif isinstance(step, SpawnStep):
            branch: Branch = step.branch
            child = branch.id or f"{key}/{ti}"
            counter.setdefault(child, 0)
            yield from _steps(child, ti, branch.steps, step.start_s, counter)


def timed(session: Session) -> bool:
    """Every llm step of the tree has a recorded start."""
    return all(cs.step.start_s is not None for cs in conversation_steps(session))


def span_s(session: Session) -> tuple[float, float]:
    """(first, last) recorded request start over the tree (0, 0 when none is recorded)."""
    starts = [cs.step.start_s for cs in conversation_steps(session) if cs.step.start_s is not None]
    return (min(starts), max(starts)) if starts else (0.0, 0.0)


def prefix_hits(session: Session) -> dict[tuple[str, int], tuple[int, int]]:
    """The theoretical prefix-cache hit of each request of a tree whose prompts are blocks:
    ``(conversation, index) → (hit blocks, blocks)`` with one unbounded cache per tree,
    requests taken in recorded start order (AIPerf 0.13 ``weka_metric_prepass.py``; InferenceX
    ``compute_cache_stats``): the hit is the run of the request's leading hash ids already
    seen (it stops at the first unseen one), then all its ids are seen."""
    order = sorted(((cs.step.start_s if cs.step.start_s is not None else float("inf"), n, cs)
                    for n, cs in enumerate(conversation_steps(session))
                    if cs.step.prompt is not None), key=lambda item: (item[0], item[1]))
    seen: set[int] = set()
    out: dict[tuple[str, int], tuple[int, int]] = {}
    for _, _, cs in order:
        ids = cs.step.prompt.hash_ids if cs.step.prompt is not None else []
        hits = 0
        for hid in ids:
            if hid not in seen:
                break
            hits += 1
        out[(cs.key, cs.index)] = (hits, len(ids))
        seen.update(ids)
    return out


__all__ = ["ROOT", "ConversationStep", "conversation_steps", "prefix_hits", "span_s", "timed"]
