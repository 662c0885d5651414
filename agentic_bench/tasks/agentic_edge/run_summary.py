"""Accuracy block of summary.json for agentic-edge, computed from the run's records."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agentic_bench.tasks.agentic_edge.aggregation import aggregate


def edge_accuracy(records: list[dict[str, Any]], tool_mode: str,
                  target: float | None) -> dict[str, Any] | None:
    single = [(r["subset"], bool(r["bfcl_valid"])) for r in records
              if r.get("type") == "sample" and r.get("category") != "multi_turn"]
    multi = [r for r in records if r.get("type") == "sample" and r.get("category") == "multi_turn"]
    if not single and not multi:
        return None
    out: dict[str, Any] = {"metric": "bfcl overall (mean over samples)", "tool_mode": tool_mode,
                           "target": target}
    if single:
        out.update(aggregate(single))
        out["headline"] = out["overall"]
        out["unanswered"] = sum(1 for r in records if r.get("type") == "sample"
                                and r.get("category") != "multi_turn" and not r["answered"])
    if multi:
        by: dict[str, list[bool]] = defaultdict(list)
        for r in multi:
            by[r["subset"]].append(bool(r["bfcl_valid"]))
        total = [v for vs in by.values() for v in vs]
        out["multi_turn"] = {
            "accuracy": sum(total) / len(total), "correct": sum(total), "total": len(total),
            "subsets": {k: {"accuracy": sum(v) / len(v), "correct": sum(v), "total": len(v)}
                        for k, v in sorted(by.items())},
        }
        if not single:
            out["metric"] = "bfcl multi-turn accuracy"
            out["headline"] = out["multi_turn"]["accuracy"]
    return out
