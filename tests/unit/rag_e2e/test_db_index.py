"""#43 E2E-RAG item 8: QnA over the database an e2e-rag-db build wrote (``--index-from``).

Reference (mlcommons/inference b66003e1 ``e2e-rag/``): the README runs the QnA step on the DB
its DB step built (``README.md`` 47-48, 68-99: one ``DATABASE`` for both), and that DB holds
the QSL's pages — the sorted top-level ``*.html`` files (``QSL_datasetup.py`` 44-48) — with
``Document: <file>`` as the one passage of a page without text
(``reference_SUT_datasetup.py`` 227-231). ``read_docs.py``'s ingestion, which a run without
``--index-from`` indexes, reads ``*.htm`` too and gives an empty page no passage.
"""

from __future__ import annotations

import ctypes
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from rag_e2e_support import HashEmbedder, task_args

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.rag_e2e import mlperf_config, rag_workload
from agentic_bench.tasks.rag_e2e.db_index import INDEX_FROM_NOTE, load_db_index
from agentic_bench.tasks.rag_e2e.db_loadgen import DbSut, qsl_pages
from agentic_bench.tasks.rag_e2e.task import task

PARIS = "https://en.wikipedia.org/wiki/Paris"


class Lg:
    """The two LoadGen calls the SUT makes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def QuerySampleResponse(self, query_id: int, address: int, length: int) -> Any:
        return query_id, ctypes.string_at(address, length)

    def QuerySamplesComplete(self, responses: list[Any]) -> None:
        return None


class Sample:
    def __init__(self, index: int) -> None:
        self.id, self.index = 100 + index, index


def page(folder: Path, name: str, body: str) -> None:
    (folder / name).write_text(f"<html><body><div id='content'>{body}</div></body></html>",
                               encoding="utf-8")


@pytest.fixture
def doc_html(tmp_path: Path) -> Path:
    folder = tmp_path / "doc_html"
    folder.mkdir()
    page(folder, "Paris.html", "Paris is the capital and largest city of France.")
    page(folder, "Empty.html", "")
    page(folder, "Rome.htm", "Rome is the capital of Italy.")
    (folder / "url_mapping.json").write_text(json.dumps({"Paris": PARIS}), encoding="utf-8")
    return folder


def build(doc_html: Path, run: Path, embedder: Any = None) -> Path:
    """What `rag build-index --mlperf-db --loadgen mlperf --out RUN` leaves (db/ and
    summary.json), each page issued once (accuracy mode)."""
    from rag_pipeline.index import make_index

    embedder = embedder or HashEmbedder()
    pages = qsl_pages(doc_html)
    sut = DbSut(Lg(), pages, embedder, make_index("hnsw", embedder.dim, metric="l2"),
                run / "db", workers=2)
    sut.issue_queries([Sample(p.index) for p in pages])
    sut.close()
    summary = {"benchmark": "rag-e2e-db", "db": {**sut.block(), "embedder": embedder.name},
               "loadgen": {"options": {"mode": "accuracy"}}}
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return run


def test_the_qna_index_is_the_builds_pages(doc_html: Path, tmp_path: Path) -> None:
    run = build(doc_html, tmp_path / "run")
    chunk_index, info, corpus = load_db_index(run, HashEmbedder())
    texts = {c.text: c.doc_id for c in chunk_index.chunks}
    assert texts["Document: Empty.html"] == "file:Empty.html"  # SUT 227-231
    assert not any("Rome" in t for t in texts)  # QSL_datasetup.py 44-48: *.html only
    paris = next(c for c in chunk_index.chunks if c.doc_id == PARIS)
    assert paris.text.startswith("Paris is the capital") and paris.title == "Paris"
    assert corpus["pages"] == 2 == info["documents"] and corpus["passages"] == 2
    assert info["index_from"] == str(run / "db") and info["loadgen_mode"] == "accuracy"
    assert info["kind"] == "hnsw" and info["params"]["metric"] == "l2"
    hits = chunk_index.search(HashEmbedder().embed_queries(["capital of France"]), 1)
    assert chunk_index.chunks[hits[0][0][0]].doc_id == PARIS
    # its db/ folder names the same database
    assert load_db_index(run / "db", HashEmbedder())[1]["content_hash"] == info["content_hash"]


def test_our_own_ingestion_differs_there(doc_html: Path, tmp_path: Path) -> None:
    """Why the note: read_docs.py's rules (ours without --index-from) index Rome.htm and give
    Empty.html no passage."""
    pytest.importorskip("bs4", reason="beautifulsoup4 is part of the rag extra")
    from rag_pipeline import load_reference_corpus

    docs = load_reference_corpus(doc_html, cache_dir=tmp_path / "c").documents
    passages = [text for d in docs for _, text in d.passages]
    assert any("Rome" in t for t in passages) and "Document: Empty.html" not in passages


class OtherEmbedder(HashEmbedder):
    name = "other-model"


def test_the_runs_embedder_must_be_the_builds(doc_html: Path, tmp_path: Path) -> None:
    run = build(doc_html, tmp_path / "run")
    with pytest.raises(ConfigError, match=r"embedded with hash-bow-64.*other-model"):
        load_db_index(run, OtherEmbedder())
    with pytest.raises(ConfigError, match=r"no db/passages\.jsonl"):
        load_db_index(tmp_path, HashEmbedder())


def test_a_run_searches_the_build(doc_html: Path, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rag_workload, "make_embedder", lambda name, *_, **__: HashEmbedder())
    run = build(doc_html, tmp_path / "run")
    tsv = tmp_path / "frames_dataset.tsv"
    tsv.write_text(f"Prompt\tAnswer\twikipedia_link_1\nWhat is the capital of France?\tParis\t"
                   f"{PARIS}\n", encoding="utf-8")
    workload = task.workload(task_args("--frames", str(tsv), "--index-from", str(run),
                                       "--quiet", "--device", "cpu"))
    info = workload.info
    assert info["index"]["index_from"] == str(run / "db") and info["index"]["chunks"] == 2
    assert info["corpus"]["pages"] == 2 and info["questions"] == 1
    assert info["device"] == {"requested": "cpu", "resolved": "cpu", "embedder": "cpu",
                              "reranker": None}
    assert INDEX_FROM_NOTE not in info["mlperf"]["notes"]
    with pytest.raises(ConfigError, match="drop --corpus"):
        task.workload(task_args("--frames", str(tsv), "--index-from", str(run), "--corpus",
                                str(doc_html)))


def test_without_it_the_run_names_its_own_ingestion() -> None:
    args = task_args("--mlperf", "--frames", "f.tsv", "--corpus", "doc_html")
    assert INDEX_FROM_NOTE in mlperf_config.notes(args, {"pages": 2515})
    assert "--index-from" in INDEX_FROM_NOTE and "Document: <file>" in INDEX_FROM_NOTE


@pytest.mark.skipif(not mlperf_config.loadgen_available(),
                    reason="mlperf_loadgen (mlcommons-loadgen) not installed")
def test_a_real_loadgen_build_serves_a_run(doc_html: Path, tmp_path: Path) -> None:
    """The folder `rag build-index --mlperf-db --loadgen mlperf --loadgen-mode accuracy` writes
    (LoadGen issuing each page) is what --index-from reads; the build records its device."""
    from agentic_bench.tasks.rag_e2e.db_run import run_db_build
    from rag_pipeline.devices import DevicePlacement

    placement = DevicePlacement.of("auto", "cpu", HashEmbedder()).to_dict()
    summary = run_db_build(qsl_pages(doc_html), HashEmbedder(), tmp_path / "run",
                           mode="accuracy", device=placement)
    assert summary["db"]["device"] == {"requested": "auto", "resolved": "cpu",
                                       "embedder": "cpu", "reranker": None}
    chunk_index, info, corpus = load_db_index(tmp_path / "run", HashEmbedder())
    assert info["loadgen_mode"] == "accuracy" and info["cache_key"] == summary["db"]["md5"]
    assert sorted(c.text for c in chunk_index.chunks)[0] == "Document: Empty.html"
    assert corpus["pages"] == 2 and info["pages_indexed_twice_or_more"] == 0


def test_build_index_records_the_device(doc_html: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("bs4", reason="beautifulsoup4 is part of the rag extra")
    from agentic_bench.cli import rag_cmd
    from agentic_bench.tasks.rag_e2e import index_cache

    monkeypatch.setattr(index_cache, "make_embedder", lambda name, *_, **__: HashEmbedder())
    report = rag_cmd.build_report(quick=False, embedder="minilm", kind="hnsw", limit=None,
                                  cache_dir=str(tmp_path / "c"), quiet=True,
                                  corpus=str(doc_html), device="cpu")
    assert report["device"] == {"requested": "cpu", "resolved": "cpu", "embedder": "cpu",
                                "reranker": None}
    assert "--device cpu → cpu" in rag_cmd.format_report(report)
    with pytest.raises(ConfigError, match="cuda:N"):
        rag_cmd.build_report(quick=False, embedder="minilm", kind="hnsw", limit=None,
                             cache_dir=str(tmp_path / "c"), quiet=True, corpus=str(doc_html),
                             device="gpu")
