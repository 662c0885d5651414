"""A tool step's call_id must name a tool call of the llm step before it (issue #22 item 3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentic_bench.trace.jsonl import validate_file

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def _session(call_id: str | None, output_id: str | None = "c1") -> dict[str, Any]:
    call: dict[str, Any] = {"name": "f", "arguments": {}}
    if output_id:
        call["id"] = output_id
    tool: dict[str, Any] = {"kind": "tool", "name": "f", "result": "ok"}
    if call_id:
        tool["call_id"] = call_id
    return {"schema_version": "1", "session_id": "s", "tools": TOOLS, "turns": [{
        "user": "go", "steps": [{"kind": "llm", "output": {"tool_calls": [call]}}, tool,
                                {"kind": "llm", "output": {"content": "done"}}]}]}


def _problems(tmp_path: Path, session: dict[str, Any]) -> list[str]:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(session) + "\n")
    return [str(p) for p in validate_file(path).problems]


def test_a_call_id_no_call_has_is_a_problem_with_file_line_and_field(tmp_path: Path) -> None:
    problems = _problems(tmp_path, _session("c9"))
    assert len(problems) == 1
    assert "t.jsonl:1" in problems[0] and "turns[0].steps[1].call_id" in problems[0]
    assert "'c9' names no tool call" in problems[0] and "c1" in problems[0]


def test_matching_or_absent_call_ids_are_fine(tmp_path: Path) -> None:
    assert _problems(tmp_path, _session("c1")) == []
    assert _problems(tmp_path, _session(None)) == []  # paired by position on replay
    assert _problems(tmp_path, _session("c1", output_id=None)) != []  # no call has that id


def test_a_binary_file_is_named_as_binary(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)
    problems = [str(p) for p in validate_file(path).problems]
    assert len(problems) == 1 and "binary file" in problems[0]


def test_request_fields_are_typed_as_the_chat_api_types_them() -> None:
    """#30 item 5: "max_tokens": "sixty-four" validated and was sent."""
    from agentic_bench.trace.model import Session
    from agentic_bench.trace.semantics import check_session

    session = Session.model_validate({"schema_version": "1", "session_id": "s", "turns": [
        {"user": "hi", "steps": [{"kind": "llm", "params": {
            "max_tokens": "sixty-four", "temperature": 5, "top_p": 0.9, "stop": ["\\n", 3],
            "stream": True, "my_server_extra": {"any": "thing"}}}]}]})
    problems = dict(check_session(session))
    base = "turns[0].steps[0].params"
    assert set(problems) == {f"{base}.max_tokens", f"{base}.temperature", f"{base}.stop"}
    assert "expected an integer >= 1, got 'sixty-four'" in problems[f"{base}.max_tokens"]
