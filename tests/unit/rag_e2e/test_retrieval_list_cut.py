"""#43 E2E-RAG items 6 and the retrieval-cut acceptance test: the reference loop driven with a
scripted index and chat (the fakes of tests/unit/rag_pipeline/test_reference_loop.py) over
pages with URLs and one without, then the question's ``sample`` record built as a run writes it.

Transcriptions of the reference rules (mlcommons/inference b66003e1
``e2e-rag/multi_shot_retrieval.py``, ``msr``):

* msr 1598-1607: ``retrieved_urls`` = the URL of each kept page in the order kept, then
  ``retrieved_urls[:top_k_reranking]`` with ``top_k_reranking = 10`` (1185); the question's
  result (``reference_SUT.py`` 280-292 stores ``retrieved_urls``) holds those ten;
* msr 1549-1556: a result joins ``new_docs`` only when ``metadata['original_url']`` is set;
  ``read_docs.py`` 425-427 sets it to ``""`` for a page ``url_mapping.json`` does not name, so
  such a page is never graded, kept nor counted. Ours graded it as ``file:<name>``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agentic_bench.contracts import SessionTicket
from agentic_bench.tasks.rag_e2e.executor import RagShared, sample_record
from agentic_bench.tasks.rag_e2e.graph_run import GraphRun, run_graph
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn
from rag_pipeline import Chunk, Question, RagConfig, RagPipeline
from tests.unit.rag_pipeline.test_reference_loop import (
    NoEmbedder,
    RecordingReranker,
    ScriptedChat,
    ScriptedIndex,
)

WIKI = "https://en.wikipedia.org/wiki/Page_{}"
URLS = [WIKI.format(i) for i in range(12)]
UNMAPPED = "file:unmapped_page"  # reference_corpus.doc_id_for: no URL in url_mapping.json
CHUNKS = [Chunk(url, f"{url}#0", url, f"text of page {i}", 0) for i, url in enumerate(URLS)]
CHUNKS.append(Chunk(UNMAPPED, f"{UNMAPPED}#0", "unmapped", "text of the unmapped page", 0))


def _queries(*qs: str) -> str:
    return json.dumps({"queries": list(qs), "feedback": ""})


def _run_and_record() -> tuple[dict[str, Any], ScriptedChat, GraphRun]:
    # iteration 1: one query finds pages 0-9; iteration 2: pages 10, 11 and the unmapped one;
    # every page graded relevant; sufficiency says no until it is forced at the last iteration
    index = ScriptedIndex(CHUNKS, [[list(range(10))], [[10, 12, 11]]])
    chat = ScriptedChat({
        "decompose": [_queries("q1"), _queries("q2")],
        "grade": [json.dumps({"relevance": [1] * 10}), json.dumps({"relevance": [1, 1]})],
        "sufficiency": ['{"sufficient": false}'],
        "generate": ["an answer"],
    })
    config = RagConfig(max_rounds=3, retrieve_k=10, rerank_k=3)
    pipeline = RagPipeline(index, NoEmbedder(), chat=chat,  # type: ignore[arg-type]
                           reranker=RecordingReranker(), config=config)
    question = Question("q-1", "Which page?", "Page 3", "", (URLS[3],),
                        extra={"expected_urls": [URLS[3], URLS[11]]})
    run = asyncio.run(run_graph(pipeline, question.question, "mlperf", lambda _e: None, chat))
    session = Session(schema_version=SCHEMA_VERSION, session_id="q-1", turns=[Turn(user="q")])
    shared = RagShared(pipeline, {"q-1": question}, flow="mlperf")
    record = sample_record(SessionTicket(0, session, 0), question, run, None, 6, shared, None)
    return record, chat, run


def test_the_retrieval_list_in_the_record_is_the_first_ten_kept_pages() -> None:
    record, _, _ = _run_and_record()
    assert record["context_urls"] == URLS  # twelve pages kept, in the order kept
    assert record["retrieved_urls"] == URLS[:10]  # msr 1606-1607: cut to top_k_reranking
    # the retrieval metrics read the same ten: N = 10 is reported as @N only
    # (evaluation.py), and page 11 (gold, kept 12th) is not among them
    metrics = record["mlperf_retrieval"]
    assert "precision@10" not in metrics and metrics["precision@N"] == 1 / 10
    assert metrics["recall@N"] == 1 / 2


def test_a_page_without_a_url_is_never_graded_kept_or_counted() -> None:
    record, chat, run = _run_and_record()
    assert all("unmapped page" not in prompt for prompt in chat.of("grade"))
    assert "" not in record["context_urls"] and len(record["context_urls"]) == 12
    # the search history counts only pages with a URL as new (msr 1558-1560: 2, not 3)
    assert run.result.state["found"] == [10, 2]
    assert UNMAPPED not in run.result.state["pages"]
