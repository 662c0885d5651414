"""Our numbers for the very queries LoadGen measured, next to LoadGen's (summary.json).

LoadGen's latency of a sample is issue → ``QuerySamplesComplete``; ours is the session latency
(scheduled = the moment LoadGen's issue callback ran → the session's last step), so the two
agree to within the issue hand-off. In MultiStream LoadGen's latency is per query (the slowest
of its N sessions); ours is grouped the same way here. LoadGen's first-token latency is issue →
``FirstTokenComplete``; ours is issue → first token of the session's first LLM call.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Protocol


class Measured(Protocol):
    batch: int
    latency_ms: float | None
    ttft_ms: float | None


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _pair(loadgen: float | None, ours: float | None, count: int) -> dict[str, Any]:
    diff = loadgen - ours if loadgen is not None and ours is not None else None
    return {"loadgen_mean": loadgen, "ours_mean": ours, "diff_ms": diff, "count": count}


def compare_latencies(queries: Sequence[Measured], result: dict[str, Any],
                      skipped: int = 0) -> dict[str, Any]:
    ran = [q for q in queries if q.latency_ms is not None]
    out: dict[str, Any] = {}
    if skipped:
        out["note"] = (f"{skipped} queries were answered empty after an interrupt; LoadGen's "
                       "statistics include them, ours do not")
    if result.get("query_latency_ms"):  # MultiStream
        by: dict[int, list[float]] = defaultdict(list)
        for q in ran:
            by[q.batch].append(q.latency_ms)  # type: ignore[arg-type]
        worst = [max(v) for v in by.values()]
        out["basis"] = "per LoadGen query (slowest of its sessions)"
        out["latency_ms"] = _pair(result["query_latency_ms"].get("mean"), _mean(worst),
                                  len(worst))
    elif result.get("latency_ms"):
        out["basis"] = "per session"
        out["latency_ms"] = _pair(result["latency_ms"].get("mean"),
                                  _mean([q.latency_ms for q in ran]),  # type: ignore[misc]
                                  len(ran))
    if result.get("first_token_ms"):
        ttft = [q.ttft_ms for q in ran if q.ttft_ms is not None]
        out["first_token_ms"] = _pair(result["first_token_ms"].get("mean"), _mean(ttft),
                                      len(ttft))
    return out
