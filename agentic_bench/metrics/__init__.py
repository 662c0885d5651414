"""Metrics: records, exact percentiles, summary aggregation, constraints and verdict.

Records: :func:`llm_record` (the timing fields of one chat call), :class:`RecordWriter`
(``records.jsonl``, flushed per line), :func:`read_records` and :func:`run_records_path`.
Statistics: :func:`percentile` and :func:`describe` (count, mean, percentiles).
Summary: :func:`summarize` turns records and a :class:`RunInfo` into ``summary.json``'s
figures over the declared metrics (:mod:`~agentic_bench.metrics.declarations`). Verdict:
:func:`parse_slos` reads ``--slo`` (keys: :func:`slo_keys`, the declared SLOs and the lower
limits) and :func:`evaluate` checks them (VALID when every row holds).
"""

from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.percentiles import describe, percentile
from agentic_bench.metrics.records import (
    RecordWriter,
    llm_record,
    read_records,
    run_records_path,
)
from agentic_bench.metrics.verdict import evaluate, parse_slos, slo_keys

__all__ = [
    "RecordWriter",
    "RunInfo",
    "describe",
    "evaluate",
    "llm_record",
    "parse_slos",
    "percentile",
    "read_records",
    "run_records_path",
    "slo_keys",
    "summarize",
]
