"""#42.1: an exception of the harness inside a session replay is an ``internal`` error session
record (counted as an error and a missing turn), not a session recorded ok or no record."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agentic_bench.api import FakeTransport, SessionTicket
from agentic_bench.metrics.aggregate import RunInfo, summary_of
from agentic_bench.metrics.tally import RunTally
from agentic_bench.metrics.verdict import evaluate
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.replay.trace_replayer import TraceReplayer
from agentic_bench.trace.weka import WekaCorpus, weka_session

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"


def test_a_replay_that_raises_is_an_internal_error_record() -> None:
    tree = weka_session(next(iter(WekaCorpus(DATA / "corpus.jsonl"))))
    records: list[dict[str, Any]] = []
    # block prompts with no synthesis vocabulary: the replay cannot write a prompt
    replayer = TraceReplayer(FakeTransport(lambda body: "fine"), records.append,
                             ReplayOptions(model="m"), 0)
    outcome = asyncio.run(replayer.run(SessionTicket(0, tree, 0)))
    assert outcome.status == "error" and outcome.errors == 1
    (session,) = [r for r in records if r["type"] == "session"]
    assert session["status"] == "error" and session["error_type"] == "internal"
    assert "synthesis vocabulary" in session["error"]
    assert session["turns"] > session["turns_ok"]  # a missing turn: the verdict sees it
    tally = RunTally()
    for record in records:
        tally.add(record)
    info = RunInfo(benchmark="replay", complete=True, stop_reason="done", duration_s=1.0)
    summary = summary_of(tally, info)
    assert summary["counts"]["internal_errors"] == 1
    failed = {r["name"] for r in evaluate(summary, {}) if not r["ok"]}
    assert failed == {"missing_turns", "harness_errors"}
