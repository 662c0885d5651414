"""``--reference-dir``: the reference's prompt texts read from its source files at run time.

The reader follows the shape of mlcommons/inference b66003e1 ``e2e-rag/multi_shot_retrieval.py``
(``RELEVANCE_CHECK_PROMPT`` 60, ``SUFFICIENCY_CHECK_PROMPT`` 85, ``QUERY_GENERATION_PROMPT`` 114,
the document lines 486, 492, 495, 609, 733, 821, the history line 829 and its fallback 831,
the feedback lines 835, 877, 895, 900, 914, the answer prompt 737-750) and ``accuracy_eval.py``
(``JUDGE_PROMPT`` 25). The files here are stand-ins in that shape with made-up words (the
reference's text is never stored in this repository).

The real reference is checked in CI by a **recorded digest** (#43 acceptance): CI has no network
and no checkout, so ``tests/data/mlperf_reference_prompts_digest.json`` — written by
``scripts/record_reference_prompts_digest.py`` from a checkout at b66003e1 — holds each source
file's git blob id and SHA-256 and, for every text our reader extracts, its SHA-256 and its
placeholder names (hashes only, never the text). The always-run tests check the record's own
consistency and that the placeholders our loop and judge format are exactly the recorded ones;
with a checkout (``MLPERF_INFERENCE_DIR``) the last test reads the real files and recomputes
the record. A digest rather than the files, because the files may not be copied here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.rag_e2e.judge import judge_messages
from agentic_bench.tasks.rag_e2e.reference_prompts import read_reference_prompts

LOOP = '''
RELEVANCE_CHECK_PROMPT = """R-PROMPT q={question} new={new_docs} kept={kept_docs} n={num_docs}
{{"relevance": []}}"""
SUFFICIENCY_CHECK_PROMPT = """S-PROMPT {question} {kept_docs} {iteration}/{max_iterations}"""
QUERY_GENERATION_PROMPT = """Q-PROMPT {question} {kept_docs} {history} {feedback_history}
{max_queries}"""


def evaluate_document_relevance(question, new_documents, kept_documents):
    new_docs_text = ""
    for i, (url, content) in enumerate(new_documents):
        new_docs_text += f"<N{i+1}:{content}>"
    kept_docs_text = ""
    if kept_documents:
        kept_docs_text = f"<{len(kept_documents)} kept>"
        for i, doc in enumerate(kept_documents[:5]):
            snippet = doc[1][:300]
            kept_docs_text += f"<K{i+1}:{snippet}>"


def check_sufficiency(question, kept_documents, iteration, max_iterations):
    kept_docs_text = ""
    if kept_documents:
        for i, doc in enumerate(kept_documents):
            content = doc[1]
            kept_docs_text += f"<D{i+1}:{content}>"
    else:
        kept_docs_text = "NOTHING"


def generate_answer(question, kept_documents):
    kept_docs_text = ""
    for i, doc in enumerate(kept_documents):
        content = doc[1]
        kept_docs_text += f"<D{i+1}:{content}>"
    prompt = f"""A-PROMPT {question} {{literal}} {kept_docs_text}"""


def generate_search_queries(question, kept_documents, query_history, query_results,
                            feedback_history):
    kept_docs_text = ""
    for i, doc in enumerate(kept_documents):
        content = doc[1]
        kept_docs_text += f"<D{i+1}:{content}>"
    history_text = ""
    for q, count in zip(query_history, query_results):
        history_text += f"<H {q}={count}>"
    if not history_text:
        history_text = "NO-HISTORY"
    feedback_text = "/".join(feedback_history) if feedback_history else "FIRST"
    try:
        if not llm_output:
            return {"queries": [question], "feedback": "F-EMPTY"}
        if not json_match:
            return {"queries": [question], "feedback": "F-NOJSON"}
        return {"queries": result.get("queries", [question]),
                "feedback": result.get("feedback", "F-DEFAULT")}
    except Exception as e:
        return {"queries": [question], "feedback": f"F-ERROR {str(e)}"}
'''
JUDGE = 'JUDGE_PROMPT = """J {question} | {ground_truth} | {llm_answer} {{"correct": true}}"""\n'


def _checkout(tmp_path: Path, loop: str = LOOP, judge: str = JUDGE) -> Path:
    folder = tmp_path / "inference" / "e2e-rag"
    folder.mkdir(parents=True)
    (folder / "multi_shot_retrieval.py").write_text(loop)
    (folder / "accuracy_eval.py").write_text(judge)
    return tmp_path / "inference"


def test_every_text_is_read_from_the_files(tmp_path: Path) -> None:
    root = _checkout(tmp_path)
    ref = read_reference_prompts(root)
    p = ref.loop
    assert p.new_doc == "<N{n}:{content}>" and p.kept_header == "<{count} kept>"
    assert p.kept_doc == "<K{n}:{snippet}>" and p.doc == "<D{n}:{content}>"
    assert p.history_line == "<H {query}={count}>" and p.no_history == "NO-HISTORY"
    assert (p.no_docs, p.first_feedback) == ("NOTHING", "FIRST")
    assert (p.feedback_empty, p.feedback_no_json, p.feedback_default, p.feedback_error) == \
        ("F-EMPTY", "F-NOJSON", "F-DEFAULT", "F-ERROR {error}")
    assert p.answer.format(question="Q", kept_docs="D") == "A-PROMPT Q {literal} D"
    assert p.relevance.startswith("R-PROMPT") and p.wording == "reference"
    loop_file = root / "e2e-rag" / "multi_shot_retrieval.py"
    assert ref.files[0] == {"path": str(loop_file),
                            "sha256": hashlib.sha256(loop_file.read_bytes()).hexdigest()}
    # the checkout root or its e2e-rag/ folder
    assert read_reference_prompts(root / "e2e-rag").files == ref.files
    text = judge_messages("q?", "gold", "pred", ref.judge)[0]["content"]
    assert text == 'J q? | gold | pred {"correct": true}'


def test_the_loop_sends_the_reference_texts(tmp_path: Path) -> None:
    from rag_pipeline import RagConfig, RagPipeline
    from tests.unit.rag_pipeline.test_reference_loop import (
        PAGES,
        NoEmbedder,
        RecordingReranker,
        ScriptedChat,
        ScriptedIndex,
        _queries,
    )

    prompts = read_reference_prompts(_checkout(tmp_path)).loop
    chat = ScriptedChat({"decompose": ["", _queries("q2")], "grade": ['{"relevance": [1]}'],
                         "sufficiency": ['{"sufficient": true}'], "generate": ["Rhine"]})
    pipeline = RagPipeline(ScriptedIndex(PAGES, [[[0]], [[2]]]), NoEmbedder(),  # type: ignore[arg-type]
                           chat=chat, reranker=RecordingReranker(),
                           config=RagConfig(max_rounds=5), prompts=prompts)
    result = asyncio.run(pipeline.arun("Q?", mode="mlperf"))
    assert result.answer == "Rhine"
    first, = chat.of("decompose")
    assert first.startswith("Q-PROMPT Q? NOTHING NO-HISTORY FIRST")
    grade, = chat.of("grade")
    assert grade.startswith("R-PROMPT q=Q? new=<N1:text of A part 0> kept=NOTHING n=1")
    sufficiency, = chat.of("sufficiency")
    assert sufficiency == "S-PROMPT Q? <D1:text of A part 0> 2/5"
    assert chat.of("generate") == ["A-PROMPT Q? {literal} <D1:text of A part 0>"]


@pytest.mark.parametrize(("loop", "judge", "message"), [
    (LOOP.replace("RELEVANCE_CHECK_PROMPT", "OTHER"), JUDGE, "RELEVANCE_CHECK_PROMPT"),
    (LOOP.replace("{len(kept_documents)}", "{len(kept_documents) * 2}"), JUDGE,
     "an f-string part this reader does not know"),
    (LOOP.replace("{max_iterations}", "{limit}"), JUDGE, "unknown fields ['limit']"),
    (LOOP.replace('"F-NOJSON"', 'reason'), JUDGE, "four feedback lines"),
    (LOOP, JUDGE.replace("{ground_truth}", "{truth}"), "JUDGE_PROMPT with"),
    (LOOP + "\ndef broken(:\n", JUDGE, "not Python source"),
])
def test_a_reference_of_another_shape_is_refused(tmp_path: Path, loop: str, judge: str,
                                                 message: str) -> None:
    with pytest.raises(ConfigError, match=r"multi_shot_retrieval\.py|accuracy_eval\.py") as info:
        read_reference_prompts(_checkout(tmp_path, loop, judge))
    assert message in str(info.value)
    with pytest.raises(ConfigError, match=r"no multi_shot_retrieval\.py"):
        read_reference_prompts(tmp_path / "nowhere")


REFERENCE = os.environ.get("MLPERF_INFERENCE_DIR", "")
DIGEST = Path(__file__).resolve().parents[2] / "data" / "mlperf_reference_prompts_digest.json"
REFERENCE_COMMIT = "b66003e1"  # docs/rag-e2e.md, /work/shared/MLPERF_REFERENCE.md


def _record() -> dict[str, Any]:
    record: dict[str, Any] = json.loads(DIGEST.read_text(encoding="utf-8"))
    return record


def test_the_recorded_digest_is_whole_and_holds_no_text() -> None:
    """The record names the commit, both files (git blob id: 40 hex, SHA-256: 64 hex) and every
    template the reader extracts — each PromptSet field and the judge's — with a SHA-256 and its
    sorted placeholders; nothing else (no text)."""
    from agentic_bench.tasks.rag_e2e.reference_prompts_digest import JUDGE_PROMPT_NAME
    from rag_pipeline.loop_prompts import FIELDS, PromptSet

    record = _record()
    assert record["commit"].startswith(REFERENCE_COMMIT) and len(record["commit"]) == 40
    assert set(record["files"]) == {"multi_shot_retrieval.py", "accuracy_eval.py"}
    for entry in record["files"].values():
        assert set(entry) == {"git_blob", "sha256"}
        assert re.fullmatch(r"[0-9a-f]{40}", entry["git_blob"])
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"])
    fields = [f.name for f in dataclasses.fields(PromptSet) if f.name != "source"]
    assert list(record["prompts"]) == [*FIELDS, JUDGE_PROMPT_NAME] and set(FIELDS) == set(fields)
    hashes = set()
    for entry in record["prompts"].values():
        assert set(entry) == {"sha256", "placeholders"}
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"])
        assert entry["placeholders"] == sorted(set(entry["placeholders"]))
        hashes.add(entry["sha256"])
    assert len(hashes) == len(record["prompts"])  # every text its own


class _Recording(str):
    """A template that notes the fields each ``format`` call passes."""

    calls: dict[str, set[str]]
    name: str

    def format(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
        self.calls.setdefault(self.name, set()).update(kwargs)
        return str.format(self, *args, **kwargs)


def _recording(calls: dict[str, set[str]], name: str, placeholders: list[str]) -> _Recording:
    text = _Recording(" ".join("{" + p + "}" for p in placeholders) or name)
    text.calls, text.name = calls, name
    return text


def test_our_loop_and_judge_format_exactly_the_recorded_placeholders() -> None:
    """Templates made of the recorded placeholders only, run through the mlperf loop (a failed
    first query call, two graded rounds, an answer) and the judge: every template is formatted
    with exactly its recorded fields (a missing one raises KeyError, an extra one shows here);
    the texts used as they are (no_docs, no_history, first_feedback) have none recorded."""
    from rag_pipeline import RagConfig, RagPipeline
    from rag_pipeline.loop_prompts import FIELDS, PromptSet
    from tests.unit.rag_pipeline.test_reference_loop import (
        PAGES,
        NoEmbedder,
        RecordingReranker,
        ScriptedChat,
        ScriptedIndex,
        _queries,
    )

    recorded = {name: entry["placeholders"] for name, entry in _record()["prompts"].items()}
    calls: dict[str, set[str]] = {}
    prompts = PromptSet(**{name: _recording(calls, name, recorded[name]) for name in FIELDS})
    chat = ScriptedChat({"decompose": [RuntimeError("down"), _queries("q2")],
                         "grade": ['{"relevance": [1]}'],
                         "sufficiency": ['{"sufficient": false}', '{"sufficient": true}'],
                         "generate": ["Rhine"]})
    pipeline = RagPipeline(ScriptedIndex(PAGES, [[[0]], [[2]]]), NoEmbedder(),  # type: ignore[arg-type]
                           chat=chat, reranker=RecordingReranker(),
                           config=RagConfig(max_rounds=5), prompts=prompts)
    assert asyncio.run(pipeline.arun("Q?", mode="mlperf")).answer == "Rhine"
    judge_messages("q?", "gold", "pred", _recording(calls, "judge", recorded["judge"]))
    formatted = {name for name, fields in recorded.items() if fields}
    assert set(calls) == formatted
    for name in formatted:
        assert calls[name] == set(recorded[name]), name


@pytest.mark.skipif(not (REFERENCE and Path(REFERENCE, "e2e-rag").is_dir()),
                    reason="no checkout of mlcommons/inference here (set MLPERF_INFERENCE_DIR)")
def test_the_real_reference_reads() -> None:
    """With a checkout: our reader reads it and its digest is the recorded one (a checkout at
    another commit, or a reader that extracts other texts, fails here)."""
    from agentic_bench.tasks.rag_e2e.reference_prompts_digest import prompts_digest

    ref = read_reference_prompts(Path(REFERENCE))
    p = ref.loop
    assert "{num_docs}" in p.relevance and "{max_iterations}" in p.sufficiency
    assert "{max_queries}" in p.queries and "{kept_docs}" in p.answer
    assert "{error}" in p.feedback_error and "{llm_answer}" in ref.judge
    record = _record()
    digest = prompts_digest(Path(REFERENCE))
    assert digest["files"] == record["files"] and digest["prompts"] == record["prompts"]
