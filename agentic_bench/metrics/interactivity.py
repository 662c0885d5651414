"""Interactivity: how fast tokens reach one user, in the three forms peers publish.

* ``e2e_avg_interactivity`` — MLCommons endpoints' agentic metric (mlcommons/endpoints PR #493,
  issue #492): total output tokens / summed request latency in seconds, one scalar. As merged
  there, the latency sum covers *every* request while the tokens come only from successful
  ones (the reviewer's objection in that PR); ``e2e_avg_interactivity_ok`` excludes failed
  requests from both, so the two sides match.
* ``tokens_per_s_per_user`` — per request, output tokens / request latency (count, mean,
  percentiles), and ``session_tokens_per_s`` — per session, its output tokens / session latency.
* ``inverse_e2el_per_token`` — AIPerf's form (ai-dynamo/aiperf #1270): for p in 50, 90, 99,
  1000 / pXX(request latency ms / output tokens), i.e. tokens/s at that percentile of the
  per-token latency (a high percentile of latency is a *low* interactivity).

Requests with no output token count are left out of the per-token forms. The per-request and
per-session forms are computed from latencies at 1 µs, as every latency figure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from agentic_bench.metrics.distribution import MICROSECOND_MS, Distribution

INVERSE_PERCENTILES = (50, 90, 99)


def _ratio(tokens: float, seconds: float) -> float | None:
    return tokens / seconds if seconds > 0 else None


_US_BITS = 40  # a pair's key: output tokens above the latency in µs (up to 12.7 days)


def _pair(tokens: int, ms: float) -> int:
    """(output tokens, latency in whole µs — the resolution of every latency) as one int, a
    third of a tuple's memory in a count map."""
    return (tokens << _US_BITS) | round(ms / MICROSECOND_MS)


def _unpair(key: int) -> tuple[int, int]:
    return key >> _US_BITS, key & ((1 << _US_BITS) - 1)


class InteractivityTally:
    """The ``interactivity`` block, fed LLM step and session records one at a time: sums,
    (output tokens, latency in µs) → count maps, and the output tokens of sessions still
    running (dropped when their session record comes)."""

    def __init__(self) -> None:
        self.tokens_ok = 0
        self.seconds_all = 0.0  # summed in ms, in record order, as the records' own sum
        self.seconds_ok = 0.0
        self.requests: Counter[int] = Counter()  # _pair(tokens, request ms) → count
        self.sessions: Counter[int] = Counter()  # _pair(tokens, session ms) → count
        self._running: dict[str, int] = {}  # session id → its ok requests' output tokens

    def add_llm(self, r: dict[str, Any], ok: bool) -> None:
        request_ms = r.get("request_ms") or 0.0
        self.seconds_all += request_ms
        if not ok:
            return
        tokens = r.get("output_tokens") or 0
        self.tokens_ok += tokens
        self.seconds_ok += request_ms
        if tokens and request_ms:
            self.requests[_pair(tokens, request_ms)] += 1
        sid = r.get("session_id", "")
        self._running[sid] = self._running.get(sid, 0) + tokens

    def add_session(self, s: dict[str, Any]) -> None:
        tokens = self._running.pop(s.get("session_id", ""), 0)
        if s.get("status") == "ok" and s.get("latency_ms") and tokens:
            self.sessions[_pair(tokens, s["latency_ms"])] += 1

    def block(self) -> dict[str, Any]:
        per_request = Distribution(None)
        ms_per_token = Distribution(None)
        for key, n in self.requests.items():
            tokens, us = _unpair(key)
            if us:
                per_request.add(tokens / (us / 1_000_000), n)
                ms_per_token.add(us / 1000 / tokens, n)
        per_session = Distribution(None)
        for key, n in self.sessions.items():
            tokens, us = _unpair(key)
            if us:
                per_session.add(tokens / (us / 1_000_000), n)
        inverse: dict[str, float | None] = {}
        for p in INVERSE_PERCENTILES:
            value = ms_per_token.percentile(p) if ms_per_token.count else None
            inverse[f"p{p}"] = 1000 / value if value else None
        return {
            "e2e_avg_interactivity": _ratio(self.tokens_ok, self.seconds_all / 1000),
            "e2e_avg_interactivity_ok": _ratio(self.tokens_ok, self.seconds_ok / 1000),
            "tokens_per_s_per_user": per_request.describe(),
            "session_tokens_per_s": per_session.describe(),
            "inverse_e2el_per_token": inverse,
        }


def interactivity(llm: Iterable[dict[str, Any]], sessions: Iterable[dict[str, Any]]
                  ) -> dict[str, Any]:
    """The ``interactivity`` block of summary.json from LLM step and session records."""
    tally = InteractivityTally()
    for r in llm:
        tally.add_llm(r, r.get("status") == "ok")
    for s in sessions:
        tally.add_session(s)
    return tally.block()
