"""The MLPerf Edge Agentic performance requests, checked against the reference's rules.

Fixture: 2 of the 20 conversations of MLCommons' ``agentic_coding_2.5h.jsonl`` (NOTICE.md
beside it). The expected histories below are an independent transcription of the reference
(mlcommons/endpoints @ ea332753), not a call into the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.errors import TraceError
from agentic_bench.trace.mlcommons_agentic import (
    ClientRow,
    load_conversations,
    looks_like_mlcommons_agentic,
    request_body,
    routing_headers,
)

REPO = Path(__file__).resolve().parents[3]
NAME = "agentic_coding_excerpt.jsonl"
SYSTEM = ("You are a helpful assistant that can interact with a computer shell to solve "
          "programming tasks.")


def fixture_path() -> Path:
    return REPO / "tests" / "data" / "mlcommons_edge" / NAME  # in the repo (NOTICE.md there)


def raw_rows() -> list[dict[str, Any]]:
    lines = fixture_path().read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def expected_messages(conv_id: str, turn: int) -> list[dict[str, Any]]:
    """The reference's request messages for client row (conv_id, turn), from the raw rows.

    agentic_inference_dataset.py:130-146: a system message first, from the first row (in turn
    order) with a non-empty string ``system``; :148-184: then every row up to and including
    this one; :68-108: a tool row becomes one {role: tool, tool_call_id, content} per
    tool_results entry; :156-173: another row keeps role, content, name, tool_calls,
    reasoning_content when not null (content None beside tool calls). Wire form:
    types.py:83-103 (omit_defaults: None fields dropped; key order role, content, name,
    tool_calls, tool_call_id, reasoning_content) and openai_msgspec_adapter.py:50-59.
    """
    conv = sorted((r for r in raw_rows() if r["conversation_id"] == conv_id),
                  key=lambda r: r["turn"])
    out: list[dict[str, Any]] = []
    system = next((r["system"] for r in conv if isinstance(r.get("system"), str)
                   and r["system"]), None)
    if system:
        out.append({"role": "system", "content": system})
    for r in conv:
        if r["turn"] > turn:
            break
        if r["role"] == "tool":
            for res in r["tool_results"]:
                out.append({"role": "tool", "content": res["content"],
                            "tool_call_id": res["tool_call_id"]})
            continue
        msg = {"role": r["role"]}
        for key in ("content", "name", "tool_calls", "reasoning_content"):
            if r.get(key) is not None:
                msg[key] = r[key]
        out.append(msg)
    return out


def assert_same_messages(row: ClientRow) -> None:
    want = expected_messages(row.conversation_id, row.turn)
    assert len(row.messages) == len(want)
    for got, exp in zip(row.messages, want, strict=True):
        assert list(got) == list(exp)  # same keys, same order
        for key in exp:
            assert got[key] == exp[key], key


def test_counts_and_order() -> None:
    convs = load_conversations(fixture_path())
    assert [c.id for c in convs] == ["psf__requests-1921", "pallets__flask-5014"]
    assert [c.n_rows for c in convs] == [88, 54]
    assert sum(c.n_rows for c in convs) == len(raw_rows()) == 142
    assert [len(c.rows) for c in convs] == [44, 27]
    roles = [r.role for c in convs for r in c.rows]
    assert roles.count("user") == 2 and roles.count("tool") == 69
    for c in convs:
        assert c.system == SYSTEM
        assert c.tools and c.tools[0]["function"]["name"] == "bash"
        assert [r.turn for r in c.rows] == [r.index + 1 for r in c.rows]
        assert all(r.reply is not None for r in c.rows)  # each ends with an assistant row
        assert all(r.tools == c.tools for r in c.rows)  # tools of the first user row


def test_first_client_row() -> None:
    row = load_conversations(fixture_path())[0].rows[0]
    assert (row.role, row.turn, row.index, row.line, row.delay_s) == ("user", 1, 0, 1, 0.0)
    assert row.messages[0] == {"role": "system", "content": SYSTEM}
    assert row.messages[1]["content"].startswith("<pr_description>")
    assert len(row.messages) == 2
    assert_same_messages(row)
    assert row.reply is not None and row.reply.content is None
    assert row.reply.tool_calls == [{"id": "functions.bash:0", "type": "function", "function": {
        "name": "bash", "arguments": '{"command": "ls -la"}'}}]
    assert row.reply.reasoning_content and row.reply.reasoning_content.startswith("Let me")


def test_second_client_row_tool_result_and_assistant_without_content() -> None:
    row = load_conversations(fixture_path())[0].rows[1]
    assert (row.role, row.turn, row.line, row.delay_s) == ("tool", 3, 3, 0.060485)
    assert_same_messages(row)
    assistant, tool = row.messages[2], row.messages[3]
    assert "content" not in assistant  # tool calls only: no content key on the wire
    assert assistant["reasoning_content"].startswith("Let me analyze the PR description")
    assert list(tool) == ["role", "content", "tool_call_id"]
    assert tool["tool_call_id"] == "functions.bash:0"
    assert tool["content"].startswith("<returncode>0</returncode>")


def test_late_client_rows_and_parallel_results() -> None:
    convs = load_conversations(fixture_path())
    for conv in convs:
        assert_same_messages(conv.rows[-1])
    parallel = [r for c in convs for r in c.rows
                if r.role == "tool" and r.messages[-2]["role"] == "tool"]
    assert len(parallel) == 3  # the fixture's three 2-result tool rows
    for row in parallel:
        assert_same_messages(row)
        calls = row.messages[-3]["tool_calls"]
        assert [m["tool_call_id"] for m in row.messages[-2:]] == [c["id"] for c in calls]


def test_histories_grow_by_exactly_the_rows_between() -> None:
    for conv in load_conversations(fixture_path()):
        for prev, row in zip(conv.rows, conv.rows[1:], strict=False):
            assert row.messages[:len(prev.messages)] == prev.messages
            assert row.messages[len(prev.messages)]["role"] == "assistant"


def test_request_body() -> None:
    row = load_conversations(fixture_path())[1].rows[5]
    body = request_body(row)
    assert list(body) == ["messages", "temperature", "max_completion_tokens", "stream", "seed",
                          "tools"]
    assert (body["temperature"], body["max_completion_tokens"], body["stream"],
            body["seed"]) == (0, 1024, True, 42)
    assert "tool_choice" not in body and "model" not in body
    assert body["messages"] == row.messages and body["tools"] == row.tools
    named = request_body(row, model="Qwen3.6-27B-Q4_K_M", max_completion_tokens=64)
    assert list(named)[:2] == ["model", "messages"] and named["max_completion_tokens"] == 64
    json.dumps(named)  # plain JSON
    assert routing_headers(row) == {"X-Session-ID": "pallets__flask-5014"}


def test_detection(tmp_path: Path) -> None:
    assert looks_like_mlcommons_agentic(fixture_path())
    native = tmp_path / "native.jsonl"
    native.write_text('{"schema_version": "1", "conversation_id": "a", "role": "user"}\n')
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    meta = tmp_path / "meta.jsonl"
    meta.write_text('{"_type": "dataset_metadata"}\n\n{"conversation_id": "a", "role": "user"}\n')
    assert [looks_like_mlcommons_agentic(p) for p in (native, garbage, empty, meta)] == [
        False, False, False, True]
    assert not looks_like_mlcommons_agentic(tmp_path / "missing.jsonl")


U = {"conversation_id": "c", "turn": 1, "role": "user", "content": "hi", "system": "s"}
CALL = {"id": "k0", "type": "function", "function": {"name": "f", "arguments": "{}"}}
A = {"conversation_id": "c", "turn": 2, "role": "assistant", "tool_calls": [CALL]}
T = {"conversation_id": "c", "turn": 3, "role": "tool",
     "tool_results": [{"tool_call_id": "k0", "content": "ok"}]}


def _with(row: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {k: v for k, v in {**row, **changes}.items() if v is not ...}


@pytest.mark.parametrize(("rows", "line", "needle"), [
    ([U, A, _with(T, turn=4)], 3, "turn: expected 3"),
    ([U, _with(A, role="user", content="x")], 2, "role: expected assistant after user"),
    ([U, _with(A, tool_calls=..., content="done"), T], 3,
     "tool row must follow an assistant with tool_calls"),
    ([U, A, _with(U, turn=3)], 3, "expected a tool row after"),
    ([U, _with(A, tool_calls=[])], 2, "tool_calls: expected a non-empty list"),
    ([U, _with(A, tool_calls=..., content="")], 2, "expected non-empty content or tool_calls"),
    ([U, _with(A, tool_calls=[{**CALL, "type": "x"}])], 2, "tool_calls[0].type"),
    ([U, A, _with(T, tool_results=[{"content": "x"}])], 3, "tool_results[0].tool_call_id"),
    ([U, A, _with(T, tool_results=[{"tool_call_id": "k0"}])], 3, "tool_results[0].content"),
    ([U, A, _with(T, delay_seconds=-1)], 3, "delay_seconds: expected a number >= 0"),
    ([_with(U, content="")], 1, "content: expected a non-empty string"),
    ([_with(U, temperature=0.7)], 1, "temperature: per-row generation parameters"),
    ([U, _with(U, conversation_id="d"), _with(A, conversation_id="c")], 3, "not consecutive"),
    ([_with(U, conversation_id="")], 1, "conversation_id: expected a non-empty string"),
    ([U, "{broken"], 2, "malformed JSON"),
])
def test_errors_name_file_line_and_expectation(tmp_path: Path, rows: list[Any], line: int,
                                               needle: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    with pytest.raises(TraceError) as err:
        load_conversations(path)
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert needle in str(err.value)


def test_content_null_and_empty_beside_tool_calls(tmp_path: Path) -> None:
    # DS:168-173 + TY:84: null content is dropped on the wire, "" is kept.
    path = tmp_path / "ok.jsonl"
    rows = [U, _with(A, content=None, reasoning_content=""), T,
            _with(A, turn=4, content="", tool_calls=[{**CALL, "id": "k1"}]),
            _with(T, turn=5, tool_results=[{"tool_call_id": "k1", "content": ""}],
                  delay_seconds=1.5)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (conv,) = load_conversations(path)
    last = conv.rows[-1]
    assert last.messages[2] == {"role": "assistant", "tool_calls": [CALL], "reasoning_content": ""}
    assert last.messages[4] == {"role": "assistant", "content": "",
                                "tool_calls": [{**CALL, "id": "k1"}]}
    assert last.messages[5] == {"role": "tool", "content": "", "tool_call_id": "k1"}
    assert last.reply is None and last.delay_s == 1.5
