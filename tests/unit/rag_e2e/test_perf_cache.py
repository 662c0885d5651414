"""#43 E2E-RAG item 1: the reference's cached-response performance mode (``--perf-cache``).

Transcriptions of mlcommons/inference b66003e1 ``e2e-rag/``: ``perf_test_cache.py`` 56-57 and
70-88 (the index), ``multi_shot_retrieval.py`` (msr) 321-395 (every call sent, the cached reply
returned), 408-455 (a call with a cached reply must succeed), ``llm_logger.py`` 101-106 (what
the reference's logger writes), ``reference_mlperf_perf.sh`` 38, 89-92 (the performance run
passes the cache). Before this change none of it existed: ``RagShared`` took no cache, the loop
set no hop, and a LoadGen performance run on live replies departed nowhere.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from time import perf_counter_ns
from typing import Any

import pytest
from rag_e2e_support import QUESTIONS, HashEmbedder, run_shared, task_args

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.rag_e2e import mlperf_config
from agentic_bench.tasks.rag_e2e.executor import RagShared
from agentic_bench.tasks.rag_e2e.mlperf_config import CACHED_ACCURACY, LIVE_PERFORMANCE
from agentic_bench.tasks.rag_e2e.perf_cache import (
    LOG_FILE,
    PerfCache,
    PerfCacheError,
    llm_logs,
    write_artifacts,
)
from agentic_bench.tasks.rag_e2e.rag_workload import _check, load_perf_cache
from agentic_bench.transport.result import ChatResult
from rag_pipeline import RagConfig, RagPipeline, current_stage

Q1 = QUESTIONS[0]
LIVE = {"decompose": json.dumps({"queries": ["Ed Wood nationality"], "feedback": "more"}),
        "grade": '{"relevance": [1]}', "sufficiency": '{"sufficient": false}',
        "generate": "live answer"}


class StageTransport:
    """Replies by the pipeline stage sending the call; records each call's stage."""

    def __init__(self, replies: dict[str, str], fail_on: str | None = None) -> None:
        self.replies, self.fail_on = replies, fail_on
        self.stages: list[str] = []

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        stage = str(current_stage.get())
        self.stages.append(stage)
        t = perf_counter_ns()
        await asyncio.sleep(0)
        if stage == self.fail_on:
            return ChatResult(t_sent_ns=t, t_end_ns=perf_counter_ns()).fail(
                "http_status", "HTTP 500", status="error")
        end = perf_counter_ns()
        return ChatResult(t_sent_ns=t, t_first_token_ns=t + 1000, t_end_ns=end,
                          token_times_ns=[t + 1000, end], output_tokens=2, input_tokens=50,
                          content=self.replies[stage])

    async def aclose(self) -> None:
        return None


def _shared(index: Any, cache: PerfCache | None = None) -> RagShared:
    pipeline = RagPipeline(index, HashEmbedder(), config=RagConfig(max_rounds=3))
    return RagShared(pipeline=pipeline, questions={Q1.id: Q1}, flow="mlperf",
                     source={"source": "test"}, perf_cache=cache)


def _sample(records: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in records if r["type"] == "sample")


def _log(*calls: tuple[Any, ...], query_id: Any = "q1") -> dict[str, Any]:
    return {"queries": [{"query_id": query_id, "llm_calls": [
        {"component": c, "hop_count": h, "output": {"response": r}} for c, h, r in calls]}]}


# perf_test_cache.py 56-57, 70-88: the index

