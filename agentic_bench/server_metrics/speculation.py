"""After the run: speculative decoding and KV-cache tiers as the server reported them.

``speculation`` (per source, when the server exports a speculation family):

* from counters (vLLM, TensorRT-LLM): acceptance rate = Δ accepted / Δ draft tokens and, with
  vLLM's drafts counter, mean acceptance length = 1 + Δ accepted / Δ drafts (the bonus token
  counted) and the per-position rate = Δ accepted at the position / Δ drafts — the formulas of
  vLLM's ``SpecDecodingProm`` docstring (``vllm/v1/spec_decode/metrics.py``). Over time: the same
  ratios between consecutive scrapes.
* from gauges (SGLang ``sglang:spec_accept_length``/``spec_accept_rate``, TensorRT-LLM
  ``trtllm_spec_decode_acceptance_length``): the mean of the scrapes where the length is above 0
  (SGLang exports 0 while nothing is drafted, and always exports the gauges), the gauge as the
  series over time.
* ``drafting``: the server drafted during the run (a counter grew, or the length gauge was
  above 0) — what ``--spec-decode-policy`` is checked against (metrics/speculation_rows.py).

``kv_tiers`` (per source, when a tier beyond the GPU is exported): per tier, its hits over the
run (tokens), its queries where the server counts them, and the hit rate.
"""

from __future__ import annotations

import itertools
from statistics import fmean
from typing import Any

from agentic_bench.server_metrics.families_speculation_tiers import TIERS

Points = list[tuple[float, float]]
SPEC_NAMES = ("spec_drafts", "spec_draft_tokens", "spec_accepted_tokens", "spec_accept_length",
              "spec_accept_rate")


def _deltas(points: Points) -> dict[float, float]:
    """A counter's growth into each scrape from the one before (a drop: a restart, from 0)."""
    return {t1: (v1 - v0 if v1 >= v0 else v1)
            for (_, v0), (t1, v1) in itertools.pairwise(points)}


def ratio_series(num: Points, den: Points, offset: float = 0.0) -> list[list[float]]:
    """``offset`` + Δnum / Δden between consecutive scrapes, where Δden > 0."""
    dn, dd = _deltas(num), _deltas(den)
    return [[round(t, 3), offset + dn[t] / dd[t]] for t in sorted(dn) if dd.get(t, 0.0) > 0]


def _ratio(a: float | None, b: float | None, offset: float = 0.0) -> float | None:
    return offset + a / b if a is not None and b else None


def speculation_block(stats: dict[str, dict[str, Any]],
                      series: dict[str, Points]) -> dict[str, Any] | None:
    """The summary's ``speculation`` of one source, or None when it exports no such family."""
    per_pos = sorted((k for k in stats if k.startswith("spec_accepted_per_position[")),
                     key=lambda k: int(k[k.index("[") + 1:-1]) if k[k.index("[") + 1:-1]
                     .isdigit() else 0)
    if not per_pos and not any(n in stats for n in SPEC_NAMES):
        return None

    def inc(name: str) -> float | None:
        return (stats.get(name) or {}).get("increase")

    drafts, drafted, accepted = (inc("spec_drafts"), inc("spec_draft_tokens"),
                                 inc("spec_accepted_tokens"))
    length_pts = [(t, v) for t, v in series.get("spec_accept_length", []) if v > 0]
    rate_at = dict(series.get("spec_accept_rate", []))
    out: dict[str, Any] = {
        "reported": True,
        "drafting": bool(drafts or drafted or length_pts),
        "drafts": drafts, "draft_tokens": drafted, "accepted_tokens": accepted,
        "acceptance_rate": _ratio(accepted, drafted),
        "mean_acceptance_length": _ratio(accepted, drafts, 1.0),
        "from": "counters: accepted / draft tokens, 1 + accepted / drafts"}
    over_time: dict[str, list[list[float]]] = {}
    if accepted is not None and drafted is not None:
        over_time["acceptance_rate"] = ratio_series(series["spec_accepted_tokens"],
                                                    series["spec_draft_tokens"])
    if accepted is not None and drafts is not None:
        over_time["acceptance_length"] = ratio_series(series["spec_accepted_tokens"],
                                                      series["spec_drafts"], 1.0)
    if out["mean_acceptance_length"] is None and length_pts:
        out["mean_acceptance_length"] = fmean(v for _, v in length_pts)
        out["from"] = "the server's acceptance-length gauge: mean of the scrapes above 0"
        over_time["acceptance_length"] = [[round(t, 3), v] for t, v in length_pts]
    if out["acceptance_rate"] is None and rate_at and length_pts:
        rates = [rate_at[t] for t, _ in length_pts if t in rate_at]
        out["acceptance_rate"] = fmean(rates) if rates else None
        over_time["acceptance_rate"] = [[round(t, 3), rate_at[t]] for t, _ in length_pts
                                        if t in rate_at]
    if per_pos and drafts:
        out["per_position"] = [(stats[k].get("increase") or 0.0) / drafts for k in per_pos]
    out["series"] = over_time
    return out


def tiers_block(stats: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """Per KV-cache tier: hits (tokens) over the run, queries where counted, hit rate — or None
    when the source exports no tier beyond the GPU's prefix cache."""
    tiers: dict[str, Any] = {}
    for tier, hits_name, queries_name in TIERS:
        hits = (stats.get(hits_name) or {}).get("increase")
        if hits is None:
            continue
        queries = (stats.get(queries_name) or {}).get("increase") if queries_name else None
        tiers[tier] = {"hits": hits, "queries": queries,
                       "hit_rate": hits / queries if queries else None,
                       "metric": hits_name}
    if not set(tiers) - {"gpu"}:
        return None
    return tiers


__all__ = ["ratio_series", "speculation_block", "tiers_block"]
