"""rag-e2e --mlperf: the preset (explicit options win), the departures in words, the gate row,
and the request parameters of mlcommons/inference b66003e1 e2e-rag/multi_shot_retrieval.py
273-309 (temperature 1.0, top_p 1.0, top_k -1, reasoning_effort medium; max_tokens 4096 for
grading at 481, 10240 for the others at 602, 726 and 814)."""

from __future__ import annotations

from typing import Any

import pytest
from rag_e2e_support import task_args

from agentic_bench.tasks.rag_e2e import mlperf_config
from agentic_bench.tasks.rag_e2e.mlperf_config import (
    configuration_gate,
    departures,
    mlperf_block,
)

OFFICIAL = ("--mlperf", "--frames", "frames_dataset.tsv", "--corpus", "doc_html",
            "--embedder", "/models/e5-base-v2", "--reranker", "late-interaction",
            "--reranker-model", "/models/colbertv2.0",
            "--model", "gpt-oss-120b", "--grade-endpoint", "http://g/v1",
            "--grade-model", "openai/gpt-oss-20b", "--judge-endpoint", "http://j/v1",
            "--judge-model", "meta-llama/Llama-3.1-8B-Instruct",
            "--perf-cache", "llm_logs.json")  # a LoadGen performance run (#43 E2E-RAG 1)
CORPUS = {"pages": 2515, "passages": 107_484, "parser": "lxml"}


def test_without_mlperf_nothing_is_preset() -> None:
    args = task_args()
    assert args.sampling == "ours" and args.accuracy_metric == "f1"
    assert args.scenario == "single-stream" and args.loadgen is None


def test_the_preset_and_explicit_options_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    args = task_args("--mlperf")
    assert (args.sampling, args.accuracy_metric, args.max_rounds, args.max_subqueries,
            args.retrieve_k, args.kind) == ("mlperf", "judge", 5, 3, 10, "hnsw")
    assert (args.scenario, args.concurrency, args.loadgen) == ("offline", 10, "mlperf")
    # an option given on the command line wins, before or after --mlperf
    mixed = task_args("--max-rounds", "2", "--mlperf", "--scenario", "single-stream")
    assert mixed.max_rounds == 2 and mixed.scenario == "single-stream"
    gone = departures(mixed, 824, CORPUS)
    assert "--max-rounds 2 (MLPerf: 5)" in gone
    assert "scenario single-stream (MLPerf: Offline)" in gone


def test_without_loadgen_the_scheduler_is_a_departure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: False)
    args = task_args("--mlperf")
    assert args.loadgen is None
    assert any("agentic-bench's scheduler" in d and "pip install" in d
               for d in departures(args, 824, CORPUS))


KNOWN = [mlperf_config.PROMPTS]  # named until --reference-dir reads the reference's (#31)


