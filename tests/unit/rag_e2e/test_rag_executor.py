"""The per-question executor over a tiny index with a scripted chat transport."""

from __future__ import annotations

import asyncio
from pathlib import Path
from time import perf_counter_ns
from typing import Any

import pytest
from rag_e2e_support import QUESTIONS, HashEmbedder, ScriptedTransport, run_shared, sessions_for

from agentic_bench.contracts import ExecContext, SessionSource
from agentic_bench.load.runner import LoadRunner
from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.replay.session import SessionReplayer
from agentic_bench.tasks.rag_e2e.accuracy import rag_accuracy
from agentic_bench.tasks.rag_e2e.executor import RagShared
from agentic_bench.tasks.rag_e2e.recorded import ResponseCache, TraceWriter
from agentic_bench.trace.jsonl import TraceFile
from rag_pipeline import RagConfig, RagPipeline

ANSWERS = {"capital of France": "Paris"}


def shared_for(index: Any, flow: str = "multi_hop", **kw: Any) -> RagShared:
    pipeline = RagPipeline(index, HashEmbedder(), config=RagConfig(max_rounds=2))
    return RagShared(pipeline=pipeline, questions={q.id: q for q in QUESTIONS}, flow=flow,
                     source={"source": "test"}, **kw)


def steps(records: list[dict[str, Any]], session: str | None = None) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == "step"
            and (session is None or r["source_session"] == session)]


def test_multi_hop_records_every_stage(tiny_index: Any) -> None:
    records = run_shared(shared_for(tiny_index), ScriptedTransport(answers=ANSWERS))
    for qid in ("q1", "q2"):
        mine = steps(records, qid)
        llm = [r for r in mine if r["kind"] == "llm"]
        other = [r for r in mine if r["kind"] != "llm"]
        assert [r["kind"] for r in other] == ["embed", "retrieve", "rerank"]
        assert all(r["stage"] == r["kind"] and r["status"] == "ok" for r in other)
        assert all(r["executed"] == "real" and r["round"] == 1 for r in other)
        by_stage = [r["stage"] for r in llm]
        assert by_stage[0] == "decompose" and by_stage[-2:] == ["sufficiency", "generate"]
        grades = by_stage.count("grade")
        assert 3 <= grades <= 6 and len(llm) == grades + 3
        assert all("ttft_ms" in r and "tpot_ms" in r for r in llm)
        assert len({r["step"] for r in mine}) == len(mine)  # unique step numbers
    samples = {r["question_id"]: r for r in records if r["type"] == "sample"}
    assert samples["q1"]["em"] == 1.0 and samples["q2"]["prediction"] == "Paris"
    assert samples["q1"]["answered"] and samples["q1"]["rounds"] == 1
    assert samples["q1"]["retrieval"]["10"]["recall"] == 1.0
    assert samples["q1"]["llm_calls"] == len([r for r in steps(records, "q1")
                                              if r["kind"] == "llm"])
    sessions = [r for r in records if r["type"] == "session"]
    assert [s["status"] for s in sessions] == ["ok", "ok"] and sessions[0]["em"] == 1.0


def test_stage_breakdown_lands_in_summary(tiny_index: Any) -> None:
    records = run_shared(shared_for(tiny_index), ScriptedTransport(answers=ANSWERS))
    summary = summarize(records, RunInfo("rag-e2e", True, 1.0, accuracy=rag_accuracy(records)))
    assert set(summary["stages_ms"]) == {"embed", "retrieve", "rerank", "decompose", "grade",
                                         "sufficiency", "generate"}
    assert summary["stages_ms"]["generate"]["count"] == 2
    acc = summary["accuracy"]
    assert acc["exact_match"] == 1.0 and acc["questions"] == 2
    assert acc["llm_calls_per_question"]["mean"] >= 6


def test_single_shot_makes_one_llm_call(tiny_index: Any) -> None:
    records = run_shared(shared_for(tiny_index, flow="single_shot"),
                         ScriptedTransport(answers=ANSWERS))
    llm = [r for r in steps(records) if r["kind"] == "llm"]
    assert [r["stage"] for r in llm] == ["generate", "generate"]
    assert [r["kind"] for r in steps(records, "q2")] == ["embed", "retrieve", "rerank", "llm"]


def test_more_rounds_when_not_sufficient(tiny_index: Any) -> None:
    transport = ScriptedTransport({"sufficiency": "no", "next": "Ed Wood birthplace"})
    records = run_shared(shared_for(tiny_index), transport)
    sample = next(r for r in records if r["type"] == "sample" and r["question_id"] == "q1")
    assert sample["rounds"] == 2
    kinds = [r.get("stage") for r in steps(records, "q1")]
    assert kinds.count("embed") == 2 and kinds.count("retrieve") == 2


