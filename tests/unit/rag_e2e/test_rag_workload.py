"""Workload assembly (FRAMES-style file, fake embedder), the index cache and the CLI command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from rag_e2e_support import DOCS, QUESTIONS, HashEmbedder, ScriptedTransport, run_shared, task_args

from agentic_bench.cli import rag_cmd
from agentic_bench.errors import ConfigError
from agentic_bench.tasks.rag_e2e import index_cache, rag_workload
from agentic_bench.tasks.rag_e2e.index_cache import build_or_load, default_cache_dir, select
from agentic_bench.tasks.rag_e2e.task import task


@pytest.fixture
def frames_file(tmp_path: Path) -> Path:
    docs = [{"title": d.title, "text": d.text} for d in DOCS]
    rows = [
        {"Prompt": QUESTIONS[0].question, "Answer": "yes", "reasoning_types": "comparison",
         "wiki_links": ["https://en.wikipedia.org/wiki/Scott_Derrickson",
                        "https://en.wikipedia.org/wiki/Ed_Wood"], "documents": docs[:3]},
        {"Prompt": QUESTIONS[1].question, "Answer": "Paris", "reasoning_types": "bridge",
         "wiki_links": ["https://en.wikipedia.org/wiki/Paris"], "documents": docs[3:]},
    ]
    path = tmp_path / "frames.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def fake_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rag_workload, "make_embedder", lambda name, *_, **__: HashEmbedder())


def test_task_object() -> None:
    assert task.name == "rag-e2e" and task.default_scenario == "single-stream"
    ns = task_args("--quick", "--flow", "single-shot")
    assert ns.quick and ns.flow == "single-shot" and ns.embedder == "minilm"
    assert rag_workload.grade_concurrency(ns) == 1  # the embedded endpoint is sequential
    assert rag_workload.grade_concurrency(task_args("--endpoint", "http://h/v1")) == 4
    for local in ("llama-server", "inproc"):  # the packaged model's servers
        assert rag_workload.grade_concurrency(task_args("--endpoint", local)) == 1
    with pytest.raises(ConfigError, match=r"'llama-cpp-python'.*removed on 2026-12-06"):
        task_args("--endpoint", "llama-cpp-python")  # refused with what to use instead
    assert rag_workload.grade_concurrency(task_args("--grade-concurrency", "2")) == 2


def test_frames_workload_end_to_end(frames_file: Path, tmp_path: Path,
                                    fake_embedder: None) -> None:
    trace = tmp_path / "out.trace.jsonl"
    ns = task_args("--frames", str(frames_file), "--cache-dir", str(tmp_path / "cache"),
                   "--kind", "flat", "--record-trace", str(trace), "--quiet",
                   "--accuracy-metric", "em", "--accuracy-target", "0.5")
    workload = task.workload(ns)
    assert workload.source.size == 2 and workload.name == "rag-e2e"
    assert workload.default_slos == {"accuracy": 0.5} and workload.recipe is None
    info = workload.info
    assert info["corpus_documents"] == 6 and info["index"]["chunks"] == 6
    assert info["flow"] == "multi-hop" and info["dataset"]["source"].startswith("frames")
    shared = workload.make_executor  # the executor factory of the workload
    records: list[dict[str, Any]] = []
    import asyncio
    from time import perf_counter_ns

    from agentic_bench.contracts import ExecContext
    from agentic_bench.load.runner import LoadRunner
    from agentic_bench.options.load import LoadSpec
    from agentic_bench.options.replay import ReplayOptions

    transport = ScriptedTransport(answers={"capital of France": "Paris"})
    ctx = ExecContext(transport, records.append, perf_counter_ns(), ReplayOptions(model="m"))
    runner = LoadRunner(LoadSpec(sessions=2), workload.source, shared(ctx))
    asyncio.run(runner.run())
    assert workload.score is not None
    acc = workload.score(records)
    assert acc is not None and acc["headline"] == 1.0 and acc["target"] == 0.5
    assert acc["retrieval"]["@10"]["recall"] == 1.0  # titles come from the wiki links
    assert len(trace.read_text().splitlines()) == 2


def test_second_build_loads_from_cache(frames_file: Path, tmp_path: Path,
                                       fake_embedder: None) -> None:
    args = ("--frames", str(frames_file), "--cache-dir", str(tmp_path / "c"), "--quiet")
    built, loaded = task.workload(task_args(*args)), task.workload(task_args(*args))
    first, second = built.info["index"], loaded.info["index"]
    assert not first["from_cache"] and second["from_cache"]
    assert first["content_hash"] == second["content_hash"]
    # --resume compares the identity: the same workload although the build figures differ
    assert built.identity == loaded.identity and built.info != loaded.info
    assert built.identity is not None and "build_s" not in built.identity["index"]
    recipe = task.workload(task_args(*args)).recipe
    assert recipe is not None and recipe[0] == "agentic_bench.tasks.registry:task_workload"
    name, options = recipe[1]
    # the options as JSON data (the worker validates them again), not a pickled object
    assert name == "rag-e2e" and options["frames"] == str(frames_file)
    assert options == json.loads(json.dumps(options))


@pytest.mark.parametrize(("argv", "message"), [
    (("--retrieve-k", "0"), "--retrieve-k"),
    (("--questions", "0"), "--questions"),
    (("--accuracy-metric", "judge"), "--judge-endpoint"),
    (("--record-trace", "t.jsonl", "--replay-responses", "t.jsonl"), "different files"),
    (("--reranker", "remote"), "--reranker-url"),
    (("--reranker", "cross-encoder"), "cross-encoder"),
    (("--reranker", "late-interaction"), "late-interaction needs --reranker-model"),
    (("--reranker", "late-interaction", "--reranker-model", "/nonexistent"), "no config.json"),
])
def test_bad_options_are_config_errors(argv: tuple[str, ...], message: str, frames_file: Path,
                                       tmp_path: Path, fake_embedder: None) -> None:
    ns = task_args("--frames", str(frames_file), "--cache-dir", str(tmp_path / "c"), "--quiet",
                   *argv)
    with pytest.raises(ConfigError, match=message):
        task.workload(ns)


def test_frames_without_documents_is_a_config_error(tmp_path: Path, fake_embedder: None) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text(json.dumps({"Prompt": "Who?", "Answer": "Me"}) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="documents"):
        task.workload(task_args("--frames", str(path), "--quiet"))


def test_select_quick_and_full() -> None:
    pool = list(QUESTIONS)
    quick = select(quick=True, questions=1, distractors=2, source=pool)
    # the first question of the quick set, over the whole quick corpus (both questions' own)
    assert len(quick.questions) == 1 and len(quick.corpus) == 6
    full = select(questions=5, source=pool)
    assert len(full.questions) == 2 and len(full.corpus) == 6 and "pooled" in full.label
    cut = select(source=pool, limit=4)
    assert len(cut.corpus) == 4


def test_cache_dir_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTIC_BENCH_RAG_CACHE", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "x"
    monkeypatch.delenv("AGENTIC_BENCH_RAG_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "agentic-bench" / "rag"
    with pytest.raises(ConfigError, match="--embedder 'bert'"):
        index_cache.make_embedder("bert")


def test_build_or_load_reports_progress(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    _, stats = build_or_load(DOCS, HashEmbedder(), "hnsw", tmp_path,
                             lambda d, t: seen.append((d, t)))
    assert seen[-1] == (6, 6) and stats.chunks == 6 and not stats.from_cache
    _, again = build_or_load(DOCS, HashEmbedder(), "hnsw", tmp_path)
    assert again.from_cache and again.cache_key == stats.cache_key


def test_rag_cli_build_index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="agentic-bench")
    rag_cmd.register(parser.add_subparsers())
    monkeypatch.setattr(index_cache, "make_embedder", lambda name, *_, **__: HashEmbedder())
    monkeypatch.setattr(index_cache, "select", lambda **kw: index_cache.Selection(
        list(QUESTIONS), list(DOCS), "test corpus"))
    out = tmp_path / "report.json"
    ns = parser.parse_args(["rag", "build-index", "--quick", "--kind", "flat", "--cache-dir",
                            str(tmp_path / "c"), "--json", str(out), "--quiet"])
    assert ns.func(ns) == 0
    text = capsys.readouterr().out
    assert "index built" in text and "chunks        6" in text and "peak RSS" in text
    report = json.loads(out.read_text())
    assert report["chunks"] == 6 and report["kind"] == "flat" and report["wall_s"] >= 0
    assert ns.func(ns) == 0 and "loaded from cache" in capsys.readouterr().out
    bad = parser.parse_args(["rag", "build-index", "--limit", "0"])
    with pytest.raises(ConfigError):
        bad.func(bad)
    assert parser.parse_args(["rag"]).func is not None


def test_run_shared_helper_smoke(tiny_index: Any) -> None:
    from agentic_bench.tasks.rag_e2e.executor import RagShared
    from rag_pipeline import RagPipeline

    shared = RagShared(RagPipeline(tiny_index, HashEmbedder()),
                       {q.id: q for q in QUESTIONS}, flow="single_shot")
    records = run_shared(shared, ScriptedTransport())
    assert sum(r["type"] == "sample" for r in records) == 2


def test_plain_progress_lines(capsys: pytest.CaptureFixture[str]) -> None:
    from agentic_bench.tasks.rag_e2e.progress_bar import embedding_progress

    with embedding_progress("embedding") as progress:  # stderr is not a terminal here
        for done in (0, 1, 50, 100):
            progress(done, 100)
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["embedding: 0/100 passages", "embedding: 50/100 passages",
                     "embedding: 100/100 passages"]
    with embedding_progress("x", enabled=False) as progress:
        progress(1, 1)
    assert capsys.readouterr().err == ""


def test_layout_options_need_each_other(tmp_path: Path, frames_file: Path,
                                        fake_embedder: None) -> None:
    tsv = tmp_path / "frames_dataset.tsv"
    tsv.write_text("\tPrompt\tAnswer\n0\tq\ta\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="carries no documents; give --corpus"):
        task.workload(task_args("--frames", str(tsv), "--quiet"))
    with pytest.raises(ConfigError, match="--corpus needs --frames"):
        task.workload(task_args("--corpus", str(tmp_path), "--quiet"))


def test_select_over_a_reference_corpus_keeps_file_order_and_gold_pages() -> None:
    from rag_pipeline import Document, Question

    pool = [Question(id=str(n), question=f"q{n}", answer="a", type="", supporting_titles=(),
                     extra={"expected_urls": [f"u{n}"]}) for n in range(30)]
    corpus = [Document(doc_id=f"u{n}", title=f"t{n}", text="", passages=((0, f"p{n}"),))
              for n in range(100)]
    full = select(questions=25, source=pool, corpus=corpus)
    assert [q.id for q in full.questions] == [str(n) for n in range(25)]  # QSL: first N rows
    assert len(full.corpus) == 100 and "file order" in full.label
    quick = select(quick=True, distractors=5, source=pool, corpus=corpus, seed=1)
    assert len(quick.questions) == 20
    ids = [d.doc_id for d in quick.corpus]
    assert {f"u{n}" for n in range(20)} <= set(ids) and len(ids) == 25
    assert ids == sorted(ids, key=lambda i: int(i[1:]))  # the corpus order is kept


def test_rag_cli_sample_layout_then_build_index_over_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`rag sample-layout` writes the reference layout; `rag build-index --corpus` ingests it
    (pages/s, passages/s) into the index `run rag-e2e --frames … --corpus …` then loads."""
    pytest.importorskip("bs4", reason="beautifulsoup4 is part of the rag extra")
    pytest.importorskip("long_context_eval", reason="HotpotQA data package")
    parser = argparse.ArgumentParser(prog="agentic-bench")
    rag_cmd.register(parser.add_subparsers())
    layout = tmp_path / "layout"
    ns = parser.parse_args(["rag", "sample-layout", "--out", str(layout), "--questions", "2",
                            "--distractors", "3"])
    assert ns.func(ns) == 0 and "--corpus" in capsys.readouterr().out
    pages = list((layout / "doc_html").glob("*.html"))
    assert len(pages) == 23 and (layout / "doc_html" / "url_mapping.json").is_file()
    monkeypatch.setattr(index_cache, "make_embedder", lambda name, *_, **__: HashEmbedder())
    out = tmp_path / "report.json"
    ns = parser.parse_args(["rag", "build-index", "--corpus", str(layout / "doc_html"),
                            "--cache-dir", str(tmp_path / "c"), "--json", str(out), "--quiet"])
    assert ns.func(ns) == 0
    assert "23 → " in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["documents"] == 23 and report["ingestion"]["pages"] == 23
    assert report["ingestion"]["passages"] == report["chunks"] and report["chunks"] >= 23
    monkeypatch.setattr(rag_workload, "make_embedder", lambda name, *_, **__: HashEmbedder())
    run = task.workload(task_args("--frames", str(layout / "frames_dataset.tsv"), "--corpus",
                                  str(layout / "doc_html"), "--cache-dir", str(tmp_path / "c"),
                                  "--quiet"))
    assert run.info["index"]["from_cache"] and run.info["index"]["chunks"] == report["chunks"]
    assert run.info["questions"] == 2
    with pytest.raises(ConfigError, match="--quick"):
        bad = parser.parse_args(["rag", "build-index", "--quick", "--corpus", str(layout)])
        bad.func(bad)


def test_late_interaction_reranker_from_local_weights() -> None:
    from rag_pipeline.embedders.local import packaged_minilm_path
    from rag_pipeline.late_interaction import LateInteractionReranker

    args = task_args("--reranker", "late-interaction", "--reranker-model",
                     str(packaged_minilm_path()))
    reranker = rag_workload.make_reranker(args, HashEmbedder())
    assert isinstance(reranker, LateInteractionReranker)
    assert reranker.name == f"late-interaction:{packaged_minilm_path().resolve()}"