def test_the_index_keeps_perf_test_caches_rules() -> None:
    data = {"queries": [
        {"llm_calls": [{"component": "c", "hop_count": 1, "output": {"response": "no id"}}]},
        {"query_id": 0, "llm_calls": [  # 71-73: a false query_id is skipped (int 0 too)
            {"component": "c", "hop_count": 1, "output": {"response": "zero"}}]},
        {"query_id": "0", "llm_calls": [  # ... but the string "0" is true
            {"component": "c", "hop_count": 1, "output": {"response": "string zero"}}]},
        {"query_id": 11, "llm_calls": [
            {"hop_count": 1, "output": {"response": "no component"}},  # 79-80
            {"component": "c", "output": {"response": "no hop"}},  # 79-80
            {"component": "c", "hop_count": 2, "output": {"response": ""}},  # 86: empty
            {"component": "c", "hop_count": 3},  # 83: no output
            {"component": "c", "hop_count": 1, "output": {"response": "first"}},
            {"component": "c", "hop_count": 1, "output": {"response": "later"}},  # 87-88
        ]},
        {"query_id": "11", "llm_calls": [  # 87: the key's id is str(query_id)
            {"component": "d", "hop_count": 4, "output": {"response": "same sample"}}]},
    ]}
    cache = PerfCache.from_log(data, "log.json")
    assert cache.replies == {("0", "c", 1): "string zero", ("11", "c", 1): "later",
                             ("11", "d", 4): "same sample"}
    assert cache.reply("11", "c", 1) == "later" and cache.reply("11", "c", 2) is None
    assert cache.stats() == {"file": "log.json", "replies": 3, "samples": 2,
                             "logger_only_calls": 0}


def test_a_file_without_queries_is_refused_by_name(tmp_path: Path) -> None:
    """perf_test_cache.py 56-57: KeyError naming the file; ours names what it expected."""
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"experiment_metadata": {}}), encoding="utf-8")
    with pytest.raises(PerfCacheError, match=r"x\.json: no 'queries' field \(expected"):
        PerfCache.load(path)
    with pytest.raises(ConfigError, match="no 'queries'"):
        load_perf_cache(path)


def test_the_reference_loggers_own_file_yields_no_reply(tmp_path: Path) -> None:
    """llm_logger.py 101-106 writes ``output.actual_output``/``cached_output``; the reader
    takes ``output.response`` (perf_test_cache.py 83-84): the reference's accuracy log indexes
    to nothing. We count such calls and refuse the file, saying why."""
    logged = {"query_id": "3", "llm_calls": [{
        "component": "check_sufficiency", "hop_count": 2,
        "output": {"actual_output": '{"sufficient": true}', "cached_output": None,
                   "finish_reason": "stop", "note": None}}]}
    cache = PerfCache.from_log({"queries": [logged]})
    assert cache.replies == {} and cache.logger_only_calls == 1
    path = tmp_path / "logs_result.json"
    path.write_text(json.dumps({"queries": [logged]}), encoding="utf-8")
    with pytest.raises(ConfigError, match="1 calls hold only 'actual_output'"):
        load_perf_cache(path)


# msr 321-395: every call sent and timed, the loop going on with the cached reply

def test_the_loop_follows_the_cached_reply_and_still_sends_every_call(tiny_index: Any) -> None:
    """The live server never finds the pages sufficient; the cache says sufficient at hop 2
    (check_sufficiency, msr 1347-1356) and holds that hop's answer (answer_generator, 1377-1384),
    so one round is run, as recorded, and each of its calls is still sent and timed."""
    live = StageTransport(LIVE)
    unrecorded = run_shared(_shared(tiny_index), live)
    assert live.stages[:4] == ["decompose", "grade", "sufficiency", "decompose"]
    assert _sample(unrecorded)["prediction"] == "live answer"

    cache = PerfCache.from_log(_log(("check_sufficiency", 2, '{"sufficient": true}'),
                                    ("answer_generator", 2, "cached answer"),
                                    ("answer_generator", 3, "another hop")))
    transport = StageTransport(LIVE)
    records = run_shared(_shared(tiny_index, cache), transport)
    assert transport.stages == ["decompose", "grade", "sufficiency", "generate"]
    llm = [r for r in records if r["type"] == "step" and r["kind"] == "llm"]
    assert [r["stage"] for r in llm] == transport.stages
    assert all(r["status"] == "ok" and "ttft_ms" in r for r in llm)
    sample = _sample(records)
    assert sample["prediction"] == "cached answer" and sample["rounds"] == 1
    assert sample["perf_cache"] == {"hits": 2, "misses": 2}  # decompose 1 and grade 2 missed
    assert [(c["component"], c["hop_count"]) for c in sample["reference_llm_calls"]] == [
        ("generate_search_queries", 1), ("evaluate_document_relevance", 2),
        ("check_sufficiency", 2), ("answer_generator", 2)]
    sufficiency = sample["reference_llm_calls"][2]["output"]
    assert sufficiency == {"response": '{"sufficient": true}',
                           "actual_output": '{"sufficient": false}',
                           "cached_output": '{"sufficient": true}'}


