from __future__ import annotations

import itertools

import pytest

from rag_pipeline import Document, chunk_document, chunk_documents, split_text


def test_short_text_is_one_chunk() -> None:
    assert split_text("hello", size=768, overlap=32) == [(0, "hello")]


def test_empty_text_gives_no_chunks() -> None:
    assert split_text("") == []


def test_windows_overlap_and_cover_the_text() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(2000))
    windows = split_text(text, size=768, overlap=32)
    assert [start for start, _ in windows] == [0, 736, 1472]
    assert all(len(w) == 768 for _, w in windows[:-1])
    assert windows[-1][1] == text[1472:]
    for (s1, w1), (s2, _w2) in itertools.pairwise(windows):
        assert text[s2 : s2 + 32] == w1[-32:]
        assert s2 == s1 + 736
    # reconstruct the text from the windows
    rebuilt = windows[0][1] + "".join(w[32:] for _, w in windows[1:])
    assert rebuilt == text


def test_exact_multiple_has_no_redundant_tail() -> None:
    windows = split_text("x" * 768, size=768, overlap=32)
    assert len(windows) == 1
    windows = split_text("x" * (768 + 736), size=768, overlap=32)
    assert [s for s, _ in windows] == [0, 736]


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, 10), (10, -1)])
def test_bad_parameters(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        split_text("abc", size=size, overlap=overlap)


def test_chunk_ids_titles_and_offsets() -> None:
    doc = Document(doc_id="Ed Wood", title="Ed Wood", text="y" * 1000)
    chunks = chunk_document(doc, size=600, overlap=100)
    assert [c.chunk_id for c in chunks] == ["Ed Wood#0", "Ed Wood#1"]
    assert [c.start for c in chunks] == [0, 500]
    assert all(c.title == "Ed Wood" and c.doc_id == "Ed Wood" for c in chunks)
    assert chunks[1].passage_text() == "Ed Wood\n" + "y" * 500


def test_chunk_documents_keeps_order() -> None:
    docs = [Document("a", "A", "alpha"), Document("b", "B", ""), Document("c", "C", "gamma")]
    assert [c.chunk_id for c in chunk_documents(docs)] == ["a#0", "c#0"]
