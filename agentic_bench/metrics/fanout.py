"""Fan-out agents: the ``fanout`` block of summary.json, from ``branch`` and ``fanout`` records.

A fan-out group is a parallel step of a trace: its branches (subagents) run at once and the
turn goes on at the join. Per group, ``join_ms`` is fan-out → join (the slowest branch plus the
scheduling around it); per branch, ``branch_ms`` is its own first step → last step; per group,
``spread_ms`` is its slowest minus its fastest branch (what the join waits for a straggler).
Successful groups and branches only, as the other latency figures; ``width`` counts branches per
group. Absent when a run had no fan-out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from agentic_bench.metrics.percentiles import describe


def fanout_block(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    groups = [r for r in records if r.get("type") == "fanout"]
    if not groups:
        return None
    branches = [r for r in records if r.get("type") == "branch"]
    ok_groups = [g for g in groups if g.get("status") == "ok"]
    ok_branches = [b for b in branches if b.get("status") == "ok"]
    members: dict[tuple[Any, ...], list[float]] = defaultdict(list)
    for b in ok_branches:
        members[(b.get("session_id"), b.get("turn"), str(b["branch"]).rsplit(".", 1)[0])].append(
            b["latency_ms"])
    done = {(g.get("session_id"), g.get("turn"), g.get("group")) for g in ok_groups}
    spreads = [max(v) - min(v) for key, v in members.items() if key in done and v]
    return {
        "groups": len(groups), "groups_ok": len(ok_groups),
        "branches": len(branches), "branches_ok": len(ok_branches),
        "width": describe(float(g["branches"]) for g in groups),
        "join_ms": describe(g["latency_ms"] for g in ok_groups),
        "branch_ms": describe(b["latency_ms"] for b in ok_branches),
        "spread_ms": describe(spreads),
    }


__all__ = ["fanout_block"]
