"""Synthetic fan-out traces: a coordinator that hands work to subagents running at once.

Each session has ``turns`` user turns; in each, the coordinator plans (one LLM step), fans out
to ``fanout`` subagents (a parallel step; each subagent calls a tool, reads its result and
answers — and, while ``depth`` > 1, fans out again below itself), then joins and answers (an
LLM step whose recorded ``messages`` carry the subagents' answers). Deterministic for a seed;
for tests and for sizing a serving stack for agent fan-out.
"""

from __future__ import annotations

import random
from typing import Any

from agentic_bench.trace.model import SCHEMA_VERSION, Session

TOOL = {"type": "function", "function": {
    "name": "search", "description": "Search the project notes.",
    "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                   "required": ["q"]}}}


def _words(rng: random.Random, n: int) -> str:
    vocabulary = ("cache", "replica", "router", "prefix", "token", "queue", "latency", "budget",
                  "shard", "batch", "kernel", "memory", "agent", "branch", "join", "trace")
    return " ".join(rng.choice(vocabulary) for _ in range(n))


def _llm(rng: random.Random, tokens: int, calls: list[dict[str, Any]] | None = None,
         messages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"kind": "llm", "params": {"max_tokens": tokens},
                            "output": {"content": None if calls else _words(rng, 12),
                                       "tool_calls": calls or []}}
    if messages is not None:
        step["messages"] = messages
    return step


def _branch(rng: random.Random, label: str, fanout: int, depth: int,
            tokens: int) -> dict[str, Any]:
    call_id = f"call_{label.replace('.', '_')}"
    steps: list[dict[str, Any]] = [
        _llm(rng, tokens, [{"id": call_id, "name": "search",
                            "arguments": {"q": _words(rng, 3)}}]),
        {"kind": "tool", "call_id": call_id, "name": "search", "arguments": {},
         "result": _words(rng, 40), "duration_ms": round(rng.uniform(5, 50), 1)},
    ]
    if depth > 1:
        steps.append({"kind": "parallel", "branches": [
            _branch(rng, f"{label}.{n}", fanout, depth - 1, tokens) for n in range(fanout)]})
    steps.append(_llm(rng, tokens))
    return {"name": f"subagent-{label}", "task": f"Subtask {label}: {_words(rng, 20)}",
            "steps": steps}


def fanout_session(index: int, *, fanout: int = 4, depth: int = 1, turns: int = 1,
                   tokens: int = 32, seed: int = 0) -> Session:
    """One coordinator session with ``fanout`` subagents per turn, nested ``depth`` deep."""
    if fanout < 1 or depth < 1 or turns < 1:
        raise ValueError("fanout, depth and turns must be at least 1")
    rng = random.Random(seed * 100_003 + index)
    system = "You coordinate subagents: split the task, hand out the parts, merge the answers."
    raw_turns = []
    for ti in range(turns):
        user = f"Task {index}.{ti}: {_words(rng, 30)}"
        branches = [_branch(rng, f"{ti}.{n}", fanout, depth, tokens) for n in range(fanout)]
        merge = [{"role": "system", "content": system}, {"role": "user", "content": user},
                 *({"role": "user", "content": f"{b['name']} reports: {_words(rng, 15)}"}
                   for b in branches)]
        raw_turns.append({"user": user, "think_time_s": 0.0 if ti == 0 else 1.0,
                          "steps": [_llm(rng, tokens), {"kind": "parallel",
                                                        "branches": branches},
                                    _llm(rng, tokens, messages=merge)]})
    return Session.model_validate({
        "schema_version": SCHEMA_VERSION, "session_id": f"fanout-{index}", "system": system,
        "tools": [TOOL], "turns": raw_turns, "category": f"fanout{fanout}x{depth}",
        "metadata": {"source": "synthetic-fanout", "fanout": fanout, "depth": depth}})


def fanout_sessions(n: int, **options: Any) -> list[Session]:
    return [fanout_session(i, **options) for i in range(n)]


__all__ = ["fanout_session", "fanout_sessions"]
