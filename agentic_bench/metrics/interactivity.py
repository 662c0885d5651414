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
per-session forms are kept as latency per output token at 1 µs (a distribution whose memory
follows its range, as every latency figure's: metrics/distribution.py), tokens/s being 1000 / it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentic_bench.metrics.distribution import MICROSECOND_MS, Distribution

INVERSE_PERCENTILES = (50, 90, 99)


def _ratio(tokens: float, seconds: float) -> float | None:
    return tokens / seconds if seconds > 0 else None


class InteractivityTally:
    """The ``interactivity`` block, fed LLM step and session records one at a time: sums, the
    latency per output token of each request and each session as a distribution at 1 µs
    (tokens/s per user is 1000 / it), and the output tokens of sessions still running
    (dropped when their session record comes)."""

    def __init__(self) -> None:
        self.tokens_ok = 0
        self.seconds_all = 0.0  # summed in ms, in record order, as the records' own sum
        self.seconds_ok = 0.0
        self.request_ms_per_token = Distribution(MICROSECOND_MS)
        self.session_ms_per_token = Distribution(MICROSECOND_MS)
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
            self.request_ms_per_token.add(request_ms / tokens)
        sid = r.get("session_id", "")
        self._running[sid] = self._running.get(sid, 0) + tokens

    def add_session(self, s: dict[str, Any]) -> None:
        tokens = self._running.pop(s.get("session_id", ""), 0)
        if s.get("status") == "ok" and s.get("latency_ms") and tokens:
            self.session_ms_per_token.add(s["latency_ms"] / tokens)

    def block(self) -> dict[str, Any]:
        inverse: dict[str, float | None] = {}
        for p in INVERSE_PERCENTILES:
            value = (self.request_ms_per_token.percentile(p)
                     if self.request_ms_per_token.count else None)
            inverse[f"p{p}"] = 1000 / value if value else None
        return {
            "e2e_avg_interactivity": _ratio(self.tokens_ok, self.seconds_all / 1000),
            "e2e_avg_interactivity_ok": _ratio(self.tokens_ok, self.seconds_ok / 1000),
            "tokens_per_s_per_user": _per_second(self.request_ms_per_token),
            "session_tokens_per_s": _per_second(self.session_ms_per_token),
            "inverse_e2el_per_token": inverse,
        }


def _per_second(ms_per_token: Distribution) -> dict[str, float | int | None]:
    """Tokens/s (1000 / ms per token) of each value of ``ms_per_token``, described."""
    rates = Distribution(None)
    for value, n in ms_per_token.counts():
        if value:
            rates.add(1000 / value, n)
    return rates.describe()


def interactivity(llm: Iterable[dict[str, Any]], sessions: Iterable[dict[str, Any]]
                  ) -> dict[str, Any]:
    """The ``interactivity`` block of summary.json from LLM step and session records."""
    tally = InteractivityTally()
    for r in llm:
        tally.add_llm(r, r.get("status") == "ok")
    for s in sessions:
        tally.add_session(s)
    return tally.block()