def test_a_cached_call_that_fails_fails_the_question(tiny_index: Any) -> None:
    """msr 408-455: with a cached reply the call must succeed, else the question stops (the
    stage functions re-raise, 690-697); without one the loop takes the stage's fallback."""
    cache = PerfCache.from_log(_log(("check_sufficiency", 2, '{"sufficient": true}')))
    failing = run_shared(_shared(tiny_index, cache), StageTransport(LIVE, "sufficiency"))
    sample = _sample(failing)
    assert not sample["answered"] and "sufficiency call failed" in sample["error"]
    other = PerfCache.from_log(_log(("answer_generator", 3, "x")))
    transport = StageTransport(LIVE, "sufficiency")
    going_on = run_shared(_shared(tiny_index, other), transport)
    assert _sample(going_on)["answered"] and transport.stages.count("sufficiency") == 2


def test_a_runs_log_feeds_the_next_run_as_the_reference_reads_it(tiny_index: Any,
                                                                 tmp_path: Path) -> None:
    """Our llm_logs.json, read by the reference's rules, replays the first run on a server
    whose every reply differs: the same calls in the same order, the same answer, no miss."""
    first = run_shared(_shared(tiny_index), StageTransport(
        {**LIVE, "sufficiency": '{"sufficient": true}', "generate": "Paris"}))
    written = write_artifacts(tmp_path, {}, first)
    assert written == [tmp_path / LOG_FILE]
    log = json.loads((tmp_path / LOG_FILE).read_text(encoding="utf-8"))
    assert log == llm_logs(first) and log["queries"][0]["query_id"] == "q1"
    cache = load_perf_cache(tmp_path / LOG_FILE)
    assert cache is not None and cache.stats()["replies"] == 4
    junk = StageTransport({"decompose": "zzz", "grade": "no", "sufficiency": "no",
                           "generate": "junk"})
    second = run_shared(_shared(tiny_index, cache), junk)
    calls = [[(c["component"], c["hop_count"]) for c in _sample(rs)["reference_llm_calls"]]
             for rs in (first, second)]
    assert calls[0] == calls[1] and len(junk.stages) == 4
    assert _sample(second)["prediction"] == _sample(first)["prediction"] == "Paris"
    assert _sample(second)["perf_cache"] == {"hits": 4, "misses": 0}


def test_other_flows_write_no_log(tiny_index: Any) -> None:
    pipeline = RagPipeline(tiny_index, HashEmbedder(), config=RagConfig(max_rounds=2))
    shared = RagShared(pipeline=pipeline, questions={Q1.id: Q1}, flow="single_shot")
    records = run_shared(shared, StageTransport(LIVE))
    assert "reference_llm_calls" not in _sample(records) and llm_logs(records) is None


# reference_mlperf_perf.sh 38, 89-92: the performance run passes the cache

OFFICIAL = ("--mlperf", "--frames", "frames_dataset.tsv", "--corpus", "doc_html",
            "--embedder", "/models/e5-base-v2", "--reranker", "late-interaction",
            "--reranker-model", "/models/colbertv2.0", "--model", "gpt-oss-120b",
            "--grade-endpoint", "http://g/v1", "--grade-model", "openai/gpt-oss-20b",
            "--judge-endpoint", "http://j/v1", "--judge-model",
            "meta-llama/Llama-3.1-8B-Instruct", "--reference-dir", "/src/inference")
CORPUS = {"pages": 2515, "passages": 107_484, "parser": "lxml"}


