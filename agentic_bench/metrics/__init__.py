"""Metrics: declared latency metrics, exact percentiles, summary aggregation and verdict.

Declarations: :mod:`~agentic_bench.metrics.declarations` (each latency metric once: how its
value is derived from a request's timestamps, its record field, unit and SLO key; the
built-ins, then those of installed ``metric:`` plugins). Statistics: :func:`percentile` and
:func:`describe` (count, mean, percentiles). Summary: :func:`summarize` turns records
(:mod:`agentic_bench.records`) and a :class:`RunInfo` into ``summary.json``'s figures over the
declared metrics. Verdict: :func:`parse_slos` reads ``--slo`` (keys: :func:`slo_keys`, the
declared SLOs and the lower limits) and :func:`evaluate` checks them (VALID when every row
holds).
"""

from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.percentiles import describe, percentile
from agentic_bench.metrics.verdict import evaluate, parse_slos, slo_keys

__all__ = [
    "RunInfo",
    "describe",
    "evaluate",
    "parse_slos",
    "percentile",
    "slo_keys",
    "summarize",
]
