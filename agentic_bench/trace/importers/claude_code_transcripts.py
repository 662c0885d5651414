"""Reading and validation of Claude Code transcripts (the format is described in
:mod:`.claude_code`'s docstring): each ``user``/``assistant`` line as a checked :class:`Entry`,
one file as a :class:`Transcript`, and which files make a session (the main session files a
PATH names, each one's subagent transcripts). The mapping to steps (:mod:`.claude_code_tree`,
:mod:`.claude_code_steps`), the source's own counts (:mod:`.claude_code_profile`) and the
importer's entry points (:mod:`.claude_code`) build on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agentic_bench.errors import TraceError
from agentic_bench.trace.importers.common import fail, iter_jsonl
from agentic_bench.trace.jsonl import json_loads

SOURCE = "claude-code"
SYNTHETIC_MODEL = "<synthetic>"  # Claude Code's own placeholder replies: no API call
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens",
                "cache_creation_input_tokens")


@dataclass(eq=False)
class Entry:
    """One ``user`` or ``assistant`` line of a transcript, validated."""

    path: Path
    line: int
    kind: str
    uuid: str
    parent: str | None
    ts: float  # seconds since the epoch
    sidechain: bool
    agent_id: str | None
    message: dict[str, Any]
    raw: dict[str, Any]

    @property
    def blocks(self) -> list[dict[str, Any]]:
        content = self.message.get("content")
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        return list(content or [])

    @property
    def key(self) -> str:
        """The API call an assistant line belongs to (``message.id``, else ``requestId``)."""
        mid = self.message.get("id")
        return mid if isinstance(mid, str) and mid else str(self.raw.get("requestId"))


@dataclass
class Transcript:
    """The conversation entries of one file and what the file says about itself."""

    path: Path
    entries: list[Entry] = field(default_factory=list)
    session_ids: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)  # cwd, version, gitBranch
    compactions: int = 0
    skipped: int = 0  # synthetic replies, API error placeholders, transcript-only lines
    meta: dict[str, Any] = field(default_factory=dict)  # agent-<id>.meta.json


def parse_time(value: Any) -> float | None:
    """An ISO 8601 timestamp (``...Z`` or with an offset) as epoch seconds; None if not one."""
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp.timestamp() if stamp.tzinfo else None


def _check_blocks(path: Path, line: int, kind: str, content: Any) -> None:
    if kind == "user" and isinstance(content, str):
        return
    if not isinstance(content, list):
        want = "a string or a list of content blocks" if kind == "user" else "a list of blocks"
        raise fail(path, line, "message.content", f"expected {want}")
    for i, block in enumerate(content):
        where = f"message.content[{i}]"
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise fail(path, line, f"{where}.type", "a content block needs a string type")
        if block["type"] == "tool_use":
            for key in ("id", "name"):
                if not isinstance(block.get(key), str) or not block[key]:
                    raise fail(path, line, f"{where}.{key}", "missing or not a string")
            if not isinstance(block.get("input", {}), dict):
                raise fail(path, line, f"{where}.input", "tool input must be a JSON object")
        elif block["type"] == "tool_result":
            if not isinstance(block.get("tool_use_id"), str) or not block["tool_use_id"]:
                raise fail(path, line, f"{where}.tool_use_id", "missing or not a string")
        elif block["type"] == "text" and not isinstance(block.get("text", ""), str):
            raise fail(path, line, f"{where}.text", "not a string")


def _check_assistant(path: Path, line: int, obj: dict[str, Any], msg: dict[str, Any]) -> None:
    if not any(isinstance(v, str) and v for v in (msg.get("id"), obj.get("requestId"))):
        raise fail(path, line, "message.id", "missing: an assistant line needs message.id or "
                   "requestId (the API call it belongs to)")
    usage = msg.get("usage")
    if usage is None:
        return
    if not isinstance(usage, dict):
        raise fail(path, line, "message.usage", "expected an object")
    for name in USAGE_FIELDS:
        value = usage.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or value < 0):
            raise fail(path, line, f"message.usage.{name}",
                       f"expected an integer >= 0, got {value!r}")


def entry_of(path: Path, line: int, obj: dict[str, Any]) -> Entry | None:
    """The validated entry of a ``user``/``assistant`` line; None for any other line type."""
    kind = obj.get("type")
    if not isinstance(kind, str) or not kind:
        raise fail(path, line, "type", "missing or not a string")
    if kind not in ("user", "assistant"):
        return None
    ts = parse_time(obj.get("timestamp"))
    if ts is None:
        raise fail(path, line, "timestamp",
                   f"missing or not an ISO 8601 time with a zone: {obj.get('timestamp')!r}")
    msg = obj.get("message")
    if not isinstance(msg, dict):
        raise fail(path, line, "message", "missing or not an object")
    _check_blocks(path, line, kind, msg.get("content"))
    if kind == "assistant":
        _check_assistant(path, line, obj, msg)
    parent = obj.get("parentUuid")
    agent = obj.get("agentId")
    return Entry(path, line, kind, str(obj.get("uuid") or ""),
                 parent if isinstance(parent, str) and parent else None, ts,
                 obj.get("isSidechain") is True, agent if isinstance(agent, str) and agent
                 else None, msg, obj)


def is_replayed(entry: Entry) -> bool:
    """False for lines that were never part of an API exchange: Claude Code's synthetic
    replies (model ``<synthetic>``, API error placeholders) and transcript-only user lines."""
    if entry.kind == "assistant":
        return not (entry.message.get("model") == SYNTHETIC_MODEL
                    or entry.raw.get("isApiErrorMessage") is True)
    return entry.raw.get("isVisibleInTranscriptOnly") is not True


def read_transcript(path: Path) -> Transcript:
    """Every conversation entry of one file, in file order (a broken line raises)."""
    out = Transcript(path)
    for line, obj in iter_jsonl(path):
        entry = entry_of(path, line, obj)
        sid = obj.get("sessionId")
        if isinstance(sid, str) and sid and sid not in out.session_ids:
            out.session_ids.append(sid)
        if obj.get("type") == "system" and obj.get("subtype") == "compact_boundary":
            out.compactions += 1
        if entry is None:
            continue
        for key in ("cwd", "version", "gitBranch"):
            if isinstance(obj.get(key), str) and obj[key] and key not in out.info:
                out.info[key] = obj[key]
        if is_replayed(entry):
            out.entries.append(entry)
        else:
            out.skipped += 1
    meta_path = path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
    if path.name.endswith(".jsonl") and meta_path.is_file():
        try:
            meta = json_loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = None
        out.meta = meta if isinstance(meta, dict) else {}
    return out


# ---------------------------------------------------------------------------------------------
# Which files make a session


def session_files(path: Path) -> list[Path]:
    """The main session files PATH names: itself, or a project folder's ``*.jsonl``."""
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.glob("*.jsonl")
                   if p.is_file() and not p.name.startswith(("agent-", ".")))
    if not files:
        raise fail(path, 0, "", "no Claude Code session files (<session-uuid>.jsonl) in this "
                   "folder")
    return files


def _file_session_id(path: Path) -> str | None:
    try:
        for _, obj in iter_jsonl(path):
            sid = obj.get("sessionId")
            if isinstance(sid, str) and sid:
                return sid
    except TraceError:
        return None
    return None


def subagent_files(main: Path, session_ids: set[str]) -> list[Path]:
    """The subagent transcripts of a session file: ``<stem>/subagents/agent-*.jsonl`` (2.1.2+)
    and sibling ``agent-*.jsonl`` files whose ``sessionId`` is the session's (2.0.x)."""
    if main.name.startswith("agent-"):
        return []
    folder = main.parent / main.name[: -len(".jsonl")] / "subagents"
    found = sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []
    ids = session_ids | {main.name[: -len(".jsonl")]}
    found += [p for p in sorted(main.parent.glob("agent-*.jsonl"))
              if p.is_file() and _file_session_id(p) in ids]
    return found


__all__ = ["SOURCE", "SYNTHETIC_MODEL", "USAGE_FIELDS", "Entry", "Transcript", "entry_of",
           "is_replayed", "parse_time", "read_transcript", "session_files", "subagent_files"]
