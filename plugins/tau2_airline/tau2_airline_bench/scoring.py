"""tau2's verdict for one airline conversation, and the run's accuracy block.

DB check (tau2's ``EnvironmentEvaluator``): replay the task's gold actions on a fresh copy of
the database and compare its hash with the hash of the database the agent's tool calls left.
Communicate check (``CommunicateEvaluator``): every ``communicate_info`` string appears in some
agent message (case-insensitive, commas removed). The reward multiplies the checks named in
the task's ``reward_basis`` (default DB and COMMUNICATE, as for all airline tasks); a
conversation that did not end normally (agent or user error, turn limit) scores 0, as tau2's
``evaluate_simulation`` does for a premature termination.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tau2_airline_bench.data import task_by_id
from tau2_airline_bench.db import AirlineDB
from tau2_airline_bench.tools import WRITE_TOOLS, AirlineTools, call_tool

DEFAULT_BASIS = ("DB", "COMMUNICATE")
SUPPORTED_BASIS = frozenset(DEFAULT_BASIS)
NORMAL_ENDS = frozenset({"user_stop", "agent_stop"})


@dataclass
class Conversation:
    """What one session left behind: its database, what the agent said, how it ended."""

    task_id: str
    db: AirlineDB
    agent_texts: list[str] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    termination: str = "user_stop"
    turns: int = 0


def gold_actions(task: dict[str, Any]) -> list[dict[str, Any]] | None:
    criteria = task.get("evaluation_criteria") or {}
    return criteria.get("actions")


def category(task: dict[str, Any]) -> str:
    """``no_action`` (refuse or explain), ``read_only``, or ``write`` — from the gold actions."""
    names = {a["name"] for a in gold_actions(task) or []}
    if names & WRITE_TOOLS:
        return "write"
    return "read_only" if names else "no_action"


@functools.cache
def gold_hash(task_id: str) -> str:
    """DB hash after the gold actions on a fresh copy (errors ignored, as in tau2)."""
    db = AirlineDB()
    tools = AirlineTools(db)
    for action in gold_actions(task_by_id(task_id)) or []:
        call_tool(tools, action["name"], dict(action.get("arguments") or {}))
    return db.hash()


def communicated(info: list[str], agent_texts: list[str]) -> list[bool]:
    texts = [t.lower().replace(",", "") for t in agent_texts if t]
    return [any(s.lower() in t for t in texts) for s in info]


def verdict(conv: Conversation) -> dict[str, Any]:
    task = task_by_id(conv.task_id)
    criteria = task.get("evaluation_criteria") or {}
    basis = tuple(criteria.get("reward_basis") or DEFAULT_BASIS)
    agent_hash = conv.db.hash()
    expected = gold_hash(conv.task_id) if gold_actions(task) is not None else agent_hash
    db_match = agent_hash == expected
    info = list(criteria.get("communicate_info") or [])
    said = communicated(info, conv.agent_texts)
    communicate_ok = all(said)
    reward = 1.0
    if "DB" in basis:
        reward *= float(db_match)
    if "COMMUNICATE" in basis:
        reward *= float(communicate_ok)
    unsupported = sorted(set(basis) - SUPPORTED_BASIS)
    if conv.termination not in NORMAL_ENDS:
        reward = 0.0
    return {
        "correct": reward == 1.0 and not unsupported, "reward": reward,
        "task_id": conv.task_id, "db_match": db_match, "communicate_ok": communicate_ok,
        "communicate_missing": [s for s, ok in zip(info, said, strict=True) if not ok],
        "termination": conv.termination, "agent_db_hash": agent_hash, "gold_db_hash": expected,
        "tool_calls": len(conv.tool_calls),
        "tool_errors": sum(1 for c in conv.tool_calls if c.get("error")),
        "write_calls": [c["name"] for c in conv.tool_calls if c["name"] in WRITE_TOOLS],
        "turns_run": conv.turns,
        **({"unsupported_basis": unsupported} if unsupported else {}),
    }


def oracle_conversation(task_id: str) -> Conversation:
    """The gold trajectory as an agent would produce it: every gold action executed, then a
    message carrying the task's ``communicate_info`` (for checking the scorer end to end)."""
    task = task_by_id(task_id)
    conv = Conversation(task_id=task_id, db=AirlineDB())
    tools = AirlineTools(conv.db)
    for action in gold_actions(task) or []:
        _, error = call_tool(tools, action["name"], dict(action.get("arguments") or {}))
        conv.tool_calls.append({"name": action["name"], "error": error})
    info = (task.get("evaluation_criteria") or {}).get("communicate_info") or []
    conv.agent_texts.append("Done. " + " ".join(info))
    return conv


def tau2_accuracy(records: list[dict[str, Any]], target: float | None,
                  profile: str, user: str) -> dict[str, Any] | None:
    """The accuracy block: pass rate, per category, and one row per task with its turns."""
    samples = [r for r in records if r.get("type") == "sample"]
    if not samples:
        return None
    turns: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r.get("type") == "turn":
            turns[r["session_id"]].append(r)
    by: dict[str, list[bool]] = defaultdict(list)
    rows = []
    for s in sorted(samples, key=lambda r: int(r.get("session_id", "#0").rsplit("#", 1)[1])):
        ok = bool(s.get("correct"))
        by[str(s.get("category"))].append(ok)
        mine = sorted(turns.get(s["session_id"], []), key=lambda t: t["turn"])
        rows.append({"session_id": s["session_id"], "task_id": s.get("task_id"),
                     "category": s.get("category"), "pass": ok, "db_match": s.get("db_match"),
                     "communicate_ok": s.get("communicate_ok"),
                     "termination": s.get("termination", "error"),
                     "tool_calls": s.get("tool_calls"), "tool_errors": s.get("tool_errors"),
                     "turn_latency_ms": [round(t["latency_ms"], 3) for t in mine],
                     "turn_status": [t["status"] for t in mine]})
    passed = sum(r["pass"] for r in rows)
    return {
        "metric": "tau2 pass^1 (DB hash after gold actions x communicate_info)",
        "headline": passed / len(rows), "correct": passed, "total": len(rows),
        "target": target, "prompt_profile": profile, "user": user,
        "db_match_rate": sum(bool(r["db_match"]) for r in rows) / len(rows),
        "by_category": {k: {"accuracy": sum(v) / len(v), "correct": sum(v), "total": len(v)}
                        for k, v in sorted(by.items())},
        "tasks": rows,
    }


def rescore(records: list[dict[str, Any]],
            previous: dict[str, Any] | None) -> dict[str, Any] | None:
    """``agentic-bench report``: the pass rate recomputed from the sample records; the target,
    prompt profile and user mode (not in the records) kept from the run's earlier block."""
    previous = previous or {}
    return tau2_accuracy(records, previous.get("target"),
                         str(previous.get("prompt_profile") or "?"),
                         str(previous.get("user") or "?"))