def test_the_official_configuration_departs_only_in_prompt_wording(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the reference's own loop (--flow mlperf, preset) and its failed-call rules
    (--retries 4 --retry-on mlperf --request-timeout 120, preset), the official command's only
    departure is our prompt wording; while it remains no run reads "MLPerf v6.1 E2E-RAG" and
    the configuration gate fails."""
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    args = task_args(*OFFICIAL)
    assert (args.flow, args.retries, args.retry_on, args.request_timeout) == \
        ("mlperf", 4, "mlperf", 120.0)
    block = mlperf_block(args, 824, CORPUS)
    assert block["departures"] == KNOWN and block["configuration"] == "not MLPerf v6.1 E2E-RAG"
    assert set(mlperf_config.LOOP_NOTES) <= set(block["notes"])  # named in the run, by design
    assert block["result_unit"] == "Tasks/s" and block["requested"] is True
    assert configuration_gate(block) == {
        "name": "mlperf_configuration", "value": len(KNOWN), "limit": 0, "op": "==",
        "ok": False, "rule": configuration_gate(block)["rule"]}
    for flow in ("single-shot", "multi-hop"):
        gone = departures(task_args(*OFFICIAL, "--flow", flow), 824, CORPUS)
        assert [d for d in gone if d not in KNOWN] == [
            f"flow {flow}: agentic-bench's own graph, a failed call abandoning its question "
            "(MLPerf: the reference's loop, multi_shot_retrieval.py 1181-1612; --flow mlperf)"]


def test_with_the_reference_prompts_the_official_command_departs_nowhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """--reference-dir reads multi_shot_retrieval.py's and accuracy_eval.py's own prompt texts
    (test_reference_prompts.py): the last departure goes and the gate passes."""
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    block = mlperf_block(task_args(*OFFICIAL, "--reference-dir", "/src/inference"), 824, CORPUS)
    assert block["departures"] == [] and block["configuration"] == "MLPerf v6.1 E2E-RAG"
    assert configuration_gate(block)["ok"]


@pytest.mark.parametrize(("extra", "questions", "corpus", "expected"), [
    ((), 20, CORPUS, "20 questions (MLPerf: all 824)"),
    ((), 824, {**CORPUS, "pages": 40}, "a corpus of 40 pages (MLPerf: 2,515)"),
    (("--embedder", "minilm"), 824, CORPUS, "embedder minilm (MLPerf: e5-base-v2)"),
    (("--reranker", "identity"), 824, CORPUS, "reranker identity"),
    (("--reranker", "remote", "--reranker-url", "http://r/v1/rerank"), 824, CORPUS,
     "reranker remote /models/colbertv2.0 (MLPerf: ColBERTv2 MaxSim in-process"),
    (("--kind", "flat"), 824, CORPUS, "index flat"),
    (("--embed-backend", "auto"), 824, CORPUS, "embedding backend auto (MLPerf: fp32"),
    (("--embed-backend", "torch-bf16"), 824, CORPUS, "embedding backend torch-bf16"),
    (("--bm25",), 824, CORPUS, "BM25"),
    (("--sampling", "ours"), 824, CORPUS, "agentic-bench's sampling"),
    (("--no-grade",), 824, CORPUS, "no document grading"),
    (("--model", "llama"), 824, CORPUS, "main model llama"),
    (("--grade-model", "qwen"), 824, CORPUS, "grading model qwen"),
    (("--judge-model", "gpt-4o"), 824, CORPUS, "judge model gpt-4o"),
    (("--accuracy-metric", "f1"), 824, CORPUS, "headline f1"),
    (("--accuracy-target", "0.5"), 824, CORPUS, "accuracy target 0.5"),
    (("--concurrency", "4"), 824, CORPUS, "4 questions in flight (MLPerf: 10)"),
    (("--retries", "0"), 824, CORPUS, "failed calls: --retries 0 --retry-on mlperf"),
    (("--retry-on", "any"), 824, CORPUS, "failed calls: --retries 4 --retry-on any"),
    (("--request-timeout", "300"), 824, CORPUS, "--request-timeout 300 (MLPerf: 5 attempts"),
    (("--loadgen-layout", "flat"), 824, CORPUS, "LoadGen logs in the run folder itself"),
    (("--loadgen-model", "llama2-70b"), 824, CORPUS, "LoadGen model key llama2-70b"),
])
def test_each_departure_is_named(monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...],
                                 questions: int, corpus: dict[str, Any], expected: str) -> None:
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    gone = [d for d in departures(task_args(*OFFICIAL, *extra), questions, corpus)
            if d not in KNOWN]
    assert len(gone) == 1 and expected in gone[0], gone


def test_hotpotqa_and_missing_roles_are_departures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    block = mlperf_block(task_args("--mlperf"), 20)
    words = " | ".join(block["departures"])
    for part in ("questions and corpus not MLPerf's", "no judge", "grading on the main",
                 "main model the endpoint's default"):
        assert part in words
    gate = configuration_gate(block)
    assert not gate["ok"] and gate["value"] == len(block["departures"])


def test_mlperf_sampling_parameters() -> None:
    from rag_pipeline import GenerationConfig, mlperf_generation

    cfg = mlperf_generation()
    assert cfg.params(cfg.max_tokens_grade) == {"temperature": 1.0, "max_tokens": 4096,
                                                "top_p": 1.0, "top_k": -1,
                                                "reasoning_effort": "medium"}
    assert {cfg.max_tokens_decompose, cfg.max_tokens_sufficiency, cfg.max_tokens_answer} == \
        {10240}
    assert GenerationConfig().params(8) == {"temperature": 0.0, "max_tokens": 8}


def test_the_documented_official_command_has_no_reranker_departure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/rag-e2e.md's MLPerf command once used `--reranker remote ... colbertv2.0`, which the
    code (rightly: a /v1/rerank server scores its own way) names a departure; the reference's
    reranker is ColBERTv2 MaxSim in-process (e2e-rag/reranker_worker.py 103-131)."""
    import re
    import shlex
    from pathlib import Path

    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    doc = (Path(__file__).resolve().parents[3] / "docs" / "rag-e2e.md").read_text()
    block = re.search(r"agentic-bench run rag-e2e --mlperf \\\n(.*?)\n```", doc, re.S)
    assert block is not None
    tokens = shlex.split(block.group(1).replace("\\\n", " "))
    gone = departures(task_args("--mlperf", *tokens), 824, CORPUS)
    assert not [d for d in gone if d.startswith("reranker")], gone
    remote = task_args("--mlperf", "--reranker", "remote", "--reranker-url", "http://r/v1/rerank",
                       "--reranker-model", "colbertv2.0")
    assert any(d.startswith("reranker remote colbertv2.0") for d in departures(remote, 824, CORPUS))


def test_the_rerank_depth_is_mlperfs_under_the_preset(monkeypatch: pytest.MonkeyPatch) -> None:
    """multi_shot_retrieval.py 1493: max(3, 10 // the round's queries) per query."""
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    assert task_args("--mlperf").rerank_depth == "mlperf" and task_args().rerank_depth == "fixed"
    gone = departures(task_args(*OFFICIAL, "--rerank-depth", "fixed"), 824, CORPUS)
    assert gone == KNOWN  # the mlperf loop always keeps the reference's depth
    gone = departures(task_args(*OFFICIAL, "--flow", "multi-hop", "--rerank-depth", "fixed"),
                      824, CORPUS)
    assert any(d.startswith("rerank depth fixed, --rerank-k 3") for d in gone)
    gone = departures(task_args(*OFFICIAL, "--rerank-k", "5"), 824, CORPUS)
    assert any(d.startswith("rerank depth mlperf, --rerank-k 5") for d in gone)
