"""rag-agent's tools: dispatch, bad input, and stage timings that add up to each call's wait."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest
from rag_agent_support import task_args
from rag_e2e_support import DOCS, HashEmbedder

from agentic_bench.tasks.rag_agent.tools import (
    TOOL_SCHEMAS,
    RagTools,
    ToolOutcome,
    decode_arguments,
    page_texts,
)
from rag_pipeline import IdentityReranker, build_index


@pytest.fixture
def tools(tmp_path: Path) -> RagTools:
    embedder = HashEmbedder()
    index, _ = build_index(DOCS, embedder, kind="flat", cache_dir=tmp_path / "cache")
    return RagTools(index, embedder, IdentityReranker(), page_texts(DOCS), search_k=4,
                    results_k=2, snippet_chars=30, open_chars=20)


def call(tools: RagTools, name: str, arguments: object) -> ToolOutcome:
    return asyncio.run(tools.call(name, arguments))  # type: ignore[arg-type]


def contiguous(outcome: ToolOutcome) -> None:
    spans = outcome.stages
    assert all(a.end_ns == b.start_ns for a, b in itertools.pairwise(spans))
    assert sum(s.duration_ns for s in spans) == outcome.wait_ns > 0


def test_the_schemas_name_the_two_tools() -> None:
    assert [t["function"]["name"] for t in TOOL_SCHEMAS] == ["search", "open"]
    assert TOOL_SCHEMAS[0]["function"]["parameters"]["required"] == ["query"]


def test_search_runs_embed_search_rerank_and_shows_page_ids(tools: RagTools) -> None:
    out = call(tools, "search", '{"query": "capital of France Paris"}')
    assert out.error is None and [s.stage for s in out.stages] == ["embed", "search", "rerank"]
    lines = out.output.splitlines()
    assert len(lines) == 2 and lines[0].startswith("[Paris] Paris: ")
    assert len(lines[0]) <= len("[Paris] Paris: ") + 30  # the snippet is cut
    assert out.pages[0] == "Paris" and len(out.pages) <= 2
    assert out.stages[1].info == {"k": 4, "hits": 4}
    assert out.stages[2].info["kept"] == 2 and out.stages[2].info["candidates"] == 4
    contiguous(out)


def test_open_returns_the_page_cut_and_accepts_the_bracketed_id(tools: RagTools) -> None:
    out = call(tools, "open", {"page_id": "[Ed Wood]"})
    assert out.error is None and out.pages == ("Ed Wood",)
    assert out.output == "Ed Wood\n" + DOCS[0].text[:20]
    assert [s.stage for s in out.stages] == ["open"]
    contiguous(out)


@pytest.mark.parametrize(("name", "arguments", "reason"), [
    ("search", "not json", "not a JSON object"),
    ("search", "[1, 2]", "not a JSON object"),
    ("search", '{"query": "  "}', "non-empty 'query'"),
    ("search", '{"q": "Paris"}', "non-empty 'query'"),
    ("open", '{"page_id": 3}', "'page_id' string"),
    ("open", '{"page_id": "Atlantis"}', "no page 'Atlantis'"),
    ("delete", "{}", "unknown tool 'delete'"),
])
def test_bad_calls_answer_an_error_timed_as_dispatch(tools: RagTools, name: str,
                                                     arguments: str, reason: str) -> None:
    out = call(tools, name, arguments)
    assert out.error is not None and reason in out.error
    assert out.output.startswith("Error: ") and out.pages == ()
    assert [s.stage for s in out.stages] == ["dispatch"]
    contiguous(out)


def test_decode_arguments() -> None:
    assert decode_arguments(None) == {}
    assert decode_arguments('{"a": 1}') == {"a": 1}
    assert decode_arguments({"a": 1}) == {"a": 1}
    assert decode_arguments('"text"') is None and decode_arguments("{") is None


def test_quick_asks_five_questions_unless_told() -> None:
    from agentic_bench.tasks.rag_agent.workload import questions_asked

    assert questions_asked(task_args("--quick")) == 5
    assert questions_asked(task_args("--quick", "--questions", "20")) == 20
    assert questions_asked(task_args()) is None
