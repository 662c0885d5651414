"""The records a replay writes besides requests, turns and sessions: one constructor per kind.

- :func:`step_ids`: the ids every ``step`` record of a session carries (its requests too);
- :func:`simulated_step_record`: a step the harness does not execute but waits out (a tool,
  retrieval or ``wait`` step: its recorded duration under the think policy);
- :func:`branch_record`: one conversation of a session besides its own — a fan-out branch, or
  a subagent a ``spawn`` step started (``spawned``, with its ``parent``);
- :func:`fanout_record`: one fan-out group, from its start to the join of all its branches;
- :func:`join_record`: a ``join`` step, and how long its conversation waited for branches.

Times are ``perf_counter_ns`` readings; records carry them as offsets from the run's zero
``t0_ns``. The turn and session records are :mod:`agentic_bench.records.types`' own.
"""

from __future__ import annotations

from typing import Any

from agentic_bench.contracts import SessionTicket
from agentic_bench.units import NS_PER_MS


def step_ids(ticket: SessionTicket, turn: int, step: int, branch: str = "") -> dict[str, Any]:
    ids = {"type": "step", "session_id": ticket.session_id,
           "source_session": ticket.session.session_id, "session_index": ticket.index,
           "worker": ticket.worker, "turn": turn, "step": step}
    return {**ids, "branch": branch} if branch else ids


def simulated_step_record(ids: dict[str, Any], kind: str, recorded_ms: float, start_ns: int,
                          end_ns: int, t0_ns: int, reason: str | None = None) -> dict[str, Any]:
    return {**ids, "kind": kind, "status": "ok", "executed": "simulated",
            "recorded_ms": recorded_ms, **({"reason": reason} if reason else {}),
            "t_sent_ns": start_ns - t0_ns, "t_end_ns": end_ns - t0_ns,
            "duration_ms": (end_ns - start_ns) / NS_PER_MS}


def branch_record(ticket: SessionTicket, turn: int, branch: str, name: str | None,
                  status: str, start_ns: int, end_ns: int, t0_ns: int, llm_calls: int, *,
                  parent: str | None = None, partial: bool = False) -> dict[str, Any]:
    """A branch's record; ``parent``: the conversation that spawned it (None: a fan-out
    branch); ``partial``: some of its requests were history before a lane's start."""
    spawned: dict[str, Any] = {"spawned": True, "parent": parent} if parent is not None else {}
    return {"type": "branch", "session_id": ticket.session_id,
            "session_index": ticket.index, "worker": ticket.worker, "turn": turn,
            "branch": branch, "name": name, **spawned, "status": status,
            "t_start_ns": start_ns - t0_ns, "t_end_ns": end_ns - t0_ns,
            "latency_ms": (end_ns - start_ns) / NS_PER_MS, "llm_calls": llm_calls,
            **({"partial": True} if partial else {})}


def fanout_record(ticket: SessionTicket, turn: int, group: str, branches: int, ok: bool,
                  start_ns: int, end_ns: int, t0_ns: int) -> dict[str, Any]:
    return {"type": "fanout", "session_id": ticket.session_id,
            "session_index": ticket.index, "worker": ticket.worker, "turn": turn,
            "group": group, "branches": branches, "status": "ok" if ok else "error",
            "t_start_ns": start_ns - t0_ns, "t_end_ns": end_ns - t0_ns,
            "latency_ms": (end_ns - start_ns) / NS_PER_MS}


def join_record(ticket: SessionTicket, turn: int, step: int, conversation: str,
                branches: list[str], start_ns: int, end_ns: int, t0_ns: int) -> dict[str, Any]:
    return {"type": "join", "session_id": ticket.session_id,
            "session_index": ticket.index, "worker": ticket.worker, "turn": turn,
            "step": step, "conversation": conversation, "branches": branches,
            "t_start_ns": start_ns - t0_ns, "t_end_ns": end_ns - t0_ns,
            "wait_ms": (end_ns - start_ns) / NS_PER_MS}


__all__ = ["branch_record", "fanout_record", "join_record", "simulated_step_record",
           "step_ids"]
