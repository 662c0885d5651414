"""Metrics: records, exact percentiles, summary aggregation, constraints and verdict.

Records: :func:`llm_record` (the timing fields of one chat call), :class:`RecordWriter`
(``records.jsonl``, flushed per line), :func:`read_records` and :func:`run_records_path`.
Statistics: :func:`percentile` and :func:`describe` (count, mean, percentiles).
Summary: :func:`summarize` turns records and a :class:`RunInfo` into ``summary.json``'s
figures over :data:`LATENCY_METRICS`. Verdict: :func:`parse_slos` reads ``--slo`` (keys in
:data:`SLO_KEYS`) and :func:`evaluate` checks them (VALID when every row holds).
"""

from agentic_bench.metrics.aggregate import LATENCY_METRICS, RunInfo, summarize
from agentic_bench.metrics.percentiles import describe, percentile
from agentic_bench.metrics.records import (
    RecordWriter,
    llm_record,
    read_records,
    run_records_path,
)
from agentic_bench.metrics.verdict import SLO_KEYS, evaluate, parse_slos

__all__ = [
    "LATENCY_METRICS",
    "SLO_KEYS",
    "RecordWriter",
    "RunInfo",
    "describe",
    "evaluate",
    "llm_record",
    "parse_slos",
    "percentile",
    "read_records",
    "run_records_path",
    "summarize",
]
