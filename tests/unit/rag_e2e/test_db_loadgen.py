"""e2e-rag-db through LoadGen: the sample = page mapping, what the SUT answers per sample, and the
accuracy rule of mlcommons/inference b66003e1 e2e-rag/datasetup_accuracy_eval.py (transcribed in
agentic_bench/tasks/rag_e2e/db_accuracy.py; line numbers below are of that file unless named)."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from rag_e2e_support import HashEmbedder

from agentic_bench.tasks.rag_e2e import db_accuracy as acc
from agentic_bench.tasks.rag_e2e.db_loadgen import DbSut, Page, page_passages, qsl_pages
from agentic_bench.tasks.rag_e2e.db_run import departures

MD5 = "0123456789abcdef0123456789abcdef"
# the checker's E2E_ACCURACY pattern (tools/submission/submission_checker/constants.py 1830),
# applied with re.match to each line (checks/accuracy_check.py 151)
CHECKER_PATTERN = r"Accuracy:\s*([\d\.]+)"


def page(folder: Path, name: str, body: str) -> None:
    (folder / name).write_text(f"<html><body><div id='content'>{body}</div></body></html>",
                               encoding="utf-8")


def test_one_sample_per_sorted_top_level_html_page(tmp_path: Path) -> None:
    """QSL_datasetup.py 44-48: sorted *.html names of the folder itself."""
    for name in ("b.html", "a.html", "c.htm", "notes.txt"):
        page(tmp_path, name, "x")
    (tmp_path / "sub").mkdir()
    page(tmp_path / "sub", "0.html", "x")
    (tmp_path / "url_mapping.json").write_text(json.dumps({"a": "https://en.wikipedia.org/a"}))
    pages = qsl_pages(tmp_path)
    assert [(p.index, p.name, p.url) for p in pages] == [
        (0, "a.html", "https://en.wikipedia.org/a"), (1, "b.html", "")]
    assert [p.name for p in qsl_pages(tmp_path, limit=1)] == ["a.html"]


def test_a_page_is_cut_768_32_and_an_empty_one_is_named(tmp_path: Path) -> None:
    """reference_SUT_datasetup.py 227-246: empty text → 'Document: <file>'; 768/32 passages."""
    page(tmp_path, "long.html", " ".join(f"word{i}" for i in range(400)))
    page(tmp_path, "empty.html", "")
    long, empty = qsl_pages(tmp_path)[1], qsl_pages(tmp_path)[0]
    passages = page_passages(long)
    assert len(passages) > 1 and max(len(p) for p in passages) <= 768
    assert passages[0][-32:] == passages[1][:32].strip() or passages[1].startswith(
        passages[0][-32:].strip())
    assert page_passages(empty) == ["Document: empty.html"]


class FakeLg:
    """The two LoadGen calls the SUT makes; records each response's bytes."""

    def __init__(self) -> None:
        self.responses: dict[int, bytes] = {}
        self.lock = threading.Lock()

    def QuerySampleResponse(self, query_id: int, address: int, length: int) -> Any:
        import ctypes

        return query_id, ctypes.string_at(address, length)

    def QuerySamplesComplete(self, responses: list[Any]) -> None:
        with self.lock:
            self.responses.update(dict(responses))


class Sample:
    def __init__(self, qid: int, index: int) -> None:
        self.id, self.index = qid, index


def test_each_page_answers_one_byte_and_the_last_one_the_database_md5(tmp_path: Path) -> None:
    """reference_SUT_datasetup.py 284-362; a failed page answers 0 (315-322) and the database is
    then saved after the run (flush_queries 374-386)."""
    from rag_pipeline.index import make_index

    docs = tmp_path / "doc_html"
    docs.mkdir()
    for n in range(5):
        page(docs, f"p{n}.html", f"page {n} text about topic {n}")
    pages = qsl_pages(docs)
    lg = FakeLg()
    index = make_index("hnsw", HashEmbedder.dim, metric="l2")
    sut = DbSut(lg, pages, HashEmbedder(), index, tmp_path / "db", workers=2)
    sut.issue_queries([Sample(100 + i, i) for i in (3, 1, 4, 0, 2)])
    sut.close()
    assert sorted(lg.responses) == [100, 101, 102, 103, 104]
    md5s = [r for r in lg.responses.values() if len(r) == 32]
    assert md5s == [acc.db_md5(tmp_path / "db").encode()] and sut.stats.saved_by == "last sample"
    assert sorted(r for r in lg.responses.values() if len(r) == 1) == [b"\x01"] * 4
    assert index.ntotal == 5 == sum(1 for _ in (tmp_path / "db" / "passages.jsonl").open())

    broken = Page(5, "gone.html", docs / "gone.html", "")
    lg2 = FakeLg()
    sut2 = DbSut(lg2, [*pages, broken], HashEmbedder(), make_index("hnsw", 64, metric="l2"),
                 tmp_path / "db2", workers=1)
    sut2.issue_queries([Sample(i, i) for i in range(6)])
    sut2.close()
    assert lg2.responses[5] == b"\x00" and all(len(r) == 1 for r in lg2.responses.values())
    assert sut2.stats.saved_by == "after the run" and sut2.md5 == acc.db_md5(tmp_path / "db2")


