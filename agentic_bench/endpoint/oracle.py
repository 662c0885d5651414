"""Replay oracle for the latency simulator: answer each request with its recorded reply.

``agentic-bench sim --replay-trace FILE`` loads an MLCommons agentic JSONL (the MLPerf Edge
Agentic performance data) and indexes every client row's request history by a digest of its
canonical JSON. A chat request whose ``messages`` match a recorded history is answered with the
assistant row that followed it in FILE: ``reasoning_content``, then ``content``, then the tool
calls as OpenAI tool-call deltas, one word-sized piece per streamed chunk (so the simulator's
ttft/itl model times the reply). A history FILE does not hold gets a short text reply that
says so; nothing a client sends makes the oracle raise.

Matching ignores key order and keys whose value is null (``content: null`` beside tool calls
matches an omitted ``content``); everything else must be equal.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_bench.errors import UsageError

_PIECE = re.compile(r"\s*\S+|\s+")


@dataclass(frozen=True)
class OracleAnswer:
    """A scripted reply: the stream's deltas, the whole message, and its finish reason."""

    deltas: list[dict[str, Any]]
    message: dict[str, Any]
    finish_reason: str
    matched: bool


def _digest(message: Any) -> bytes:
    if isinstance(message, dict):
        message = {k: v for k, v in message.items() if v is not None}
    text = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def history_key(messages: list[Any]) -> str:
    """The digest that identifies a request history (order-sensitive, key-order-free)."""
    return hashlib.sha256(b"".join(_digest(m) for m in messages)).hexdigest()


def _pieces(text: str) -> list[str]:
    return _PIECE.findall(text) or [text]


def script(content: str | None, tool_calls: list[dict[str, Any]] | None,
           reasoning: str | None = None) -> OracleAnswer:
    """The streamed deltas and whole message for a reply (first delta carries the role)."""
    deltas: list[dict[str, Any]] = []
    if reasoning:
        deltas += [{"reasoning_content": p} for p in _pieces(reasoning)]
    if content:
        deltas += [{"content": p} for p in _pieces(content)]
    calls = []
    for i, call in enumerate(tool_calls or []):
        fn = call.get("function") or {}
        args = fn.get("arguments", "")
        args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        calls.append({"id": call.get("id") or f"call_{i}", "type": "function",
                      "function": {"name": fn.get("name", ""), "arguments": args}})
        deltas.append({"tool_calls": [{"index": i, "id": calls[-1]["id"], "type": "function",
                                       "function": {"name": fn.get("name", ""),
                                                    "arguments": ""}}]})
        if args:
            deltas += [{"tool_calls": [{"index": i, "function": {"arguments": p}}]}
                       for p in _pieces(args)]
    if not deltas:
        deltas.append({"content": ""})
    deltas[0] = {"role": "assistant", **deltas[0]}
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if reasoning:
        message["reasoning_content"] = reasoning
    if calls:
        message["tool_calls"] = calls
    return OracleAnswer(deltas, message, "tool_calls" if calls else "stop", True)


class ReplayOracle:
    """Recorded replies of a trace, keyed by the history that preceded each of them."""

    def __init__(self, replies: dict[str, OracleAnswer], source: str) -> None:
        self.replies = replies
        self.source = source

    @classmethod
    def from_file(cls, path: Path | str) -> ReplayOracle:
        """Index FILE (MLCommons agentic JSONL); a broken file raises TraceError."""
        from agentic_bench.trace.mlcommons_agentic import (
            load_conversations,
            looks_like_mlcommons_agentic,
        )

        if not looks_like_mlcommons_agentic(path):
            raise UsageError(f"{path}: --replay-trace expects an MLCommons agentic JSONL "
                             "(rows with conversation_id and role)")
        replies: dict[str, OracleAnswer] = {}
        for conv in load_conversations(path):
            for row in conv.rows:
                if row.reply is not None:
                    key = history_key(row.messages)
                    replies.setdefault(key, script(row.reply.content, row.reply.tool_calls,
                                                   row.reply.reasoning_content))
        return cls(replies, str(path))

    def answer(self, body: Any) -> OracleAnswer:
        """The recorded reply for ``body``'s messages, or a text reply saying there is none."""
        messages = body.get("messages") if isinstance(body, dict) else None
        try:
            key = history_key(messages) if isinstance(messages, list) else None
        except (TypeError, ValueError):
            key = None
        found = self.replies.get(key) if key else None
        if found is not None:
            return found
        n = len(messages) if isinstance(messages, list) else 0
        text = (f"oracle: no recorded reply for this history ({n} messages, "
                f"key {str(key)[:12]}) in {Path(self.source).name}")
        miss = script(text, None)
        return OracleAnswer(miss.deltas, miss.message, miss.finish_reason, False)
