"""The fidelity profile of Claude Code session logs, counted on the raw lines.

Independent of the conversion (:mod:`.claude_code_tree`): it reads each file's JSON lines as
plain objects and counts, per session file and its subagent transcripts (files and inline
``isSidechain`` entries, found as :func:`.claude_code_transcripts.subagent_files` finds them):

* a request per distinct ``message.id`` (else ``requestId``) of the assistant lines of one
  transcript, Claude Code's synthetic replies (model ``<synthetic>``, ``isApiErrorMessage``)
  left out; its tokens from its last line's ``usage`` (input = ``input_tokens`` + cache read +
  cache creation);
* a subagent per transcript with at least one request; a tool call per distinct ``tool_use``
  id;
* a gap per pair of consecutive requests of one transcript: from the end of the first (its
  last line) to the start of the next (the last user line before its first line, else the
  first's end).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.claude_code_transcripts import (
    SYNTHETIC_MODEL,
    parse_time,
    session_files,
    subagent_files,
)
from agentic_bench.trace.importers.common import iter_jsonl
from agentic_bench.trace.profile import TraceProfile

NOTES = [
    "Claude Code logs hold no system prompt and no tool schemas: a replay sends less input "
    "than the recorded input_tokens, which count them (and the thinking blocks it drops)",
    "input tokens = input_tokens + cache_read_input_tokens + cache_creation_input_tokens of "
    "each call's last line",
    "no request send time or TTFT is logged: a call starts at the last user line (prompt or "
    "tool result) before its first line and ends at its last line",
]


def _rows(path: Path) -> list[dict[str, Any]]:
    return [obj for _, obj in iter_jsonl(path)]


def _starts_sidechain(row: dict[str, Any]) -> bool:
    content = (row.get("message") or {}).get("content")
    results = isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    return row.get("type") == "user" and row.get("parentUuid") is None and not results


def _sidechains(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Inline sidechains: by ``agentId``, else a new one at each root prompt, a row following
    its parent's (or, parent unknown, the latest one)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    owner: dict[Any, str] = {}
    latest = ""
    for n, row in enumerate(rows):
        if row.get("type") not in ("user", "assistant"):
            continue
        if row.get("agentId"):
            key = f"a:{row['agentId']}"
        elif row.get("parentUuid") in owner:
            key = owner[row["parentUuid"]]
        elif _starts_sidechain(row) or not latest:
            key = f"r:{n}"
        else:
            key = latest
        owner[row.get("uuid")] = latest = key
        groups.setdefault(key, []).append(row)
    return list(groups.values())


def _key(row: dict[str, Any]) -> str:
    msg = row.get("message") or {}
    return str(msg.get("id") or row.get("requestId"))


def _count(rows: list[dict[str, Any]], prof: TraceProfile) -> int:
    """Add one transcript's requests, tokens, tool calls and gaps; return its request count."""
    calls: dict[str, dict[str, Any]] = {}  # key -> first row index, trigger, last row, end
    order: list[str] = []
    seen: set[Any] = set()
    tools: set[str] = set()
    last_user: tuple[int, float] | None = None
    for n, row in enumerate(rows):
        if row.get("type") not in ("user", "assistant") or (row.get("uuid") and
                                                             row["uuid"] in seen):
            continue
        seen.add(row.get("uuid"))
        ts = parse_time(row.get("timestamp")) or 0.0
        msg = row.get("message") or {}
        if row["type"] == "user":
            if row.get("isVisibleInTranscriptOnly") is not True:
                last_user = (n, ts)
            continue
        if msg.get("model") == SYNTHETIC_MODEL or row.get("isApiErrorMessage") is True:
            continue
        key = _key(row)
        if key not in calls:
            prev = calls[order[-1]] if order else None
            fresh = last_user is not None and (prev is None or last_user[0] > prev["at"])
            calls[key] = {"at": n, "first": ts, "trigger": last_user[1] if fresh and last_user
                          else None, "prev": order[-1] if order else None, "end": ts}
            order.append(key)
        calls[key]["end"] = max(calls[key]["end"], ts)
        calls[key]["usage"] = msg.get("usage")
        for block in msg.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                tools.add(str(block.get("id")))
    for i, key in enumerate(order):
        call = calls[key]
        usage = call["usage"] if isinstance(call["usage"], dict) else None
        prof.input_tokens.append(None if usage is None else sum(usage.get(k) or 0 for k in (
            "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")))
        prof.output_tokens.append(None if usage is None else usage.get("output_tokens") or 0)
        if i:
            prev = calls[order[i - 1]]
            start = call["trigger"] if call["trigger"] is not None else prev["end"]
            prof.gaps_s.append(round(max(0.0, min(start, call["first"]) - prev["end"]), 6))
    prof.requests += len(order)
    prof.tool_calls += len(tools)
    return len(order)


def profile(path: Path) -> TraceProfile:
    """Sessions, trees, requests, subagents, tool calls, tokens and gaps of PATH's logs."""
    prof = TraceProfile(notes=list(NOTES))
    for main in session_files(path):
        rows = _rows(main)
        ids = {str(r["sessionId"]) for r in rows if isinstance(r.get("sessionId"), str)}
        thread = [r for r in rows if r.get("isSidechain") is not True]
        inline = [r for r in rows if r.get("isSidechain") is True]
        if not thread:
            thread, inline = rows, []
        probe = TraceProfile()
        if not _count(thread, probe):
            continue  # the importer yields no session for it
        prof.sessions += 1
        _count(thread, prof)
        subs = _sidechains(inline) + [_rows(p) for p in subagent_files(main, ids)]
        found = sum(1 for sub in subs if _count(sub, prof))
        prof.subagents += found
        prof.trees += 1 if found else 0
    return prof


__all__ = ["NOTES", "profile"]
