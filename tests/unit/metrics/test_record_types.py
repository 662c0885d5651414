"""One record vocabulary (#23 item 1): the trace replayer and the task recorder build turn and
session records with the same functions (the recorder's turns now carry the tool-call scoring
fields too), every record they write has its declared fields, the run record carries the
version, a newer version is refused on read, and a committed run folder (no version) loads."""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.records.types import (
    FIELDS,
    RECORD_VERSION,
    check_version,
    missing_fields,
)

ROOT = Path(__file__).parents[3]


def _recorder_records() -> list[dict[str, Any]]:
    from agentic_bench.api import FakeTransport, make_session, run_offline, simple_workload

    async def run_session(rec: Any, session: Any) -> dict[str, Any]:
        for turn, _ in enumerate(session.turns):
            rec.start_turn()
            await rec.llm({"messages": [{"role": "user", "content": "hi"}]}, turn, 0)
            rec.end_turn(turn)
        return {"answer": "ok"}

    workload = simple_workload("t", [make_session("a", ["one", "two"])], run_session,
                               lambda s, o: {"correct": True})
    records, _ = asyncio.run(run_offline(workload, FakeTransport(lambda body: "fine")))
    return records


def _replay_records() -> list[dict[str, Any]]:
    from agentic_bench.api import FakeTransport, SessionTicket, make_session
    from agentic_bench.options.replay import ReplayOptions
    from agentic_bench.replay.session import SessionReplayer

    session = make_session("b", ["one", "two"])
    records: list[dict[str, Any]] = []
    replayer = SessionReplayer(FakeTransport(lambda body: "fine"), records.append,
                               ReplayOptions(model="m"), 0)
    asyncio.run(replayer.run(SessionTicket(0, session, 0)))
    return records


@pytest.mark.parametrize("make", [_recorder_records, _replay_records],
                         ids=["task recorder", "trace replayer"])
def test_both_writers_write_the_declared_fields(make: Any) -> None:
    records = make()
    kinds = {r["type"] for r in records}
    assert {"turn", "session"} <= kinds
    assert {r["type"]: missing_fields(r) for r in records if missing_fields(r)} == {}
    turns = [r for r in records if r["type"] == "turn"]
    assert all("tool_calls_scored" in t and "tool_calls_matched" in t for t in turns)


def test_versions() -> None:
    assert check_version([{"type": "step"}]) == 1  # no run record: an old or partial folder
    assert check_version([{"type": "run", "record_version": RECORD_VERSION}]) == RECORD_VERSION
    with pytest.raises(ValueError, match="newer agentic-bench"):
        check_version([{"type": "run", "record_version": RECORD_VERSION + 1}])
    assert set(FIELDS) >= {"run", "step", "turn", "session", "sample", "segment"}


def test_a_committed_run_folder_still_loads_and_a_newer_one_is_refused(tmp_path: Path) -> None:
    from agentic_bench.errors import UsageError
    from agentic_bench.reporting.regenerate import load_run

    run = tmp_path / "old"  # written before records had a version
    shutil.copytree(ROOT / "benchmarks" / "results" / "agentic-edge" / "mlperf-full", run)
    data = load_run(run, regenerate=True)
    assert data.summary["counts"]["sessions"] > 0
    newer = tmp_path / "newer"
    newer.mkdir()
    with gzip.open(run / "records.jsonl.gz", "rt") as fh:
        lines = [json.loads(line) for line in fh]
    assert lines[0]["type"] == "run"
    lines[0] = {**lines[0], "record_version": RECORD_VERSION + 1}
    (newer / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(UsageError, match="newer agentic-bench"):
        load_run(newer, regenerate=True)