@pytest.mark.parametrize(("extra", "expected"), [
    ((), [LIVE_PERFORMANCE]),  # LoadGen performance (the preset's mode) on live replies
    (("--perf-cache", "llm_logs.json"), []),
    (("--loadgen-mode", "accuracy"), []),
    (("--loadgen-mode", "accuracy", "--perf-cache", "llm_logs.json"), [CACHED_ACCURACY]),
    (("--loadgen-mode", "TEST09"), []),  # run_compliance_test09.sh 76-77: either
    (("--loadgen-mode", "TEST09", "--perf-cache", "llm_logs.json"), []),
])
def test_whose_replies_the_run_goes_on_with_is_judged(monkeypatch: pytest.MonkeyPatch,
                                                      extra: tuple[str, ...],
                                                      expected: list[str]) -> None:
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    args = task_args(*OFFICIAL, *extra)
    assert args.loadgen == "mlperf"
    assert mlperf_config.departures(args, 824, CORPUS) == expected
    notes = mlperf_config.notes(args, CORPUS)
    assert any("the reference's --perf-test-mode" in n for n in notes) == ("--perf-cache" in extra)


def test_perf_cache_needs_the_reference_loop_and_no_other_replay() -> None:
    base = {name: None for name in ("questions", "retrieve_k", "rerank_k", "max_rounds",
                                    "max_subqueries", "grade_concurrency", "frames",
                                    "record_trace", "replay_responses", "grade_endpoint",
                                    "judge_endpoint")}
    args = argparse.Namespace(**base, distractors=0, reranker="identity", no_grade=False,
                              accuracy_metric="f1", mlperf=False, corpus=None,
                              flow="multi-hop", perf_cache=Path("llm_logs.json"))
    with pytest.raises(ConfigError, match="needs --flow mlperf"):
        _check(args)
    args.flow, args.replay_responses = "mlperf", Path("t.jsonl")
    with pytest.raises(ConfigError, match="give one"):
        _check(args)
    args.replay_responses = None
    _check(args)


def test_the_workload_reports_the_file_and_the_runs_hits(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``--perf-cache`` through ``task.workload``: the file's index in the workload info, the
    run's hits and misses in the accuracy block (question ids are record positions here)."""
    from agentic_bench.contracts import ExecContext
    from agentic_bench.load.runner import LoadRunner
    from agentic_bench.options.load import LoadSpec
    from agentic_bench.options.replay import ReplayOptions
    from agentic_bench.tasks.rag_e2e import rag_workload
    from agentic_bench.tasks.rag_e2e.task import task

    monkeypatch.setattr(rag_workload, "make_embedder", lambda name, *_, **__: HashEmbedder())
    frames = tmp_path / "frames.jsonl"
    frames.write_text(json.dumps({"Prompt": Q1.question, "Answer": "yes", "documents": [
        {"title": d.title, "text": d.text} for d in Q1.paragraphs]}) + "\n", encoding="utf-8")
    log = tmp_path / LOG_FILE
    log.write_text(json.dumps(_log(("check_sufficiency", 2, '{"sufficient": true}'),
                                   ("answer_generator", 2, "yes"), query_id="0")),
                   encoding="utf-8")
    args = task_args("--frames", str(frames), "--cache-dir", str(tmp_path / "cache"), "--kind",
                     "flat", "--quiet", "--flow", "mlperf", "--max-rounds", "3",
                     "--perf-cache", str(log), "--accuracy-metric", "em")
    workload = task.workload(args)  # type: ignore[arg-type]  # the parsed options
    assert workload.info["perf_cache"] == {"file": str(log), "replies": 2, "samples": 1,
                                           "logger_only_calls": 0}
    records: list[dict[str, Any]] = []
    transport = StageTransport(LIVE)
    ctx = ExecContext(transport, records.append, perf_counter_ns(), ReplayOptions(model="m"))
    asyncio.run(LoadRunner(LoadSpec(sessions=1), workload.source,
                           workload.make_executor(ctx)).run())
    assert transport.stages == ["decompose", "grade", "sufficiency", "generate"]
    assert workload.score is not None
    block = workload.score(records)
    assert block is not None and block["exact_match"] == 1.0
    assert block["perf_cache"] == {**workload.info["perf_cache"], "hits": 2, "misses": 2}
