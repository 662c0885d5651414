"""Prefix-cache reuse as the server reports it: cached prompt tokens / prompt tokens.

Agentic conversations resend a growing history, so most of each prompt could come from the
server's prefix (KV) cache; how much did? Every LLM record keeps ``cached_tokens`` when the
server reports it (``transport.sse.cached_prompt_tokens`` lists the fields read). The summary's
``prefix_cache`` block gives the run's hit rate (Σ cached / Σ prompt tokens over the requests
that report both), its distribution per request and per session, and the hit rate by the
request's position in its session (0 = first request): the curve should climb after the first
request when the cache works. Absent when no request reported cached tokens (the server does
not say; vLLM needs ``--enable-prompt-tokens-details``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agentic_bench.metrics.percentiles import describe

MAX_POSITIONS = 64  # positions beyond this are pooled into the last row


def _rate(cached: int, prompt: int) -> float | None:
    return cached / prompt if prompt > 0 else None


def prefix_cache(llm: list[dict[str, Any]],
                 ceiling: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The ``prefix_cache`` block from the run's LLM step records (in the order written).
    With the trace's ``prefix_ceiling`` (``workload.prefix_ceiling``), each position row also
    gets the within-session ceiling of that position (characters: an estimate beside tokens)."""
    reporting = [r for r in llm if r.get("status") == "ok" and r.get("input_tokens")
                 and isinstance(r.get("cached_tokens"), int)]
    if not reporting:
        return None
    sessions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in reporting:
        sessions[str(r.get("session_id"))].append(r)
    position: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])  # requests, cached, prompt
    per_session = []
    for calls in sessions.values():
        calls.sort(key=lambda r: r.get("t_sent_ns", 0))
        for i, r in enumerate(calls):
            row = position[min(i, MAX_POSITIONS)]
            row[0] += 1
            row[1] += r["cached_tokens"]
            row[2] += r["input_tokens"]
        per_session.append(_rate(sum(r["cached_tokens"] for r in calls),
                                 sum(r["input_tokens"] for r in calls)))
    cached = sum(r["cached_tokens"] for r in reporting)
    prompt = sum(r["input_tokens"] for r in reporting)
    bound = {int(row["position"]): row.get("within_session")
             for row in (ceiling or {}).get("by_request_position") or []}
    return {
        "requests_reporting": len(reporting),
        "prompt_tokens": prompt,
        "cached_tokens": cached,
        "hit_rate": _rate(cached, prompt),
        "per_request_hit_rate": describe(r["cached_tokens"] / r["input_tokens"]
                                         for r in reporting),
        "per_session_hit_rate": describe(v for v in per_session if v is not None),
        "by_request_position": [
            {"position": k, "requests": n, "hit_rate": _rate(c, p),
             **({"ceiling": bound[k]} if k in bound else {})}
            for k, (n, c, p) in sorted(position.items())],
    }
