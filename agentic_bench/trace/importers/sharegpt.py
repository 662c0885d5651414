"""ShareGPT conversations → sessions.

Input: a JSON array (or JSONL) of ``{"id": ..., "conversations": [{"from": "human" | "gpt" |
"system", "value": "..."}]}``. Each human message starts a turn; the gpt reply that follows
is the turn's recorded ``llm`` output. Consecutive human messages are joined into one turn
(blank line between), leading gpt messages (before any human one) are dropped, a trailing
human message gets an ``llm`` step without a recorded output. Conversations without a human
message are skipped and counted in the log line the CLI prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.common import (
    build_session,
    fail,
    first_char,
    iter_jsonl,
    load_json,
)
from agentic_bench.trace.model import Session

HUMAN = {"human", "user"}
GPT = {"gpt", "assistant", "chatgpt", "bard", "bing", "model"}
SYSTEM = {"system"}


def _records(path: Path) -> Iterator[tuple[int, str, Any]]:
    """(line for errors, JSON path prefix, record) for JSON arrays and JSONL alike."""
    if first_char(path) == "[":
        data = load_json(path)
        for i, rec in enumerate(data):
            yield 0, f"[{i}].", rec
    else:
        for line, rec in iter_jsonl(path):
            yield line, "", rec


def import_sharegpt(path: Path) -> Iterator[Session]:
    for index, (line, where, rec) in enumerate(_records(path)):
        if not isinstance(rec, dict):
            raise fail(path, line, where.rstrip("."), "expected an object with 'conversations'")
        convo = rec.get("conversations", rec.get("conversation"))
        if not isinstance(convo, list):
            raise fail(path, line, f"{where}conversations", "missing or not a list")
        session = _session(path, line, where, rec, convo, index)
        if session is not None:
            yield session


def _session(path: Path, line: int, where: str, rec: dict[str, Any], convo: list[Any],
             index: int) -> Session | None:
    system_parts: list[str] = []
    turns: list[dict[str, Any]] = []
    dropped = 0
    awaiting_reply = False
    for i, msg in enumerate(convo):
        loc = f"{where}conversations[{i}]"
        if not isinstance(msg, dict):
            raise fail(path, line, loc, "expected {from, value}")
        role = msg.get("from", msg.get("role"))
        value = msg.get("value", msg.get("content"))
        if not isinstance(value, str):
            raise fail(path, line, f"{loc}.value", "missing or not a string")
        if role in SYSTEM:
            system_parts.append(value)
        elif role in HUMAN:
            if awaiting_reply:
                turns[-1]["user"] += "\n\n" + value
            else:
                turns.append({"user": value, "steps": [{"kind": "llm"}]})
                awaiting_reply = True
        elif role in GPT:
            if not awaiting_reply:
                dropped += 1
                continue
            turns[-1]["steps"][0]["output"] = {"content": value}
            awaiting_reply = False
        else:
            raise fail(path, line, f"{loc}.from", f"unknown speaker {role!r} (expected "
                       "human, gpt or system)")
    if not turns:
        return None
    sid = rec.get("id")
    metadata: dict[str, Any] = {"source": "sharegpt"}
    if line:
        metadata["source_line"] = line
    else:
        metadata["source_index"] = index
    if dropped:
        metadata["dropped_messages"] = dropped
    data: dict[str, Any] = {"session_id": str(sid) if sid not in (None, "") else
                            f"sharegpt-{index}", "turns": turns, "metadata": metadata}
    if system_parts:
        data["system"] = "\n\n".join(system_parts)
    return build_session(data, path, line)
