"""records.jsonl's writer: one write per turn of the event loop, nothing left pending."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentic_bench.records.stream import RecordWriter, iter_records


class CountingFile:
    """Wraps the writer's file: counts the writes that reach it."""

    def __init__(self, fh: object) -> None:
        self.fh, self.writes = fh, 0

    def write(self, data: bytes) -> int:
        self.writes += 1
        return self.fh.write(data)  # type: ignore[attr-defined, no-any-return]

    def __getattr__(self, name: str) -> object:
        return getattr(self.fh, name)


def test_records_of_one_loop_turn_go_out_in_one_write_before_the_next_turn(
        tmp_path: Path) -> None:
    writer = RecordWriter(tmp_path / "records.jsonl").open()
    counting = CountingFile(writer._fh)
    writer._fh = counting  # type: ignore[assignment]

    async def go() -> tuple[int, int]:
        for i in range(3):
            writer.write({"i": i})
        pending = len(list(iter_records(writer.path)))
        await asyncio.sleep(0)  # one turn of the loop
        return pending, len(list(iter_records(writer.path)))

    pending, after = asyncio.run(go())
    assert (pending, after, counting.writes) == (0, 3, 1)
    writer.close()


def test_outside_a_loop_each_record_is_written_at_once(tmp_path: Path) -> None:
    writer = RecordWriter(tmp_path / "records.jsonl").open()
    writer.write({"i": 0})
    assert [r["i"] for r in iter_records(writer.path)] == [0]
    writer.close()


def test_close_writes_what_a_stopped_loop_left_pending(tmp_path: Path) -> None:
    """A run interrupted mid-turn: its last records are on disk once the writer closes, and
    a later loop schedules its own flush (the stopped one's is forgotten)."""
    writer = RecordWriter(tmp_path / "records.jsonl").open()
    loop = asyncio.new_event_loop()
    loop.run_until_complete(asyncio.sleep(0))

    async def write_and_stop() -> None:
        writer.write({"i": 0})
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        loop.run_until_complete(write_and_stop())
    loop.close()

    async def later() -> None:
        writer.write({"i": 1})
        await asyncio.sleep(0)

    asyncio.run(later())
    assert [r["i"] for r in iter_records(writer.path)] == [0, 1]
    writer.write({"i": 2})
    writer.close()
    assert [r["i"] for r in iter_records(writer.path)] == [0, 1, 2]
