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
Reading and validation are in :mod:`.claude_code_transcripts`; the mapping to steps in
:mod:`.claude_code_tree` and :mod:`.claude_code_steps`; the source's own counts for ``traces
verify`` in :mod:`.claude_code_profile`; the importer's entry points here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentic_bench.trace.importers.claude_code_profile import profile
from agentic_bench.trace.importers.claude_code_steps import session_of
from agentic_bench.trace.importers.claude_code_transcripts import (
    SOURCE,
    Entry,
    Transcript,
    entry_of,
    is_replayed,
    parse_time,
    read_transcript,
    session_files,
    subagent_files,
)
from agentic_bench.trace.jsonl import json_loads
from agentic_bench.trace.model import Session
from agentic_bench.trace.profile import TraceProfile

# line types that carry no conversation (claude-code/README.md of oneryalcin/agent-schemas)
BOOKKEEPING = frozenset({"queue-operation", "progress", "attachment", "permission-mode",
                         "ai-title", "custom-title", "agent-name", "last-prompt",
                         "agent-setting", "bridge-session", "worktree-state", "pr-link"})


# ---------------------------------------------------------------------------------------------
# The importer's entry points


def import_claude_code(path: Path) -> Iterator[Session]:
    """Sessions of a Claude Code session file or project folder (see the module docstring)."""
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
    return profile(Path(path))


import_claude_code.detect = detect  # type: ignore[attr-defined]

__all__ = ["SOURCE", "Entry", "Transcript", "detect", "entry_of", "import_claude_code",
           "is_replayed", "parse_time", "profile_source", "read_transcript", "session_files",
           "subagent_files"]
