"""#33: the shard merge reads each worker's records file as a stream — bounded batches, however
far behind it is — and loses no line, torn ones included once they are complete."""

from __future__ import annotations

import json
from pathlib import Path

from agentic_bench.load.process_pool import RecordTail


def test_drain_reads_to_the_end_in_bounded_batches(tmp_path: Path) -> None:
    path = tmp_path / "records.shard-0.jsonl"
    lines = [json.dumps({"type": "step", "i": i, "pad": "x" * 50}) + "\n" for i in range(500)]
    path.write_text("".join(lines))
    tail = RecordTail(path, process=3)
    batches = list(tail.drain(limit=4096))
    assert len(batches) > 5 and all(len(b) <= 4096 // 60 + 1 for b in batches)
    got = [r for b in batches for r in b]
    assert [r["i"] for r in got] == list(range(500)) and {r["process"] for r in got} == {3}


def test_a_torn_line_waits_for_its_end(tmp_path: Path) -> None:
    path = tmp_path / "records.shard-1.jsonl"
    path.write_text('{"i": 0}\n{"i": ')
    tail = RecordTail(path, process=1)
    assert [r["i"] for b in tail.drain() for r in b] == [0]
    with path.open("a") as fh:
        fh.write('1}\n{"i": 2}\n')
    assert [r["i"] for b in tail.drain() for r in b] == [1, 2]
    assert list(tail.drain()) == []
