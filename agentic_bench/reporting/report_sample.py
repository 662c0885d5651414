"""The records a run's report.html is drawn from, read back from ``records.jsonl`` line by line.

A run no longer holds its records (metrics/tally.py), so its reporters read them back from the
file once the summary is written. The report's per-request charts need every point of what
they draw, so a run of more than :data:`REPORT_MAX_REQUESTS` requests draws them from a
sample of whole sessions: every session whose id falls in 1 of ``k`` buckets (a CRC-32 of the
id, so the same sessions every time), with every record that belongs to no session. The
summary's figures and tables are the whole run's (summary.json); the report says which part
its charts show (``Summary.report_sample``).
"""

from __future__ import annotations

import math
import zlib
from pathlib import Path
from typing import Any

from agentic_bench.records.stream import iter_records

REPORT_MAX_REQUESTS = 50_000  # per-request charts of more than this draw from a sample


def sessions_every(requests: int, limit: int = REPORT_MAX_REQUESTS) -> int:
    """1 in how many sessions the report's charts keep (1: all of them)."""
    return max(1, math.ceil(requests / limit))


def in_sample(record: dict[str, Any], every: int, session: str | None = None) -> bool:
    """Whether the record is drawn: 1 session in ``every`` (and ``session``, the one whose
    waterfall was asked for), every record of no session."""
    session_id = record.get("session_id")
    if every == 1 or session_id is None or session_id == session:
        return True
    return zlib.crc32(str(session_id).encode()) % every == 0


def read_report_records(path: Path, every: int, session: str | None = None
                        ) -> tuple[list[dict[str, Any]], int]:
    """The records drawn (:func:`in_sample`), streamed from ``path``, and how many it holds."""
    drawn: list[dict[str, Any]] = []
    seen = 0
    for record in iter_records(path):
        seen += 1
        if in_sample(record, every, session):
            drawn.append(record)
    return drawn, seen


def sample_note(every: int, requests: int) -> dict[str, Any]:
    """``Summary.report_sample``: what part of the run the report's charts show."""
    return {"sessions_every": every, "requests": requests,
            "note": f"the report's per-request charts show 1 session in {every} "
                    f"(a fixed sample by session id) of the run's {requests:,} requests; the "
                    "tables and figures are the whole run's"}


__all__ = ["REPORT_MAX_REQUESTS", "in_sample", "read_report_records", "sample_note",
           "sessions_every"]
