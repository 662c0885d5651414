"""e2e-rag-db's DB manifest, rebuilt from mlcommons/inference b66003e1 e2e-rag/db_manifest.py:
probe rows (183-187), URL normalisation (208-221), corpus-set hash (104-126), the overlap gate
(224-240, 0.95) — and the reference's own shipped manifest read as it is."""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from rag_e2e_support import HashEmbedder

from agentic_bench.cli import rag_cmd
from agentic_bench.errors import ConfigError
from agentic_bench.tasks.rag_e2e import index_cache
from agentic_bench.tasks.rag_e2e.db_manifest import (
    corpus_set_sha256,
    normalize_url,
    overlap,
    probe_indices,
    read_manifest,
)

REFERENCE = Path(__file__).parents[2] / "data" / "mlcommons_e2e_rag" / \
    "db_manifest_intel_xpu.json.gz"


def test_probe_rows_are_the_references() -> None:
    """The reference picked these 50 rows of its 824-row frames_dataset.tsv."""
    shipped = read_manifest(REFERENCE)
    assert probe_indices(824) == [q["index"] for q in shipped["reference_queries"]]
    assert probe_indices(10) == list(range(10))  # fewer rows than probes: all of them


@pytest.mark.parametrize(("url", "key"), [
    ("https://en.wikipedia.org/wiki/James_Cameron#Filmography", "james_cameron"),
    ("en.wikipedia.org_wiki_James_Cameron#Filmography.html", "james_cameron"),
    ("http://en.wikipedia.org/wiki/AC/DC", "ac_dc"),
    ("unmapped_page", "unmapped_page"),
])
def test_url_normalisation(url: str, key: str) -> None:
    assert normalize_url(url) == key


def test_corpus_set_hash_ignores_order_not_text() -> None:
    assert corpus_set_sha256(["a", "b"]) == corpus_set_sha256(["b", "a"])
    assert corpus_set_sha256(["a", "b"]) != corpus_set_sha256(["a", "b "])


def test_overlap_is_over_url_sets() -> None:
    ref = [{"index": 1, "top_k_urls": ["https://en.wikipedia.org/wiki/A",
                                       "https://en.wikipedia.org/wiki/A#x",
                                       "https://en.wikipedia.org/wiki/B"]},
           {"index": 2, "top_k_urls": ["https://en.wikipedia.org/wiki/C"]}]
    ours = [{"index": 1, "top_k_urls": ["https://en.wikipedia.org/wiki/B",
                                        "https://en.wikipedia.org/wiki/A"]},
            {"index": 2, "top_k_urls": ["https://en.wikipedia.org/wiki/D"]},
            {"index": 9, "top_k_urls": []}]  # not in the reference: not compared
    mean, top1, n, per = overlap(ours, ref, 10)
    assert (mean, top1, n) == (0.5, 0.0, 2) and per == [(1, 1.0), (2, 0.0)]


def _cli() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentic-bench")
    rag_cmd.register(parser.add_subparsers())
    return parser


def _run(parser: argparse.ArgumentParser, *argv: str) -> int:
    ns = parser.parse_args(["rag", "build-index", *argv, "--quiet"])
    return int(ns.func(ns))


def test_write_then_verify_and_the_references_manifest(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bs4", reason="beautifulsoup4 is part of the rag extra")
    pytest.importorskip("long_context_eval", reason="HotpotQA data package")
    from rag_pipeline import sample_layout

    sample_layout(tmp_path / "layout", questions=3, distractors=5)
    monkeypatch.setattr(index_cache, "make_embedder", lambda name, *_, **__: HashEmbedder())
    parser = _cli()
    common = ("--corpus", str(tmp_path / "layout" / "doc_html"), "--mlperf-db",
              "--cache-dir", str(tmp_path / "c"))
    manifest = tmp_path / "ours.json.gz"
    report_file = tmp_path / "report.json"
    assert _run(parser, *common, "--frames", str(tmp_path / "layout" / "frames_dataset.tsv"),
                "--write-manifest", str(manifest), "--json", str(report_file)) == 0
    written: dict[str, Any] = json.loads(gzip.open(manifest, "rt").read())
    assert written["version"] == 2 and written["probe_top_k"] == 10
    assert [q["index"] for q in written["reference_queries"]] == [0, 1, 2]
    assert written["index_params"] == {"class": "IndexHNSWFlat", "dim": 64, "metric_type": 1,
                                       "efConstruction": 200, "efSearch": 100, "M": 32}
    assert all(len(r["top_k_urls"]) == 10 for r in written["reference_top_k"])
    report = json.loads(report_file.read_text())
    assert written["total_passages"] == report["chunks"]
    assert "wrote" in capsys.readouterr().out

    assert _run(parser, *common, "--verify-manifest", str(manifest)) == 0
    assert "verify        PASSED" in capsys.readouterr().out

    assert _run(parser, *common, "--verify-manifest", str(REFERENCE)) == 3  # not their DB
    text = capsys.readouterr().out
    assert "verify        FAILED" in text
    for part in ("total_passages: ours", "embedding_dim: ours 64, manifest 768",
                 "retrieval overlap 0.0000 < 0.95"):
        assert part in text


@pytest.mark.parametrize(("argv", "message"), [
    (("--write-manifest", "m.json"), "need --corpus"),
    (("--corpus", "x", "--write-manifest", "m.json"), "needs --frames"),
    (("--corpus", "x", "--verify-manifest", "nope.json"), "no such file"),
    (("--corpus", "x", "--mlperf-db", "--kind", "flat"), "HNSW"),
])
def test_bad_manifest_options_fail_before_building(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _run(_cli(), *argv)
