"""Run records: one JSON line per step (plus turn, session and run lines), flushed as written.

A record is a plain ``dict``; :func:`step_record` builds the one for an LLM call from a
:class:`ChatResult`. Times in records are nanoseconds relative to the run's start (``t0``)
plus derived milliseconds, so a file is readable without the start instant.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from agentic_bench.transport.result import ChatResult
from agentic_bench.units import NS_PER_MS


def _ms(ns: int | None) -> float | None:
    return None if ns is None else ns / NS_PER_MS


def llm_record(result: ChatResult, t0_ns: int, scheduled_ns: int) -> dict[str, Any]:
    """Timing and outcome fields of one chat call (the caller adds ids and scoring)."""
    rec: dict[str, Any] = {
        "kind": "llm",
        "status": result.status,
        "t_scheduled_ns": scheduled_ns - t0_ns,
        "t_sent_ns": result.t_sent_ns - t0_ns,
        "t_end_ns": result.t_end_ns - t0_ns,
        "schedule_lag_ms": (result.t_sent_ns - scheduled_ns) / NS_PER_MS,
        "request_ms": (result.t_end_ns - result.t_sent_ns) / NS_PER_MS,
        "input_tokens": result.input_tokens,
        "output_tokens": result.output_tokens,
        "token_source": "usage" if result.output_tokens is not None else "chunks",
        **({"cached_tokens": result.cached_tokens} if result.cached_tokens is not None else {}),
        "chunks": result.chunks,
    }
    if result.t_first_token_ns is not None:
        rec["t_first_token_ns"] = result.t_first_token_ns - t0_ns
        rec["ttft_ms"] = (result.t_first_token_ns - result.t_sent_ns) / NS_PER_MS
    times = result.token_times_ns
    rec["itl_ms"] = [round((b - a) / NS_PER_MS, 4) for a, b in itertools.pairwise(times)]
    if result.output_tokens is None:
        rec["output_tokens"] = len(times)  # one content-carrying chunk ≈ one token
    out = rec["output_tokens"]
    if result.t_first_token_ns is not None and out and out > 1:
        rec["tpot_ms"] = (result.t_end_ns - result.t_first_token_ns) / NS_PER_MS / (out - 1)
    if result.http_status is not None:
        rec["http_status"] = result.http_status
    if result.restart_wait_ms is not None:  # not latency: the request was sent after the wait
        rec["restart_wait_ms"] = result.restart_wait_ms
    if result.status != "ok":
        rec["error_type"] = result.error_type
        rec["error"] = result.error
    if result.finish_reason:
        rec["finish_reason"] = result.finish_reason
    return rec


def encode_record(record: dict[str, Any]) -> bytes:
    """One compact UTF-8 JSON line (orjson; the stdlib for what orjson refuses)."""
    try:
        return orjson.dumps(record, default=str, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # e.g. integers over 64 bits, non-string keys
        return (json.dumps(record, separators=(",", ":"), default=str) + "\n").encode()


@dataclass
class RecordWriter:
    """Appends records to ``records.jsonl``; every line is flushed as it is written."""

    path: Path
    _fh: IO[bytes] | None = None
    fsync: bool = False

    def open(self) -> RecordWriter:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "ab")
        return self

    def write(self, record: dict[str, Any]) -> None:
        assert self._fh is not None, "writer not opened"
        self._fh.write(encode_record(record))
        self._fh.flush()
        if self.fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


@dataclass
class ReadResult:
    records: list[dict[str, Any]]
    truncated_lines: int


@dataclass
class RecordStream:
    """``records.jsonl`` (or a gzip-compressed ``.gz`` copy) read line by line, one record at
    a time, never the whole file at once; a torn line (power loss) is skipped and counted in
    ``truncated_lines`` (by the last pass over the file)."""

    path: Path
    truncated_lines: int = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        self.truncated_lines = 0
        for line in _lines(Path(self.path)):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                self.truncated_lines += 1
                continue
            yield record


def iter_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of ``path``, one at a time (torn lines skipped)."""
    return iter(RecordStream(Path(path)))


def read_records(path: str | Path) -> ReadResult:
    """Read ``records.jsonl`` (or a gzip-compressed ``.gz`` copy) into a list; a torn last line
    (power loss) is skipped and counted."""
    stream = RecordStream(Path(path))
    records = list(stream)
    return ReadResult(records, stream.truncated_lines)


def run_records_path(run_dir: str | Path) -> Path:
    """A run directory's records: ``records.jsonl``, or ``records.jsonl.gz`` when only the
    archived (gzip-compressed) copy is there."""
    plain = Path(run_dir) / "records.jsonl"
    archived = plain.with_name("records.jsonl.gz")
    return archived if not plain.exists() and archived.exists() else plain


def _lines(path: Path) -> Iterator[str]:
    if path.suffix == ".gz":
        import gzip

        opened: Any = gzip.open(path, "rt", encoding="utf-8", errors="replace")
    else:
        opened = open(path, encoding="utf-8", errors="replace")
    with opened as fh:
        for line in fh:
            if line.strip():
                yield line
