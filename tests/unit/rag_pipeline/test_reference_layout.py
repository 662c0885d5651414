"""MLPerf E2E-RAG's data layout: the fixed splitter (text_splitter.py 29-37, 120-155), the
question file as QSL.py 40-70 reads it with pandas, and the corpus folder as read_docs.py
434-542 processes it (mlcommons/inference b66003e1) — each rule transcribed as a case."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from rag_pipeline.corpus import CorpusError
from rag_pipeline.frames_tsv import load_frames_tsv
from rag_pipeline.reference_splitter import fixed_passages, fixed_windows


@pytest.mark.parametrize(("text", "length", "overlap", "expected"), [
    ("", 4, 1, []),
    ("   ", 4, 1, []),
    ("abcd", 4, 1, ["abcd"]),  # at most `length`: one passage
    # starts 0, 3, 6, 9 while inside the text; the last window lies inside the one before
    ("abcdefghij", 4, 1, ["abcd", "defg", "ghij", "j"]),
    ("ab  cd\n\tef", 4, 0, ["ab c", "d ef"]),  # whitespace runs collapse to one space first
    ("abc def ghi", 4, 0, ["abc", "def", "ghi"]),  # each window is stripped: "abc ", "def "...
    ("a" * 10, 5, 2, ["aaaaa", "aaaaa", "aaaa", "a"]),
])
def test_fixed_passages(text: str, length: int, overlap: int, expected: list[str]) -> None:
    assert fixed_passages(text, length, overlap) == expected


def test_windows_carry_their_start_and_mlperf_defaults() -> None:
    text = "x" * 2000
    windows = fixed_windows(text)
    assert [start for start, _ in windows] == [0, 736, 1472]  # 768 - 32
    assert [len(p) for _, p in windows] == [768, 768, 528]
    with pytest.raises(ValueError):
        fixed_passages("abc", 4, 4)


def _tsv(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_frames_tsv_reads_as_pandas_does(tmp_path: Path) -> None:
    tsv = _tsv(tmp_path / "frames_dataset.tsv", [
        "\tPrompt\tAnswer\twikipedia_link_1\twikipedia_link_2\twikipedia_link_3\treasoning_types",
        "0\tWho?\tAda\thttps://en.wikipedia.org/wiki/Ada_Lovelace\t\t"
        "https://en.wikipedia.org/wiki/Charles_Babbage\tMulti-hop",
        "",  # blank lines are skipped
        '1\t"A question\twith a tab\nand a newline"\tNone\tNA\t\t\tNumerical',
    ])
    first, second = load_frames_tsv(tsv)
    assert first.id == "0" and first.question == "Who?" and first.answer == "Ada"
    # empty cells are missing; the order is the columns'
    assert first.extra["expected_urls"] == ["https://en.wikipedia.org/wiki/Ada_Lovelace",
                                            "https://en.wikipedia.org/wiki/Charles_Babbage"]
    assert first.supporting_titles == ("Ada Lovelace", "Charles Babbage")
    assert first.type == "Multi-hop"
    assert second.id == "1" and second.question == "A question\twith a tab\nand a newline"
    # pandas reads "None" as missing: the reference's judge then sees str(nan)
    assert second.answer == "nan"
    assert second.extra["expected_urls"] == []  # "NA" is missing too


@pytest.mark.parametrize(("lines", "message"), [
    (["\tQuestion\tAnswer", "0\tq\ta"], ":1: no column Prompt"),
    (["\tPrompt\tAnswer", "0\tq\ta\textra"], ":2: 4 cells, the header has 3"),
    (["\tPrompt\tAnswer", "0\t\ta"], ":2: empty Prompt"),
    (["\tPrompt\tAnswer"], "no question rows"),
])
def test_frames_tsv_errors_name_file_and_line(tmp_path: Path, lines: list[str],
                                              message: str) -> None:
    with pytest.raises(CorpusError, match=message):
        load_frames_tsv(_tsv(tmp_path / "f.tsv", lines))


def _page(body: str) -> str:
    return (f"<html><body><nav>menu</nav><div id='mw-content-text'><div class='mw-parser-output'>"
            f"{body}</div></div></body></html>")


def _corpus(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "en.wikipedia.org_wiki_Beta.html").write_text(_page("<p>Beta page.</p>"))
    (folder / "en.wikipedia.org_wiki_Alpha.html").write_text(_page("<p>" + "Alpha. " * 200
                                                                   + "</p>"))
    (folder / "en.wikipedia.org_wiki_Empty.html").write_text(_page(""))
    (folder / "unmapped.htm").write_text(_page("<p>No URL for me.</p>"))
    (folder / "notes.txt").write_text("not a page")
    (folder / "url_mapping.json").write_text(json.dumps({
        "en.wikipedia.org_wiki_Alpha": "https://en.wikipedia.org/wiki/Alpha",
        "en.wikipedia.org_wiki_Beta": "https://en.wikipedia.org/wiki/Beta",
        "en.wikipedia.org_wiki_Empty": "https://en.wikipedia.org/wiki/Empty"}))
    return folder


def test_corpus_folder_in_the_references_order(tmp_path: Path) -> None:
    pytest.importorskip("bs4", reason="beautifulsoup4 is part of the rag extra")
    from rag_pipeline.reference_corpus import load_reference_corpus, reference_url

    corpus = load_reference_corpus(_corpus(tmp_path / "doc_html"))
    docs = corpus.documents
    # sorted file order; the empty page gives no passage; .txt is not a page
    assert [d.doc_id for d in docs] == ["https://en.wikipedia.org/wiki/Alpha",
                                        "https://en.wikipedia.org/wiki/Beta", "file:unmapped"]
    assert [d.title for d in docs] == ["Alpha", "Beta", "unmapped"]
    assert reference_url(docs[2].doc_id) == ""  # as the reference reports an unmapped page
    alpha = docs[0]
    assert [start for start, _ in alpha.passages] == [0, 736] and \
        alpha.passages[0][1] == ("Alpha. " * 110)[:768].strip()
    assert corpus.stats["pages"] == 4 and corpus.stats["passages"] == 4
    assert corpus.stats["pages_with_text"] == 3 and corpus.stats["boundary"] == "word"


def test_chunks_of_a_cut_document_embed_without_the_title(tmp_path: Path) -> None:
    pytest.importorskip("bs4", reason="beautifulsoup4 is part of the rag extra")
    from rag_pipeline.chunking import chunk_documents
    from rag_pipeline.reference_corpus import load_reference_corpus

    docs = load_reference_corpus(_corpus(tmp_path / "doc_html")).documents
    chunks = chunk_documents(docs)
    assert [c.chunk_id for c in chunks][:3] == ["https://en.wikipedia.org/wiki/Alpha#0",
                                                "https://en.wikipedia.org/wiki/Alpha#1",
                                                "https://en.wikipedia.org/wiki/Beta#0"]
    assert chunks[2].passage_text() == "Beta page."  # the reference embeds the passage alone


def test_passages_json_tar_and_cache_give_the_same_documents(tmp_path: Path) -> None:
    pytest.importorskip("bs4", reason="beautifulsoup4 is part of the rag extra")
    from rag_pipeline.reference_corpus import load_reference_corpus

    folder = _corpus(tmp_path / "doc_html")
    cache = tmp_path / "cache"
    fresh = load_reference_corpus(folder, cache_dir=cache)
    cached_files = list(cache.glob("passages-*.json"))
    assert len(cached_files) == 1 and fresh.stats["from_cache"] is False
    again = load_reference_corpus(folder, cache_dir=cache)
    assert again.stats["from_cache"] is True and again.documents == fresh.documents
    payload = json.loads(cached_files[0].read_text())
    assert payload["passages"][0] == {"index": 0, "base_filename": "en.wikipedia.org_wiki_Alpha",
                                      "original_url": "https://en.wikipedia.org/wiki/Alpha",
                                      "passage": fresh.documents[0].passages[0][1], "start": 0}
    # a read_docs.py passages.json (no "start") gives the same documents and texts
    for row in payload["passages"]:
        del row["start"]
    plain = tmp_path / "passages.json"
    plain.write_text(json.dumps(payload))
    from_json = load_reference_corpus(plain).documents
    assert [(d.doc_id, [p for _, p in d.passages]) for d in from_json] == \
        [(d.doc_id, [p for _, p in d.passages]) for d in fresh.documents]
    archive = tmp_path / "docs.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="doc_html")
    unpacked = load_reference_corpus(archive, cache_dir=tmp_path / "unpack")
    assert unpacked.documents == fresh.documents
    (folder / "en.wikipedia.org_wiki_Beta.html").write_text(_page("<p>Beta changed.</p>"))
    changed = load_reference_corpus(folder, cache_dir=cache)
    assert changed.stats["from_cache"] is False
    assert changed.documents[1].passages == ((0, "Beta changed."),)


@pytest.mark.parametrize(("setup", "message"), [
    (lambda d: (d / "x.pdf").write_bytes(b"%PDF"), "PDF page"),
    (lambda d: (d / "url_mapping.json").write_text("{nope"), "url_mapping.json: invalid JSON"),
    (lambda d: None, "no \\*.html pages"),
])
def test_corpus_errors(tmp_path: Path, setup: object, message: str) -> None:
    from rag_pipeline.reference_corpus import load_reference_corpus

    folder = tmp_path / "doc_html"
    folder.mkdir()
    if message != "no \\*.html pages":
        (folder / "a.html").write_text(_page("<p>a</p>"))
    setup(folder)  # type: ignore[operator]
    with pytest.raises(CorpusError, match=message):
        load_reference_corpus(folder)


@pytest.mark.parametrize(("answers", "expected"), [
    (["007", "12"], ["7", "12"]),  # an all-integer column: str(int)
    (["1990", ""], ["1990.0", "nan"]),  # a missing cell makes it float
    (["1990", "3.5"], ["1990.0", "3.5"]),
    (["1990", "Dutch"], ["1990", "Dutch"]),  # any text: the cells stay as written
])
def test_numeric_answer_columns_read_as_pandas_types_them(tmp_path: Path, answers: list[str],
                                                          expected: list[str]) -> None:
    tsv = _tsv(tmp_path / "f.tsv", ["\tPrompt\tAnswer"] +
               [f"{n}\tq{n}\t{a}" for n, a in enumerate(answers)])
    assert [q.answer for q in load_frames_tsv(tsv)] == expected