def test_responses_are_classified_as_the_reference_does() -> None:
    """324-353: 1 byte 1 = success, other byte = failure, 32 lowercase hex = the MD5 and a
    success, anything else a failure; 46-127: a later entry of one qsl_idx replaces it."""
    entries = [{"qsl_idx": 0, "data": "00"}, {"qsl_idx": 0, "data": "01"},
               {"qsl_idx": 1, "data": "02"}, {"qsl_idx": 2, "data": MD5.encode().hex()},
               {"qsl_idx": 3, "data": MD5.upper().encode().hex()},
               {"qsl_idx": 4, "data": "0101"}]
    found = acc.classify(acc.responses_by_index(entries))
    assert found == {"success": 2, "failure": 3, "md5": MD5, "md5_index": 2}


def ok(n: int, md5: str | None = MD5) -> dict[int, bytes]:
    out = {i: b"\x01" for i in range(n)}
    if md5 is not None:
        out[n] = md5.encode()
    return out


def two_failed() -> dict[int, bytes]:
    """98 of 100 pages succeed (the MD5 response among them)."""
    return {**ok(97), 97: b"\x00", 98: b"\x00", 99: MD5.encode()}


def test_verdict_and_the_accuracy_figure() -> None:
    """391 (MD5 match), 410-415 (rate ≥ 0.99 and MD5), 362-369 (no MD5), 443-457 (checks)."""
    full = acc.evaluate(ok(99), MD5)
    assert full["passed"] and full["accuracy"] == 100.0 and full["success_rate"] == 1.0
    low = acc.evaluate(two_failed(), MD5)  # 98 of 100
    assert low["accuracy"] == 98.0 and not low["passed"]  # the checker's 98 passes, 0.99 not
    assert acc.evaluate(ok(9), "f" * 32)["accuracy"] == 0.0  # MD5 differs
    none = acc.evaluate(ok(9, md5=None), MD5)
    assert none["accuracy"] == 0.0 and "no MD5" in none["reasons"][0]
    assert acc.evaluate(ok(9), None)["reasons"] == ["the database was not saved"]
    checks = acc.database_checks(vectors=0, passages=0, ids=0, lookup_hits=0, dim=384)
    assert [c["result"] for c in checks] == ["FAIL", "PASS", "WARN", "FAIL"]
    assert acc.evaluate(ok(9), MD5, checks=checks)["accuracy"] == 0.0
    good = acc.database_checks(vectors=3, passages=3, ids=3, lookup_hits=1, dim=384)
    assert acc.evaluate(ok(9), MD5, checks=good)["passed"]  # dimension only warns (215-226)
    assert acc.evaluate(ok(9), MD5, manifest_passed=False)["accuracy"] == 0.0


def test_accuracy_txt_has_exactly_one_line_the_checker_reads() -> None:
    text = acc.accuracy_text(acc.evaluate(two_failed(), MD5), "db/")
    found = [m.group(1) for line in text.splitlines()
             if (m := re.match(CHECKER_PATTERN, line))]
    assert found == ["98.0000"] and float(found[0]) >= acc.CHECKER_GATE
    assert "overall: FAIL" in text  # the reference's own 0.99 bar


def test_the_database_md5_covers_every_file_by_name(tmp_path: Path) -> None:
    (tmp_path / "b").write_bytes(b"2")
    (tmp_path / "a").write_bytes(b"1")
    first = acc.db_md5(tmp_path)
    (tmp_path / "a").write_bytes(b"x")
    assert acc.db_md5(tmp_path) != first and len(first) == 32


@pytest.mark.parametrize(("name", "pages", "count"), [
    ("e5-base-v2+raw", 2515, 0), ("all-MiniLM-L6-v2", 2515, 1), ("e5-base-v2", 35, 1)])
def test_departures(name: str, pages: int, count: int) -> None:
    assert len(departures(name, pages)) == count
