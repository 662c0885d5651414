"""Shared pieces of the importers: located errors, JSON/JSONL reading, tool declarations.

Every importer raises :class:`TraceError` for a broken input, with ``file:line`` for JSONL
(and JSON syntax errors) or ``file:0: <JSON path>`` for a structural problem inside a single
JSON document, and yields sessions that pass :func:`check_session`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentic_bench.errors import TraceError, TraceProblem
from agentic_bench.trace.jsonl import (
    DEFAULT_MAX_LINE_BYTES,
    iter_raw_lines,
    json_loads,
    malformed_json_message,
)
from agentic_bench.trace.model import SCHEMA_VERSION, Session
from agentic_bench.trace.semantics import check_session


def fail(path: Path | str, line: int, field: str, message: str) -> TraceError:
    """A TraceError for one problem (raise the result)."""
    return TraceError([TraceProblem(str(path), line, field, message)])


def iter_jsonl(path: Path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
               ) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line; a bad line raises."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise fail(path, 0, "", f"cannot open: {exc.strerror}") from None
    with fh:
        for raw in iter_raw_lines(fh, max_line_bytes):
            if raw.data is None:
                raise fail(path, raw.lineno, "", f"line is {raw.size} bytes, over the cap")
            try:
                text = raw.data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise fail(path, raw.lineno, "", f"not valid UTF-8 (byte {exc.start})") from None
            if not text.strip():
                continue
            try:
                obj = json_loads(text.rstrip("\r\n"))
            except json.JSONDecodeError as exc:
                raise fail(path, raw.lineno, "", malformed_json_message(exc)) from None
            if not isinstance(obj, dict):
                raise fail(path, raw.lineno, "",
                           f"expected a JSON object, got {type(obj).__name__}")
            yield raw.lineno, obj


def load_json(path: Path) -> Any:
    """Parse a whole JSON document; a syntax error raises with its line number."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise fail(path, 0, "", f"cannot open: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise fail(path, 0, "", f"not valid UTF-8 (byte {exc.start})") from None
    try:
        return json_loads(text)
    except json.JSONDecodeError as exc:
        raise fail(path, exc.lineno, "",
                   f"malformed JSON: {exc.msg} at column {exc.colno}") from None


def first_char(path: Path) -> str:
    """The first non-blank character of a file ('' when empty)."""
    with open(path, "rb") as fh:
        while chunk := fh.read(4096):
            stripped = chunk.lstrip()
            if stripped:
                return chunk.lstrip()[:1].decode("latin-1")
    return ""


def text_of(content: Any) -> str:
    """Message content as text: strings as is, OpenAI/OTel part lists joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                value = block.get("text", block.get("content"))
                if isinstance(value, str):
                    parts.append(value)
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def decode_arguments(raw: Any) -> dict[str, Any] | None:
    """Tool-call arguments as a dict (JSON string or dict); None when not an object."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if isinstance(raw, str):
        try:
            value = json_loads(raw)
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None
    return None


def openai_tool_call(call: Any, path: Path | str, line: int, where: str) -> dict[str, Any]:
    """An OpenAI ``{id, type, function: {name, arguments}}`` call (or a flat one) as a dict."""
    if not isinstance(call, dict):
        raise fail(path, line, where, "a tool call must be an object")
    fn = call.get("function", call)
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
        raise fail(path, line, f"{where}.function.name", "missing or empty tool name")
    args = decode_arguments(fn.get("arguments"))
    if args is None:
        raise fail(path, line, f"{where}.function.arguments",
                   "arguments must be a JSON object (or a string holding one)")
    cid = call.get("id")
    out: dict[str, Any] = {"name": fn["name"], "arguments": args}
    if cid not in (None, ""):
        out["id"] = str(cid)
    return out


def stub_tool(name: str) -> dict[str, Any]:
    """A minimal declaration for a tool the source used but never described."""
    return {"type": "function", "function": {
        "name": name, "description": "(declaration not in the source trace)",
        "parameters": {"type": "object", "properties": {}}}}


def declare_tools(tools: list[dict[str, Any]],
                  used: Iterable[str]) -> tuple[list[dict[str, Any]], int]:
    """``tools`` plus a stub for every used name not declared; returns (tools, stubs added)."""
    declared = set()
    for tool in tools:
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            declared.add(fn["name"])
    out = list(tools)
    added = 0
    for name in used:
        if name not in declared:
            out.append(stub_tool(name))
            declared.add(name)
            added += 1
    return out, added


def used_tool_names(session: dict[str, Any]) -> list[str]:
    """Every tool name the session's steps use, fan-out branches included."""
    names: list[str] = []
    for turn in session.get("turns", []):
        _step_tool_names(turn.get("steps", []), names)
    return names


def _step_tool_names(steps: list[dict[str, Any]], names: list[str]) -> None:
    for step in steps:
        if step.get("kind") == "llm":
            names.extend(c["name"] for c in step.get("output", {}).get("tool_calls", []))
        elif step.get("kind") == "tool":
            names.append(step["name"])
        elif step.get("kind") == "parallel":
            for branch in step.get("branches", []):
                _step_tool_names(branch.get("steps", []), names)
        elif step.get("kind") == "spawn":  # a subagent's own tool calls
            _step_tool_names(step.get("branch", {}).get("steps", []), names)


def build_session(data: dict[str, Any], path: Path | str, line: int) -> Session:
    """Validate a session dict (schema + semantics); problems raise at ``path:line``."""
    data = {"schema_version": SCHEMA_VERSION, **data}
    tools, added = declare_tools(data.get("tools") or [], used_tool_names(data))
    data["tools"] = tools
    if added:
        meta = dict(data.get("metadata") or {})
        meta["stub_tool_declarations"] = added
        data["metadata"] = meta
    try:
        session = Session.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise fail(path, line, loc, f"imported session is invalid: {err['msg']}") from None
    problems = check_session(session)
    if problems:
        raise TraceError([TraceProblem(str(path), line, f, m) for f, m in problems])
    return session


def drop_derivable_messages(session: Session) -> Session:
    """Remove each ``llm`` step's recorded ``messages`` when replay would derive exactly them.

    Keeps traces small (derived histories are O(n) per session, recorded ones O(n²)) without
    changing a byte of what a ``--history recorded`` replay sends.
    """
    from agentic_bench.trace.history import messages_before

    for ti, turn in enumerate(session.turns):
        for si, step in enumerate(turn.steps):
            if step.kind != "llm" or step.messages is None:
                continue
            recorded = step.messages
            step.messages = None
            if messages_before(session, ti, si) != recorded:
                step.messages = recorded
    return session
