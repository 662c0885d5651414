"""Records: what each line of ``records.jsonl`` carries, how it is built, written and read.

Built: :func:`llm_record` (one LLM call: its instants, outcome and one field per step metric,
each derived from the call's :class:`Timestamps` by the metric's declaration), and
:func:`turn_record` / :func:`session_record` (:mod:`.types`, shared by the replayer and the
task recorder). Declared: :data:`FIELDS` (each record type's required fields),
:data:`RECORD_VERSION`, :func:`missing_fields` and :func:`check_version`. Written and read
(:mod:`.stream`): :class:`RecordWriter` (flushed per line), :class:`RecordStream`,
:func:`iter_records`, :func:`read_records` and :func:`run_records_path`.

Low in the house: it imports only the transport's :class:`ChatResult`; the metrics above it
fold records into the summary.
"""

from agentic_bench.records.llm import Timestamps, llm_record
from agentic_bench.records.stream import (
    RecordStream,
    RecordWriter,
    iter_records,
    read_records,
    run_records_path,
)
from agentic_bench.records.types import (
    FIELDS,
    RECORD_VERSION,
    check_version,
    missing_fields,
    session_record,
    turn_record,
)

__all__ = [
    "FIELDS",
    "RECORD_VERSION",
    "RecordStream",
    "RecordWriter",
    "Timestamps",
    "check_version",
    "iter_records",
    "llm_record",
    "missing_fields",
    "read_records",
    "run_records_path",
    "session_record",
    "turn_record",
]
