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

from collections import Counter
from collections.abc import Iterable
from typing import Any

from agentic_bench.metrics.distribution import Distribution

MAX_POSITIONS = 64  # positions beyond this are pooled into the last row


def _rate(cached: int, prompt: int) -> float | None:
    return cached / prompt if prompt > 0 else None


class PrefixCacheTally:
    """The ``prefix_cache`` block, fed LLM step records one at a time: sums, the (cached,
    prompt) → count map of requests and of sessions, the rows by position, and the reporting
    requests of sessions still running (ordered and counted when their session ends)."""

    def __init__(self) -> None:
        self.reporting = 0
        self.cached = 0
        self.prompt = 0
        self.per_request: Counter[tuple[int, int]] = Counter()
        self.per_session: Counter[tuple[int, int]] = Counter()
        self.position: dict[int, list[int]] = {}  # position → requests, cached, prompt
        self._running: dict[str, list[tuple[int, int, int]]] = {}  # (sent, cached, prompt)

    def add_llm(self, r: dict[str, Any]) -> None:
        """An LLM step record (counted when it succeeded and reports both token counts)."""
        cached, prompt = r.get("cached_tokens"), r.get("input_tokens")
        if r.get("status") != "ok" or not prompt or not isinstance(cached, int):
            return
        self.reporting += 1
        self.cached += cached
        self.prompt += prompt
        self.per_request[(cached, prompt)] += 1
        self._running.setdefault(str(r.get("session_id")), []).append(
            (r.get("t_sent_ns", 0), cached, prompt))

    def end_session(self, session_id: Any) -> None:
        calls = self._running.pop(str(session_id), None)
        if not calls:
            return
        calls.sort(key=lambda c: c[0])  # stable: calls sent at once keep their record order
        for i, (_, cached, prompt) in enumerate(calls):
            row = self.position.setdefault(min(i, MAX_POSITIONS), [0, 0, 0])
            row[0] += 1
            row[1] += cached
            row[2] += prompt
        self.per_session[(sum(c[1] for c in calls), sum(c[2] for c in calls))] += 1

    def block(self, ceiling: dict[str, Any] | None = None) -> dict[str, Any] | None:
        for session_id in list(self._running):  # sessions with no session record
            self.end_session(session_id)
        if not self.reporting:
            return None
        per_request = Distribution(None)
        for (cached, prompt), n in self.per_request.items():
            per_request.add(cached / prompt, n)
        per_session = Distribution(None)
        for (cached, prompt), n in self.per_session.items():
            rate = _rate(cached, prompt)
            if rate is not None:
                per_session.add(rate, n)
        bound = {int(row["position"]): row.get("within_session")
                 for row in (ceiling or {}).get("by_request_position") or []}
        return {
            "requests_reporting": self.reporting,
            "prompt_tokens": self.prompt,
            "cached_tokens": self.cached,
            "hit_rate": _rate(self.cached, self.prompt),
            "per_request_hit_rate": per_request.describe(),
            "per_session_hit_rate": per_session.describe(),
            "by_request_position": [
                {"position": k, "requests": n, "hit_rate": _rate(c, p),
                 **({"ceiling": bound[k]} if k in bound else {})}
                for k, (n, c, p) in sorted(self.position.items())],
        }


def prefix_cache(llm: Iterable[dict[str, Any]],
                 ceiling: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The ``prefix_cache`` block from the run's LLM step records (in the order written).
    With the trace's ``prefix_ceiling`` (``workload.prefix_ceiling``), each position row also
    gets the within-session ceiling of that position (characters: an estimate beside tokens)."""
    tally = PrefixCacheTally()
    for r in llm:
        tally.add_llm(r)
    return tally.block(ceiling)
