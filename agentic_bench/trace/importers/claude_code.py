"""Claude Code session logs → sessions (agent trees: subagents become spawned branches).

Source format: the transcripts Claude Code (``@anthropic-ai/claude-code``, CLI 1.0.x – 2.1.x)
appends to ``~/.claude/projects/<project>/<session-uuid>.jsonl``. No official schema exists; the
layout was learnt from the community schemas of ``oneryalcin/agent-schemas``
(``claude-code/v2.1.144/session.schema.json`` and ``claude-code/README.md``: CLI 2.0.76 –
2.1.144), the subagent notes of ``ticpu/claude-conversation-search-mcp``
(``docs/jsonl-format.md``, CLI 2.0.x) and the request reconstruction described in
ai-dynamo/dynamo#10971 ("export Claude sessions as agent-aware request traces"). Each line is
one entry with ``type`` (``user``, ``assistant``, ``system``, ``summary``,
``file-history-snapshot``, ``progress``, ``queue-operation``, ``attachment``, ...), ``uuid``,
``parentUuid``, ``sessionId``, ``timestamp`` (ISO 8601), ``isSidechain``, and for ``user`` /
``assistant`` entries a ``message`` in the Anthropic Messages API shape (content blocks ``text``,
``thinking``, ``tool_use``, ``tool_result``; assistant ``model``, ``id``, ``usage``) and, on
assistant entries, ``requestId``. One streamed reply is written as several assistant lines (one
per content block) that share ``message.id`` / ``requestId``: one API call.

Subagents (the ``Task`` tool, renamed ``Agent`` in 2.1.63) are found in all three layouts:
``<session>/subagents/agent-<agentId>.jsonl`` (2.1.2+, with ``agent-<agentId>.meta.json``
naming the spawning ``toolUseId``), ``<project>/agent-<agentId>.jsonl`` whose ``sessionId`` is
the parent's (2.0.x), and ``isSidechain: true`` entries inside the session file (1.0.x). PATH
is one session file or a project folder (every ``*.jsonl`` but ``agent-*`` is a session).
Reading and validation are here; the mapping to steps is in :mod:`.claude_code_tree`; the
source's own counts for ``traces verify`` in :mod:`.claude_code_profile`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agentic_bench.errors import TraceError
from agentic_bench.trace.importers.common import fail, iter_jsonl
from agentic_bench.trace.jsonl import json_loads
from agentic_bench.trace.model import Session
from agentic_bench.trace.profile import TraceProfile

SOURCE = "claude-code"
SYNTHETIC_MODEL = "<synthetic>"  # Claude Code's own placeholder replies: no API call
# line types that carry no conversation (claude-code/README.md of oneryalcin/agent-schemas)
BOOKKEEPING = frozenset({"queue-operation", "progress", "attachment", "permission-mode",
                         "ai-title", "custom-title", "agent-name", "last-prompt",
                         "agent-setting", "bridge-session", "worktree-state", "pr-link"})
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


# ---------------------------------------------------------------------------------------------
# The importer's entry points


def import_claude_code(path: Path) -> Iterator[Session]:
    """Sessions of a Claude Code session file or project folder (see the module docstring)."""
    from agentic_bench.trace.importers.claude_code_steps import session_of

    files = session_files(Path(path))
    mains = [read_transcript(p) for p in files]
    starts = [min((e.ts for e in t.entries), default=None) for t in mains]
    t_first = min((s for s in starts if s is not None), default=0.0)
    for main, start in zip(mains, starts, strict=True):
        if not main.entries:
            continue  # a file of summaries/snapshots only: nothing was asked
        subs = [read_transcript(p) for p in subagent_files(main.path, set(main.session_ids))]
        session = session_of(main, subs, (start or t_first) - t_first)
        if session is not None:  # None: no API call in it
            yield session


def detect(head: str) -> bool:
    """True when the first complete lines of ``head`` are Claude Code transcript entries: one
    with the entry envelope (``type``, ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``),
    a ``file-history-snapshot`` or a ``summary``, after only Claude Code's bookkeeping lines."""
    for raw in head.splitlines()[:50]:
        try:
            obj = json_loads(raw)
        except ValueError:
            continue  # a blank line, or the last one cut by the sniff
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            return False
        keys = set(obj)
        if {"uuid", "parentUuid", "sessionId", "timestamp"} <= keys:
            return True
        if obj["type"] == "file-history-snapshot" and {"messageId", "snapshot"} <= keys:
            return True
        if obj["type"] == "summary" and "leafUuid" in keys:
            return True
        if obj["type"] not in BOOKKEEPING or "sessionId" not in keys:
            return False
    return False


def profile_source(path: Path) -> TraceProfile:
    """The source's own counts (API calls, subagents, tool calls, tokens, gaps), read from the
    raw lines without the conversion (:mod:`.claude_code_profile`)."""
    from agentic_bench.trace.importers.claude_code_profile import profile

    return profile(Path(path))


import_claude_code.detect = detect  # type: ignore[attr-defined]

__all__ = ["SOURCE", "Entry", "Transcript", "detect", "entry_of", "import_claude_code",
           "is_replayed", "parse_time", "profile_source", "read_transcript", "session_files",
           "subagent_files"]
