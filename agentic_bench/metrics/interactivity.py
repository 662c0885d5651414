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

Requests with no output token count are left out of the per-token forms.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agentic_bench.metrics.percentiles import describe, percentile

INVERSE_PERCENTILES = (50, 90, 99)


def _ratio(tokens: float, seconds: float) -> float | None:
    return tokens / seconds if seconds > 0 else None


def interactivity(llm: list[dict[str, Any]], sessions: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``interactivity`` block of summary.json from LLM step and session records."""
    ok = [r for r in llm if r.get("status") == "ok"]
    tokens_ok = sum(r.get("output_tokens") or 0 for r in ok)
    seconds_all = sum(r.get("request_ms") or 0.0 for r in llm) / 1000
    seconds_ok = sum(r.get("request_ms") or 0.0 for r in ok) / 1000
    per_request = [r["output_tokens"] / (r["request_ms"] / 1000) for r in ok
                   if r.get("output_tokens") and r.get("request_ms")]
    ms_per_token = sorted(r["request_ms"] / r["output_tokens"] for r in ok
                          if r.get("output_tokens") and r.get("request_ms"))
    by_session: dict[str, int] = defaultdict(int)
    for r in ok:
        by_session[r.get("session_id", "")] += r.get("output_tokens") or 0
    per_session = [by_session[s["session_id"]] / (s["latency_ms"] / 1000) for s in sessions
                   if s.get("status") == "ok" and s.get("latency_ms")
                   and by_session.get(s["session_id"])]
    inverse: dict[str, float | None] = {}
    for p in INVERSE_PERCENTILES:
        value = percentile(ms_per_token, p) if ms_per_token else None
        inverse[f"p{p}"] = 1000 / value if value else None
    return {
        "e2e_avg_interactivity": _ratio(tokens_ok, seconds_all),
        "e2e_avg_interactivity_ok": _ratio(tokens_ok, seconds_ok),
        "tokens_per_s_per_user": describe(per_request),
        "session_tokens_per_s": describe(per_session),
        "inverse_e2el_per_token": inverse,
    }
