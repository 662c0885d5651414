"""``records.jsonl`` on disk: written and flushed as measured, read back one at a time.

A record is a plain ``dict`` (built by :mod:`.llm` and :mod:`.types`): :class:`RecordWriter`
appends them, :class:`RecordStream` / :func:`iter_records` / :func:`read_records` read a file
(or its gzip-compressed ``.gz`` copy) back, skipping and counting a torn line.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
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
    """Appends records to ``records.jsonl``, each flushed as it is measured.

    Inside a running event loop, the records of one turn of the loop go out in one write at
    its end (``call_soon``: before the loop waits for anything again), not one system call
    each — at ten thousand requests a second, three lines a request. Outside a loop each
    record is written and flushed at once. :meth:`flush` and :meth:`close` write what is
    pending; ``fsync`` syncs each write to the disk as well. One thread writes (a run's
    records all come from its event loop's thread).

    A write that fails (a full disk, a quota, a file-size limit) is never retried and never
    raised into the run: ``error`` keeps the first failure, ``on_error`` is called once with
    it (the run stops issuing), and every record from then on is counted in ``lost`` instead
    of piling up in memory. What was written before stays a valid file (a torn last line is
    skipped by the readers)."""

    path: Path
    _fh: IO[bytes] | None = None
    fsync: bool = False
    _pending: list[bytes] = field(default_factory=list)
    _flush_on: asyncio.AbstractEventLoop | None = None  # where a flush is due
    on_error: Callable[[OSError], None] | None = None
    error: OSError | None = None
    lost: int = 0  # records not written since the first failed write

    def open(self) -> RecordWriter:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "ab")
        return self

    def write(self, record: dict[str, Any]) -> None:
        assert self._fh is not None, "writer not opened"
        if self.error is not None:
            self.lost += 1
            return
        self._pending.append(encode_record(record))
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop running: written now
            self.flush()
            return
        if self._flush_on is not loop:  # (a loop that stopped before flushing is forgotten)
            loop.call_soon(self.flush)
            self._flush_on = loop

    def flush(self) -> None:
        """Write and flush every pending record (a no-op when none is)."""
        self._flush_on = None
        if not self._pending or self._fh is None:
            return
        pending = self._pending
        try:
            self._fh.write(pending[0] if len(pending) == 1 else b"".join(pending))
            self._fh.flush()
            if self.fsync:
                os.fsync(self._fh.fileno())
        except OSError as exc:
            self._failed(exc, len(pending))
        pending.clear()

    def _failed(self, exc: OSError, records: int) -> None:
        self.lost += records
        if self.error is None:
            self.error = exc
            if self.on_error is not None:
                self.on_error(exc)

    def close(self) -> None:
        if self._fh is not None:
            self.flush()
            try:
                self._fh.close()
            except OSError as exc:  # the buffer's last bytes did not fit either
                self._failed(exc, 0)
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
