"""``--reference-dir``: the reference's prompt texts read from its source files at run time.

The reader follows the shape of mlcommons/inference b66003e1 ``e2e-rag/multi_shot_retrieval.py``
(``RELEVANCE_CHECK_PROMPT`` 60, ``SUFFICIENCY_CHECK_PROMPT`` 85, ``QUERY_GENERATION_PROMPT`` 114,
the document lines 486, 492, 495, 609, 733, 821, the history line 829 and its fallback 831,
the feedback lines 835, 877, 895, 900, 914, the answer prompt 737-750) and ``accuracy_eval.py``
(``JUDGE_PROMPT`` 25). The files here are stand-ins in that shape with made-up words (the
reference's text is never stored in this repository); when a checkout of the reference is on
this machine, the last test reads the real one.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

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


@pytest.mark.skipif(not (REFERENCE and Path(REFERENCE, "e2e-rag").is_dir()),
                    reason="no checkout of mlcommons/inference here (set MLPERF_INFERENCE_DIR)")
def test_the_real_reference_reads() -> None:
    ref = read_reference_prompts(Path(REFERENCE))
    p = ref.loop
    assert "{num_docs}" in p.relevance and "{max_iterations}" in p.sufficiency
    assert "{max_queries}" in p.queries and "{kept_docs}" in p.answer
    assert "{error}" in p.feedback_error and "{llm_answer}" in ref.judge
