"""Records, exact percentiles, summary aggregation, constraints and verdict."""

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
