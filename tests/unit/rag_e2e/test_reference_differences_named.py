"""#43 E2E-RAG items 6, 9 and 10: what a run does otherwise than the reference is named in the
run itself (its summary's ``mlperf`` block), not only in docs/rag-e2e.md.

* item 6: a ``url_mapping.json`` that does not cover the corpus is counted by the corpus loader
  (``read_docs.py`` 425-427 gives such a page the URL ``""``) and flagged as a departure: the
  reference loop drops its results (``multi_shot_retrieval.py`` 1549-1556), so those pages are
  never retrieved;
* item 10: replies the reference loses the question on (msr 1293-1295, 1331, 1416, 1427-1429,
  1474-1503) go on here: a note of every ``--flow mlperf`` run;
* item 9: e2e-rag-db's MD5 over a folder (the reference: one .db file,
  ``reference_SUT_datasetup.py`` 300-307) and the added ``Accuracy:`` line (the reference's
  ``datasetup_accuracy_eval.py`` 527-577 writes none): notes of every e2e-rag-db run.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from rag_e2e_support import HashEmbedder, task_args

from agentic_bench.tasks.rag_e2e import mlperf_config
from agentic_bench.tasks.rag_e2e.mlperf_config import mlperf_block

CORPUS = {"pages": 2515, "passages": 107_484, "parser": "lxml"}
OFFICIAL = ("--mlperf", "--frames", "frames_dataset.tsv", "--corpus", "doc_html",
            "--embedder", "/models/e5-base-v2", "--reranker", "late-interaction",
            "--reranker-model", "/models/colbertv2.0", "--model", "gpt-oss-120b",
            "--grade-endpoint", "http://g/v1", "--grade-model", "openai/gpt-oss-20b",
            "--judge-endpoint", "http://j/v1", "--judge-model", "meta-llama/Llama-3.1-8B-Instruct",
            "--reference-dir", "/src/inference")


def _pages(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("en.wikipedia.org_wiki_Alpha", "en.wikipedia.org_wiki_Beta", "stray_page"):
        (folder / f"{name}.html").write_text(
            f"<html><body><div id='mw-content-text'><div class='mw-parser-output'><p>{name} "
            "text.</p></div></div></body></html>", encoding="utf-8")
    (folder / "url_mapping.json").write_text(json.dumps({
        "en.wikipedia.org_wiki_Alpha": "https://en.wikipedia.org/wiki/Alpha",
        "en.wikipedia.org_wiki_Beta": "https://en.wikipedia.org/wiki/Beta"}))
    return folder


def test_the_corpus_counts_pages_its_url_mapping_does_not_cover(tmp_path: Path) -> None:
    pytest.importorskip("bs4", reason="beautifulsoup4 is part of the rag extra")
    from rag_pipeline.reference_corpus import load_reference_corpus, passages_payload

    corpus = load_reference_corpus(_pages(tmp_path / "doc_html"))
    assert corpus.stats["unmapped_pages"] == 1 and corpus.stats["url_mapping_entries"] == 2
    payload = passages_payload([("a", "https://en.wikipedia.org/wiki/A", [(0, "x")]),
                                ("b", "", [(0, "y")])], "doc_html")
    (tmp_path / "passages.json").write_text(json.dumps(payload))
    assert load_reference_corpus(tmp_path / "passages.json").stats["unmapped_pages"] == 1


def test_an_uncovering_url_mapping_is_a_departure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    args = task_args(*OFFICIAL)
    covered = mlperf_block(args, 824, {**CORPUS, "unmapped_pages": 0})["departures"]
    block = mlperf_block(args, 824, {**CORPUS, "unmapped_pages": 7})
    (gone,) = [d for d in block["departures"] if d not in covered]
    assert not any("url_mapping" in d for d in covered)
    assert gone.startswith("url_mapping.json names no URL for 7 of 2515 pages")
    assert "multi_shot_retrieval.py 1549-1556" in gone


def test_malformed_replies_the_reference_loses_are_a_note_of_every_mlperf_loop_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mlperf_config, "loadgen_available", lambda: True)
    notes = mlperf_block(task_args(*OFFICIAL), 824, CORPUS)["notes"]
    (note,) = [n for n in notes if "malformed reply" in n]
    for cited in ("1293-1295", "1416", "1427-1429", "1474-1503", "`relevance`", "`feedback`",
                  "`queries`"):
        assert cited in note


@pytest.mark.skipif(importlib.util.find_spec("mlperf_loadgen") is None,
                    reason="mlperf_loadgen (mlcommons-loadgen) not installed")
def test_an_e2e_rag_db_run_names_its_md5_and_accuracy_line_differences(tmp_path: Path) -> None:
    from agentic_bench.tasks.rag_e2e.db_loadgen import qsl_pages
    from agentic_bench.tasks.rag_e2e.db_run import run_db_build

    pages = qsl_pages(_pages(tmp_path / "doc_html"))
    summary = run_db_build(pages, HashEmbedder(), tmp_path / "run")
    notes = summary["workload"]["mlperf"]["notes"]
    assert any("MD5" in n and "reference_SUT_datasetup.py 300-307" in n for n in notes)
    assert any("`Accuracy:` line" in n and "527-577" in n for n in notes)
    saved = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert saved["workload"]["mlperf"]["notes"] == notes
