"""The ``mlperf`` flow against the rules of MLPerf E2E-RAG's reference loop.

Each test transcribes a rule of mlcommons/inference b66003e1 ``e2e-rag/multi_shot_retrieval.py``
(``msr`` + line numbers) and drives :mod:`rag_pipeline.reference_loop` with a scripted index and
a scripted chat function. On the ``multi-hop`` graph each of these fails (one grading call per
chunk, five graded rounds, an answer always written, a failed call ending the question).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from rag_pipeline import Chunk, RagConfig, RagPipeline, StageEvent, current_stage
from rag_pipeline.loop_prompts import own_prompts
from rag_pipeline.reference_loop import (
    json_object,
    parse_queries,
    parse_relevance,
    parse_sufficient,
    reply_text,
)

QUESTION = "Which river runs through the city where the author of X was born?"


def _chunk(page: str, n: int, text: str | None = None) -> Chunk:
    return Chunk(page, f"{page}#{n}", page, text or f"text of {page} part {n}", n * 100)


@dataclass
class ScriptedIndex:
    """Retrieval per call: ``rounds[r][q]`` = the chunk positions query q of round r finds."""

    chunks: list[Chunk]
    rounds: list[list[list[int]]]
    calls: int = 0

    def search(self, vectors: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        script = self.rounds[min(self.calls, len(self.rounds) - 1)]
        self.calls += 1
        return [[(i, 1.0 - 0.01 * r) for r, i in enumerate(script[q % len(script)][:k])]
                for q in range(len(vectors))]

    def enable_bm25(self) -> None:
        raise AssertionError("no BM25 here")


class NoEmbedder:
    name, dim = "none", 2

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return np.zeros((len(texts), 2), dtype=np.float32)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self.embed_queries(texts)


@dataclass
class RecordingReranker:
    """Reverses the order; records each call."""

    calls: list[int] = field(default_factory=list)
    name: str = "reverse"

    async def arerank(self, query: str, docs: list[str], top_k: int) -> list[tuple[int, float]]:
        self.calls.append(len(docs))
        return [(j, float(j)) for j in reversed(range(len(docs)))][:top_k]

    def rerank(self, query: str, docs: list[str], top_k: int) -> list[tuple[int, float]]:
        raise AssertionError("the loop reranks asynchronously")


@dataclass
class Reply:
    content: str | None
    reasoning: str = ""


@dataclass
class ScriptedChat:
    """Replies per stage from queues (the last reply repeats); an Exception instance raises."""

    replies: dict[str, list[Any]]
    prompts: list[tuple[str, str]] = field(default_factory=list)

    async def __call__(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        stage = str(current_stage.get())
        assert len(messages) == 1 and messages[0]["role"] == "user"  # msr 620, 752, 845
        self.prompts.append((stage, messages[0]["content"]))
        queue = self.replies[stage]
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(reply, Exception):
            raise reply
        return reply if isinstance(reply, Reply) else Reply(reply)

    def stages(self) -> list[str]:
        return [s for s, _ in self.prompts]

    def of(self, stage: str) -> list[str]:
        return [p for s, p in self.prompts if s == stage]


def _queries(*qs: str, feedback: str = "") -> str:
    return json.dumps({"queries": list(qs), "feedback": feedback})


def _run(chunks: list[Chunk], rounds: list[list[list[int]]], chat: ScriptedChat,
         max_rounds: int = 5, reranker: Any = None, **cfg: Any) -> tuple[Any, list[StageEvent]]:
    index = ScriptedIndex(chunks, rounds)
    config = RagConfig(**{"max_rounds": max_rounds, "retrieve_k": 10, "rerank_k": 3, **cfg})
    pipeline = RagPipeline(index, NoEmbedder(), chat=chat,  # type: ignore[arg-type]
                           reranker=reranker or RecordingReranker(), config=config)
    events: list[StageEvent] = []
    result = asyncio.run(pipeline.arun(QUESTION, mode="mlperf", on_stage=events.append))
    return result, events


PAGES = [_chunk("A", 0), _chunk("A", 1), _chunk("B", 0), _chunk("C", 0), _chunk("D", 0)]
A0, A1, B0, C0, D0 = range(5)


def test_one_grading_call_per_iteration_over_new_pages() -> None:
    """msr 1313-1333 (one evaluate_document_relevance call over ``new_docs``), 1549-1556 (a
    result joins ``new_docs`` only when its URL is not in ``all_retrieved_urls``, a per-question
    set never cleared, so a page is graded once, through the first chunk met, query by query),
    1331-1333 (kept iff ``relevance[i] == 1``)."""
    chat = ScriptedChat({
        "decompose": [_queries("q1", "q2"), _queries("q3")],
        "grade": ['{"relevance": [1, 0]}', '{"relevance": [1]}'],
        "sufficiency": ['{"sufficient": false}'],
        "generate": ["Rhine"],
    })
    reranker = RecordingReranker()
    rounds = [[[A0, B0], [A1]], [[A1, C0]]]
    result, _ = _run(PAGES, rounds, chat, max_rounds=3, reranker=reranker)
    assert chat.stages() == ["decompose", "grade", "sufficiency", "decompose", "grade",
                             "sufficiency", "generate"]
    first, second = chat.of("grade")
    assert "text of A part 0" in first and "text of B part 0" in first
    assert "text of A part 1" not in first and "text of A part 1" not in second
    assert "text of C part 0" in second and "text of B part 0" not in second.split("Documents")[0]
    assert [c.chunk_id for c in result.context] == ["A#0", "C#0"]
    assert result.state["relevant"] == [[A0], [C0]]
    assert reranker.calls == []  # msr 1518: no rerank when a query found no more than the target
    assert result.answer == "Rhine" and result.sufficient


@pytest.mark.parametrize(("reply", "count", "expected"), [
    ("", 2, [1, 1]),  # msr 534-536: empty → all relevant
    ("nonsense", 2, [1, 1]),  # 546-551: no JSON object → all relevant
    ('{"relevance": [1]}', 2, [1, 1]),  # 556-559: wrong length → all relevant
    ('{"relevance": [1, 0', 2, [1, 1]),  # 561-573: does not parse → all relevant
    ('{"relevance": ["1", "yes"]}', 2, ["1", "yes"]),  # kept iff == 1 (1331): neither
    ('```json\n{"relevance": [true, 0]}\n```', 2, [True, 0]),  # 538-544: fenced block
    ('noise {"relevance": [0, 1]} noise', 2, [0, 1]),  # 546-549: greedy {...} span
])
def test_relevance_parsing(reply: str, count: int, expected: list[Any]) -> None:
    assert parse_relevance(reply, count) == expected


def test_round_limit_nothing_kept_ends_unanswered() -> None:
    """msr 1365-1367 (no sufficiency call without kept pages), 1590-1593 (the loop ends after
    the last iteration's retrieval, which is never graded), 1241/1418 (``final_answer`` stays
    "" without an answer call): 5 iterations = decompose, then (grade, queries) x 4, 5
    retrievals."""
    chat = ScriptedChat({"decompose": [_queries("q")], "grade": ['{"relevance": [0]}']})
    rounds = [[[A0]], [[B0]], [[C0]], [[D0]], [[A1]]]
    result, events = _run(PAGES, rounds, chat)
    assert chat.stages() == ["decompose"] + ["grade", "decompose"] * 4
    assert [e.info["round"] for e in events if e.stage == "retrieve"] == [1, 2, 3, 4, 5]
    assert result.answer == "" and not result.sufficient and result.context == []


def test_round_limit_forces_sufficiency_at_the_last_iteration() -> None:
    """msr 683-686: at ``iteration >= max_iterations`` a "not sufficient" reply becomes
    sufficient, so with something kept there are 4 graded retrievals, 4 sufficiency calls
    (the 4th forced), 3 query calls and an answer (13 calls in all with MAX_ITERATIONS=5)."""
    chat = ScriptedChat({"decompose": [_queries("q")], "grade": ['{"relevance": [1]}'],
                         "sufficiency": ['{"sufficient": false, "reasoning": "more"}'],
                         "generate": ["Danube"]})
    rounds = [[[A0]], [[B0]], [[C0]], [[D0]], [[A1]]]
    result, events = _run(PAGES, rounds, chat)
    stages = chat.stages()
    assert (stages.count("grade"), stages.count("sufficiency"), stages.count("decompose"),
            stages.count("generate")) == (4, 4, 4, 1)
    assert len(stages) == 13
    assert [e.info["round"] for e in events if e.stage == "retrieve"] == [1, 2, 3, 4]
    assert result.answer == "Danube" and result.sufficient
    assert [c.doc_id for c in result.context] == ["A", "B", "C", "D"]  # msr 1598-1607


@pytest.mark.parametrize(("reply", "final", "expected"), [
    ('{"sufficient": false}', False, False),
    ('{"sufficient": false}', True, True),  # 683-686
    ("", True, True),  # 655-657
    ("", False, False),
    ("no json here", True, True),  # 673-675
    ('{"sufficient": tru', True, True),  # 701-703: an exception at the last iteration
    ('{"sufficient": tru', False, False),
    ('{"sufficient": "false"}', False, "false"),  # read for its truth value (1351, 1371)
])
def test_sufficiency_parsing(reply: str, final: bool, expected: Any) -> None:
    assert parse_sufficient(reply, final) == expected


def test_query_replies_history_and_feedback() -> None:
    """msr 876-914: the question alone on an empty or JSON-less reply; 1474-1477: an empty
    list falls back to the question; 826-830: each query issued with the number of new pages it
    found goes into the next query prompt; 1420-1424: feedback kept when new; 1493: the number
    of queries is not capped by max_sub_queries (only said in the prompt) and sets the rerank
    target max(3, 10 // queries)."""
    five = _queries("q1", "q2", "q3", "q4", "q5", feedback="need the birthplace")
    chat = ScriptedChat({"decompose": [five, _queries(feedback="need the birthplace"), ""],
                         "grade": [json.dumps({"relevance": [0] * 7}), '{"relevance": [0]}']})
    many = [_chunk(p, 0) for p in "ABCDEFGHIJ"]
    reranker = RecordingReranker()
    rounds = [[[0, 1, 2, 3], [1, 4], [5], [6], [7]], [[8]], [[9]]]
    _, events = _run(many, rounds, chat, max_rounds=4, reranker=reranker)
    embeds = [e.info["n"] for e in events if e.stage == "embed"]
    assert embeds == [5, 1, 1, 1]  # 5 uncapped queries; then [] and no JSON: the question
    assert reranker.calls == [4]  # target max(3, 10 // 5) = 3 < 4 hits: reranked and cut
    second = chat.of("decompose")[1]
    assert "q1" in second and "(new pages: 3)" in second and "(new pages: 1)" in second
    assert second.count("need the birthplace") == 1
    third = chat.of("decompose")[2]
    assert third.count("need the birthplace") == 1  # the same feedback is not kept twice
    assert "(the last query reply was empty)" in chat.of("decompose")[3]  # 877, then 1427-1429
    own = own_prompts()
    assert parse_queries("", QUESTION, own) == ([QUESTION], own.feedback_empty)
    assert parse_queries("plain text", QUESTION, own) == ([QUESTION], own.feedback_no_json)
    assert parse_queries('{"feedback": "x"}', QUESTION, own) == ([QUESTION], "x")
    assert parse_queries('{"queries": []}', QUESTION, own) == ([], own.feedback_default)
    assert parse_queries('{"queries": [}', QUESTION, own)[1].startswith("(the last query call")


def test_failed_calls_take_each_stage_fallback() -> None:
    """msr 561-573 (grading: all relevant), 690-704 (sufficiency: False, True at the last
    iteration), 785-797 (answer: "Unknown"), 902-914 (queries: the question): a failed call
    does not end the question."""
    boom = RuntimeError("LLM call failed after 5 retries")
    chat = ScriptedChat({"decompose": [boom], "grade": [boom], "sufficiency": [boom],
                         "generate": [boom]})
    result, events = _run(PAGES, [[[A0, B0]], [[C0]]], chat, max_rounds=3)
    assert chat.stages() == ["decompose", "grade", "sufficiency", "decompose", "grade",
                             "sufficiency", "generate"]
    assert result.answer == "Unknown" and result.sufficient
    assert [c.chunk_id for c in result.context] == ["A#0", "B#0", "C#0"]
    failed = [e for e in events if "failed" in e.info]
    assert len(failed) == 7 and all("error" not in e.info for e in events)


def test_reply_text_and_prompt_views() -> None:
    """msr 356-366: an empty content falls back to the ``{...}`` of ``reasoning_content``;
    488-495: the grader sees the kept count and the first 5 kept pages cut to 300 characters;
    1396-1399: a query prompt carries at most the last 12 kept pages, in full."""
    assert reply_text(Reply("  x  ")) == "x"
    assert reply_text(Reply("", 'I think {"relevance": [0]} fits')) == '{"relevance": [0]}'
    assert reply_text(Reply(None, "no braces")) == ""
    long = [_chunk(f"P{i}", 0, f"page {i} " + "y" * 400 + f" end{i}") for i in range(14)]
    chat = ScriptedChat({"decompose": [_queries("q")],
                         "grade": [json.dumps({"relevance": [1] * 14}), '{"relevance": [1]}'],
                         "sufficiency": ['{"sufficient": false}']})
    extra = [*long, _chunk("Z", 0)]
    rounds = [[list(range(14))], [[14]], [[14]]]
    _run(extra, rounds, chat, max_rounds=3, retrieve_k=20)
    grade2 = chat.of("grade")[1]
    assert "(14 relevant so far)" in grade2 and "end0" not in grade2  # cut to 300 chars
    assert "<relevant 5>" in grade2 and "<relevant 6>" not in grade2
    query2 = chat.of("decompose")[1]
    assert "end13" in query2 and "end2 " not in query2 and "end2\n" in query2
    assert "end1\n" not in query2  # pages 0 and 1 are not among the last 12
    assert json_object("```\n{\"a\": 1}\n```") == {"a": 1}
