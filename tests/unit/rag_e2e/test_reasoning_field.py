"""#43 item 7: MLPerf's E2E-RAG loop reads only ``reasoning_content`` when a reply's content is
empty (mlcommons/inference b66003e1 e2e-rag/multi_shot_retrieval.py 359-367:
``content = response.choices[0].message.content``; when empty, ``reasoning_content`` alone is
searched for the JSON object). A server that streams its reasoning under ``reasoning`` gives
the reference nothing to read; ours read it too."""

from __future__ import annotations

import json

from agentic_bench.tasks.rag_e2e.executor import Reply
from agentic_bench.transport import ChatResult, assemble_stream
from rag_pipeline.reference_loop import reply_text


def _event(delta: dict[str, str]) -> bytes:
    body = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def _stream(key: str) -> ChatResult:
    chunks = [(1, _event({key: '{"queries": ["a"]}'})),
              (2, b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'),
              (3, b"data: [DONE]\n\n")]
    return assemble_stream(ChatResult(), chunks)


def test_only_reasoning_content_is_what_the_reference_reads() -> None:
    named, other = _stream("reasoning_content"), _stream("reasoning")
    assert named.reasoning_content == '{"queries": ["a"]}' == named.reasoning
    assert other.reasoning == '{"queries": ["a"]}' and other.reasoning_content == ""


def test_the_loop_sees_reasoning_content_only() -> None:
    """The executor hands the loop ``reasoning_content`` (executor._chat_fn): an empty reply
    whose reasoning came under ``reasoning`` reads as empty, as in the reference."""
    named, other = _stream("reasoning_content"), _stream("reasoning")
    assert '{"queries": ["a"]}' in reply_text(Reply("", named.reasoning_content))
    assert reply_text(Reply("", other.reasoning_content)) == ""
