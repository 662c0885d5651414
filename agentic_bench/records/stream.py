"""``records.jsonl`` on disk: written one flushed line per record, read back one at a time.

A record is a plain ``dict`` (built by :mod:`.llm` and :mod:`.types`): :class:`RecordWriter`
appends them, :class:`RecordStream` / :func:`iter_records` / :func:`read_records` read a file
(or its gzip-compressed ``.gz`` copy) back, skipping and counting a torn line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson


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
    """A whole file's records and how many torn lines were skipped."""

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


__all__ = ["ReadResult", "RecordStream", "RecordWriter", "encode_record", "iter_records",
           "read_records", "run_records_path"]