def test_failed_call_leaves_question_unanswered(tiny_index: Any) -> None:
    records = run_shared(shared_for(tiny_index), ScriptedTransport(fail_on="sufficiency"))
    samples = [r for r in records if r["type"] == "sample"]
    assert all(not s["answered"] and s["em"] == 0.0 and "sufficiency" in s["error"]
               for s in samples)
    assert all(r["status"] == "error" for r in records if r["type"] == "session")
    acc = rag_accuracy(records)
    assert acc is not None and acc["unanswered"] == 2 and acc["f1"] == 0.0


def test_concurrent_questions(tiny_index: Any) -> None:
    records = run_shared(shared_for(tiny_index), ScriptedTransport(answers=ANSWERS),
                         scenario="offline", concurrency=2)
    assert len([r for r in records if r["type"] == "sample"]) == 2
    assert all(r["status"] == "ok" for r in records if r["type"] == "session")


def test_recorded_trace_replays_same_calls(tiny_index: Any, tmp_path: Path) -> None:
    path = tmp_path / "rag.trace.jsonl"
    shared = shared_for(tiny_index, trace=TraceWriter(path))
    records = run_shared(shared, ScriptedTransport(answers=ANSWERS))
    live_calls = len([r for r in steps(records) if r["kind"] == "llm"])
    trace = TraceFile(path)  # validates
    sessions = list(trace)
    assert len(sessions) == 2
    first = sessions[0].turns[0].steps
    assert [s.kind for s in first[:1]] == ["llm"]  # decompose comes first
    assert {"embed", "retrieve", "rerank"} <= {s.kind for s in first}
    retrieve = next(s for s in first if s.kind == "retrieve")
    assert retrieve.documents and retrieve.documents[0].title
    assert sessions[0].metadata["llm_stages"][0] == "decompose"
    assert sessions[0].references.answer in ("yes", "Paris")

    replayed: list[dict[str, Any]] = []
    transport = ScriptedTransport()
    ctx = ExecContext(transport, replayed.append, perf_counter_ns(), ReplayOptions(model="m"))
    replayer = SessionReplayer(ctx.transport, ctx.sink, ctx.options, ctx.t0_ns)
    runner = LoadRunner(LoadSpec(sessions=2), SessionSource(2, sessions.__getitem__),
                        replayer.run)
    asyncio.run(runner.run())
    assert len([r for r in replayed if r.get("kind") == "llm"]) == live_calls
    recorded_msgs = [s.messages for t in sessions for s in t.turns[0].steps if s.kind == "llm"]
    assert [b["messages"] for b in transport.bodies] == recorded_msgs


def test_cached_responses_keep_control_flow(tiny_index: Any, tmp_path: Path) -> None:
    path = tmp_path / "rag.trace.jsonl"
    first = run_shared(shared_for(tiny_index, trace=TraceWriter(path)),
                       ScriptedTransport(answers=ANSWERS))
    cache = ResponseCache.load(path)
    junk = ScriptedTransport({"decompose": "zzz", "grade": "no", "sufficiency": "no",
                              "answer": "junk"})
    second = run_shared(shared_for(tiny_index, responses=cache), junk)
    stages = [[r.get("stage") for r in steps(rs)] for rs in (first, second)]
    assert stages[0] == stages[1]
    samples = [{r["question_id"]: r for r in rs if r["type"] == "sample"} for rs in (first, second)]
    for qid in ("q1", "q2"):
        assert samples[0][qid]["prediction"] == samples[1][qid]["prediction"]
        assert samples[1][qid]["response_cache"]["misses"] == 0
    acc = rag_accuracy(second)
    assert acc is not None and acc["response_cache"]["hits"] == len(junk.bodies)


@pytest.mark.parametrize("flow", ["multi_hop", "single_shot"])
def test_sessions_cycle_without_shared_state(tiny_index: Any, flow: str) -> None:
    shared = shared_for(tiny_index, flow=flow)
    assert [s.session_id for s in sessions_for(shared)] == ["q1", "q2"]
    a = run_shared(shared, ScriptedTransport(answers=ANSWERS))
    b = run_shared(shared, ScriptedTransport(answers=ANSWERS))
    assert [r.get("stage") for r in steps(a)] == [r.get("stage") for r in steps(b)]
