"""OpenTelemetry GenAI message encodings → OpenAI chat messages (the shape replay derives).

Three encodings are read, newest first:
- ``gen_ai.input.messages`` / ``gen_ai.output.messages`` / ``gen_ai.system_instructions``
  span attributes (JSON; messages of ``parts``: ``text``, ``tool_call``,
  ``tool_call_response``); OpenAI-shaped messages in the same attributes are accepted too;
- span events ``gen_ai.{system,user,assistant,tool}.message`` and ``gen_ai.choice``
  (attributes ``content``, ``tool_calls``, ``id``, ``message``);
- OpenLLMetry's indexed attributes ``gen_ai.prompt.N.role|content`` and
  ``gen_ai.completion.N.content|tool_calls.M.name|arguments|id``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentic_bench.trace.importers.common import decode_arguments, text_of
from agentic_bench.trace.jsonl import json_loads

EVENT_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
               "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}


class MessageError(ValueError):
    """A message attribute that cannot be read (the caller adds file and span location)."""


def _json(value: Any, name: str) -> Any:
    if isinstance(value, str):
        try:
            return json_loads(value)
        except json.JSONDecodeError as exc:
            raise MessageError(f"{name} is not valid JSON: {exc.msg}") from None
    return value


def _call(raw: dict[str, Any]) -> dict[str, Any]:
    inner = raw.get("function")
    fn: dict[str, Any] = inner if isinstance(inner, dict) else raw
    args = decode_arguments(fn.get("arguments"))
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise MessageError("a tool call has no name")
    call: dict[str, Any] = {"name": name, "arguments": args if args is not None else {}}
    if raw.get("id"):
        call["id"] = str(raw["id"])
    return call


def assistant(content: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """An assistant message exactly as replay derives it from an output."""
    msg: dict[str, Any] = {"role": "assistant", "content": content or ""}
    if calls:
        msg["tool_calls"] = [{"id": c.get("id"), "type": "function", "function": {
            "name": c["name"], "arguments": json.dumps(c["arguments"], ensure_ascii=False)}}
            for c in calls]
    return msg


def _from_message(msg: Any) -> list[dict[str, Any]]:
    """One semconv (parts) or OpenAI message → OpenAI messages (tool responses split)."""
    if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
        raise MessageError("a message needs a role")
    role = msg["role"]
    if "parts" not in msg:  # already OpenAI-shaped
        if role == "assistant":
            calls = [_call(c) for c in msg.get("tool_calls") or []]
            return [assistant(text_of(msg.get("content")), calls)]
        if role == "tool":
            return [{"role": "tool", "tool_call_id": str(msg.get("tool_call_id") or ""),
                     "content": text_of(msg.get("content"))}]
        return [{"role": role, "content": text_of(msg.get("content"))}]
    parts = msg["parts"] if isinstance(msg["parts"], list) else []
    texts = [p.get("content") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
    text = "\n".join(t for t in texts if isinstance(t, str))
    calls = [_call(p) for p in parts if isinstance(p, dict) and p.get("type") == "tool_call"]
    responses = [p for p in parts if isinstance(p, dict)
                 and p.get("type") == "tool_call_response"]
    if responses:
        return [{"role": "tool", "tool_call_id": str(p.get("id") or ""),
                 "content": p["response"] if isinstance(p.get("response"), str)
                 else json.dumps(p.get("response"), ensure_ascii=False)} for p in responses]
    if role == "assistant":
        return [assistant(text, calls)]
    return [{"role": role, "content": text}]


def _messages(value: Any, name: str) -> list[dict[str, Any]]:
    data = _json(value, name)
    if not isinstance(data, list):
        raise MessageError(f"{name} must be a JSON list of messages")
    out: list[dict[str, Any]] = []
    for msg in data:
        out.extend(_from_message(msg))
    return out


def _indexed(attrs: dict[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    pattern = re.compile(rf"^{re.escape(prefix)}\.(\d+)\.(.+)$")
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        m = pattern.match(key)
        if m:
            found.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return found


def _indexed_calls(fields: dict[str, Any]) -> list[dict[str, Any]]:
    calls: dict[int, dict[str, Any]] = {}
    for key, value in fields.items():
        m = re.match(r"^tool_calls\.(\d+)\.(name|arguments|id)$", key)
        if m:
            calls.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return [_call(calls[i]) for i in sorted(calls)]


def input_messages(attrs: dict[str, Any], events: list[tuple[str, dict[str, Any]]],
                   ) -> list[dict[str, Any]] | None:
    """The request history of a chat span, or None when the span carries no content."""
    msgs: list[dict[str, Any]] | None = None
    if "gen_ai.input.messages" in attrs:
        msgs = _messages(attrs["gen_ai.input.messages"], "gen_ai.input.messages")
    elif any(name in EVENT_ROLES for name, _ in events):
        msgs = []
        for name, ev in events:
            role = EVENT_ROLES.get(name)
            if role is None:
                continue
            raw = _json(ev["message"], name) if "message" in ev else {
                "content": ev.get("content"), "tool_calls": _json(ev.get("tool_calls"), name),
                "tool_call_id": ev.get("id", ev.get("tool_call_id"))}
            msgs.extend(_from_message({**raw, "role": role}))
    else:
        prompts = _indexed(attrs, "gen_ai.prompt")
        if prompts:
            msgs = []
            for i in sorted(prompts):
                fields = prompts[i]
                msg = {"role": fields.get("role", "user"), "content": fields.get("content")}
                if fields.get("tool_call_id"):
                    msg["tool_call_id"] = fields["tool_call_id"]
                msgs.extend(_from_message(msg))
    if msgs is not None and "gen_ai.system_instructions" in attrs:
        sys_parts = _json(attrs["gen_ai.system_instructions"], "gen_ai.system_instructions")
        text = text_of(sys_parts) if not isinstance(sys_parts, str) else sys_parts
        msgs.insert(0, {"role": "system", "content": text})
    return msgs


def output(attrs: dict[str, Any], events: list[tuple[str, dict[str, Any]]],
           ) -> tuple[str, list[dict[str, Any]]] | None:
    """``(content, tool calls)`` of a chat span's first choice, or None when absent."""
    msg: dict[str, Any] | None = None
    if "gen_ai.output.messages" in attrs:
        out = _messages(attrs["gen_ai.output.messages"], "gen_ai.output.messages")
        msg = next((m for m in out if m["role"] == "assistant"), None)
    else:
        choice = next((ev for name, ev in events if name == "gen_ai.choice"), None)
        if choice is not None:
            raw = _json(choice.get("message"), "gen_ai.choice") if "message" in choice else {
                "content": choice.get("content"),
                "tool_calls": _json(choice.get("tool_calls"), "gen_ai.choice")}
            msg = _from_message({**raw, "role": "assistant"})[0]
        else:
            completions = _indexed(attrs, "gen_ai.completion")
            if completions:
                first = completions[min(completions)]
                msg = assistant(text_of(first.get("content")), _indexed_calls(first))
    if msg is None:
        return None
    calls = [_call(c) for c in msg.get("tool_calls", [])]
    return msg.get("content") or "", calls
