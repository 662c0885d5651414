"""Reading OpenAI Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Format (openai/codex, ``codex-rs/protocol/src/protocol.rs`` at edb4efee ``RolloutLine`` /
``RolloutItem`` / ``SessionMeta``; writer ``codex-rs/core/src/rollout/recorder.rs`` at 035416bf;
persistence policy ``codex-rs/rollout/src/policy.rs`` at 0136a731): one JSON object a line,
``{"timestamp", "type", "payload"}`` with ``type`` one of ``session_meta`` (first line: the
thread id, cwd, originator, cli_version, source, base_instructions ...), ``response_item`` (what
the model saw and produced: messages, function calls and their outputs, reasoning ...),
``event_msg`` (``token_count`` with per-call usage, ``user_message`` ...), ``turn_context``
(model, cwd per turn) and ``compacted`` (a compaction and its replacement history). The legacy
format (``codex-rs/core/src/rollout.rs`` at 89a151f5, mid-2025) has the session meta as a bare
first line ``{id, timestamp, instructions?, git?}``, then bare response items and
``{"record_type": "state"}`` lines, with no timestamps and no token counts.

This module parses and validates lines (errors name file, line and field), separates the
history a forked or subagent rollout copies from its parent (the *replay gate*), reads the
subagent link (``source.subagent.thread_spawn.parent_thread_id``) and finds rollout files.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.common import decode_arguments, fail, iter_jsonl
from agentic_bench.trace.jsonl import json_loads

KINDS = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
# response items the model produces (one model call's output) and those that feed it
OUTPUT_ITEMS = frozenset({"reasoning", "function_call", "custom_tool_call", "local_shell_call",
                          "web_search_call", "tool_search_call", "image_generation_call"})
CALL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call",
                        "tool_search_call"})
OUTPUT_RESULT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output",
                                 "tool_search_output"})
LEGACY_META_KEYS = frozenset({"id", "timestamp", "instructions", "git"})
_HEAD = re.compile(r'\s*\{"timestamp":"[^"]*","type":"(' + "|".join(KINDS) + r')","payload":\{')


@dataclass
class Line:
    """One rollout line: its number, time (epoch seconds; None in the legacy format), kind and
    payload."""

    no: int
    ts: float | None
    kind: str
    payload: dict[str, Any]

    @property
    def item_type(self) -> str:
        return str(self.payload.get("type", ""))

    def is_output(self) -> bool:
        """A response item the model produced (assistant message, call, reasoning ...)."""
        if self.kind != "response_item":
            return False
        if self.item_type == "message":
            return self.payload.get("role") == "assistant"
        return self.item_type in OUTPUT_ITEMS

    def is_input(self) -> bool:
        """A response item that feeds the next model call (a non-assistant message, a tool
        result)."""
        if self.kind != "response_item":
            return False
        if self.item_type == "message":
            return self.payload.get("role") != "assistant"
        return self.item_type in OUTPUT_RESULT_ITEMS


@dataclass
class Rollout:
    """One rollout file: its canonical session meta, its own lines (after the replay gate), the
    copied parent history (forks), and the token total the copied part ended at."""

    path: Path
    meta: dict[str, Any]
    lines: list[Line]
    prefix: list[Line] = field(default_factory=list)
    baseline_total: tuple[int, ...] | None = None
    legacy: bool = False
    start_ts: float | None = None

    @property
    def thread_id(self) -> str:
        return str(self.meta["id"])

    @property
    def parent_id(self) -> str | None:
        return parent_of(self.meta)


def parent_of(meta: dict[str, Any]) -> str | None:
    """The parent thread of a spawned subagent (``source.subagent.thread_spawn``)."""
    source = meta.get("source")
    if isinstance(source, dict):
        sub = source.get("subagent")
        if isinstance(sub, dict):
            spawn = sub.get("thread_spawn")
            if isinstance(spawn, dict) and spawn.get("parent_thread_id"):
                return str(spawn["parent_thread_id"])
    parent = meta.get("parent_thread_id")
    return str(parent) if parent else None


def spawn_info(meta: dict[str, Any]) -> dict[str, Any]:
    """``thread_spawn`` details of a subagent's source (depth, nickname, role), else {}."""
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    return dict(spawn) if isinstance(spawn, dict) else {}


def parse_ts(path: Path, no: int, value: Any, where: str = "timestamp") -> float:
    if not isinstance(value, str):
        raise fail(path, no, where, f"missing or not a string: {value!r}")
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise fail(path, no, where, f"not an ISO 8601 time: {value!r}") from None


def uuid7_ms(value: Any) -> int | None:
    """The millisecond timestamp of a UUIDv7 (thread and turn ids are v7 in newer Codex)."""
    try:
        u = uuid.UUID(str(value))
    except ValueError:
        return None
    return u.int >> 80 if u.version == 7 else None


def _need(path: Path, no: int, obj: dict[str, Any], key: str, kind: type | tuple[type, ...],
          where: str) -> None:
    if not isinstance(obj.get(key), kind):
        raise fail(path, no, f"{where}.{key}", f"missing or wrong type: {obj.get(key)!r}")


def check_item(path: Path, no: int, item: dict[str, Any], where: str = "payload") -> None:
    """Validate the fields of a response item the importer reads."""
    kind = item.get("type")
    if kind == "message":
        _need(path, no, item, "role", str, where)
        _need(path, no, item, "content", (list, str), where)
    elif kind in ("function_call", "custom_tool_call"):
        _need(path, no, item, "name", str, where)
        _need(path, no, item, "call_id", str, where)
        if kind == "function_call" and decode_arguments(item.get("arguments")) is None:
            raise fail(path, no, f"{where}.arguments",
                       "arguments must be a JSON object (or a string holding one)")
        if kind == "custom_tool_call":
            _need(path, no, item, "input", str, where)
    elif kind == "local_shell_call":
        _need(path, no, item, "action", dict, where)
    elif kind in OUTPUT_RESULT_ITEMS:
        _need(path, no, item, "call_id", str, where)


def _check_usage(path: Path, no: int, usage: Any, where: str) -> None:
    if usage is None:
        return
    if not isinstance(usage, dict):
        raise fail(path, no, where, "must be an object")
    for key in ("input_tokens", "output_tokens"):
        value = usage.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise fail(path, no, f"{where}.{key}", f"must be an integer >= 0, got {value!r}")


def check_event(path: Path, no: int, event: dict[str, Any]) -> None:
    if event.get("type") != "token_count":
        return
    info = event.get("info")
    if isinstance(info, dict):
        _check_usage(path, no, info.get("last_token_usage"), "payload.info.last_token_usage")
    elif info is None and "input_tokens" in event:  # the early flat TokenUsage event
        _check_usage(path, no, event, "payload")


def _lines(path: Path) -> tuple[list[Line], bool]:
    out: list[Line] = []
    legacy = False
    for no, obj in iter_jsonl(path):
        if not out:
            legacy = "payload" not in obj and "type" not in obj
        if legacy:
            if not out:
                if not isinstance(obj.get("id"), str) or not obj["id"]:
                    raise fail(path, no, "id", "missing: the first line is not a Codex "
                               "session meta")
                out.append(Line(no, None, "session_meta", obj))
            elif "record_type" in obj:
                continue
            else:
                if not isinstance(obj.get("type"), str):
                    raise fail(path, no, "type", "missing: not a Codex response item")
                check_item(path, no, obj, "")
                out.append(Line(no, None, "response_item", obj))
            continue
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise fail(path, no, "type", f"missing or not a string: {kind!r}")
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            raise fail(path, no, "payload", "missing or not an object")
        ts = parse_ts(path, no, obj.get("timestamp"))
        if not out and kind != "session_meta":
            raise fail(path, no, "type", f"the first line must be session_meta, not {kind!r}")
        if kind == "session_meta" and (not isinstance(payload.get("id"), str)
                                       or not payload["id"]):
            raise fail(path, no, "payload.id", "missing: a session meta needs the thread id")
        if kind == "response_item":
            check_item(path, no, payload)
        elif kind == "event_msg":
            check_event(path, no, payload)
        elif kind == "compacted":
            history = payload.get("replacement_history")
            for i, item in enumerate(history if isinstance(history, list) else []):
                where = f"payload.replacement_history[{i}]"
                if not isinstance(item, dict):
                    raise fail(path, no, where, "must be an object")
                check_item(path, no, item, where)
        if kind in KINDS:  # newer, unknown kinds are skipped
            out.append(Line(no, ts, kind, payload))
    if not out:
        raise fail(path, 0, "", "empty file: not a Codex rollout")
    return out, legacy


def _turn_id(line: Line) -> Any:
    if line.kind == "turn_context" or (
            line.kind == "event_msg" and line.item_type in ("task_started", "turn_started")):
        return line.payload.get("turn_id")
    return None


def token_total(payload: dict[str, Any]) -> tuple[int, ...] | None:
    info = payload.get("info")
    total = info.get("total_token_usage") if isinstance(info, dict) else None
    if not isinstance(total, dict):
        return None
    return tuple(int(v) for k, v in sorted(total.items()) if isinstance(v, int))


def _gate(rest: list[Line], meta: dict[str, Any]) -> tuple[list[Line], list[Line]]:
    """Split the lines after the first session meta into (copied history, own lines).

    A forked rollout (``forked_from_id``) or one holding a copied parent ``session_meta``
    replays the parent's history before its own turns, re-stamped with the fork time. Its own
    part starts at the first turn (``turn_context`` / ``task_started`` / ``turn_started``)
    whose turn id, a UUIDv7, was minted at or after the rollout's own id; without v7 ids only
    the copied meta lines are set aside."""
    metas = [i for i, line in enumerate(rest) if line.kind == "session_meta"]
    if not metas and not meta.get("forked_from_id"):
        return [], rest
    own_ms = uuid7_ms(meta.get("id"))
    if own_ms is not None:
        for i, line in enumerate(rest):
            turn_ms = uuid7_ms(_turn_id(line))
            if turn_ms is not None and turn_ms >= own_ms:
                return ([x for x in rest[:i] if x.kind != "session_meta"],
                        [x for x in rest[i:] if x.kind != "session_meta"])
        if any(uuid7_ms(_turn_id(x)) is not None for x in rest):
            return [x for x in rest if x.kind != "session_meta"], []
    return [], [x for x in rest if x.kind != "session_meta"]


def read_rollout(path: Path) -> Rollout:
    """Parse and validate one rollout file (raises TraceError at the first problem)."""
    lines, legacy = _lines(path)
    meta = lines[0].payload
    prefix, own = _gate(lines[1:], meta)
    baseline = None
    for line in prefix:
        if line.kind == "event_msg" and line.item_type == "token_count":
            baseline = token_total(line.payload) or baseline
    return Rollout(path, meta, own, prefix, baseline, legacy, lines[0].ts)


def first_meta(path: Path) -> dict[str, Any] | None:
    """The session meta of a rollout file from its first line only (None if not a rollout)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.readline(1 << 24)
    except OSError:
        return None
    try:
        obj = json_loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    if obj.get("type") == "session_meta" and isinstance(obj.get("payload"), dict):
        meta: dict[str, Any] = obj["payload"]
        return meta if isinstance(meta.get("id"), str) else None
    if isinstance(obj.get("id"), str) and set(obj) <= LEGACY_META_KEYS and "timestamp" in obj:
        return obj
    return None


def detect(head: str) -> bool:
    """True when the text starts like a Codex rollout (current or legacy format)."""
    if _HEAD.match(head):
        return True
    rows = [x for x in head.splitlines() if x.strip()][:2]
    try:
        objs = [json_loads(x) for x in rows]
    except ValueError:
        return False
    if not objs or not all(isinstance(o, dict) for o in objs):
        return False
    first = objs[0]
    if first.get("type") in KINDS and isinstance(first.get("payload"), dict) \
            and "timestamp" in first:
        return bool(first["type"] == "session_meta")
    if not (isinstance(first.get("id"), str) and "timestamp" in first
            and set(first) <= LEGACY_META_KEYS and _is_uuid(first["id"])):
        return False
    if len(objs) < 2:
        return "instructions" in first or "git" in first
    second = objs[1]
    return "record_type" in second or str(second.get("type")) in (
        OUTPUT_ITEMS | OUTPUT_RESULT_ITEMS | {"message"})


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def rollout_files(path: Path) -> list[Path]:
    """Rollout files under a folder (recursively), those whose first line is a session meta."""
    found = [p for p in sorted(path.rglob("*.jsonl"))
             if not any(part.startswith(".") for part in p.relative_to(path).parts)]
    return [p for p in found if first_meta(p) is not None]


def family(path: Path) -> tuple[list[Path], dict[str, Path]]:
    """The files to read for ``path`` and every rollout that may be a subagent of one of them:
    a folder gives all its rollouts; a file gives itself, with its siblings (same folder) as
    the candidates for its subagents."""
    if path.is_dir():
        files = rollout_files(path)
        if not files:
            raise fail(path, 0, "", "no Codex rollout files (rollout-*.jsonl) in this folder")
        roots = files
        pool = files
    else:
        roots = [path]
        pool = [path, *(p for p in sorted(path.parent.glob("*.jsonl")) if p != path)]
    by_id: dict[str, Path] = {}
    for p in pool:
        meta = first_meta(p)
        if meta is not None:
            by_id.setdefault(str(meta["id"]), p)
    return roots, by_id


def children_index(by_id: dict[str, Path]) -> dict[str, list[Path]]:
    """Parent thread id -> its subagent rollout files (from their first lines)."""
    kids: dict[str, list[Path]] = {}
    for tid, p in by_id.items():
        meta = first_meta(p)
        parent = parent_of(meta) if meta else None
        if parent and parent != tid:
            kids.setdefault(parent, []).append(p)
    return kids


def iter_roots(path: Path) -> Iterator[tuple[Path, dict[str, list[Path]]]]:
    """Each top-level rollout of ``path`` (a subagent whose parent is present is not one), with
    the subagent index."""
    roots, by_id = family(path)
    kids = children_index(by_id)
    for p in roots:
        meta = first_meta(p)
        if meta is None:  # a single file given directly: let read_rollout report why
            yield p, kids
            continue
        parent = parent_of(meta)
        if path.is_dir() and parent and parent in by_id and parent != meta["id"]:
            continue
        yield p, kids


__all__ = ["CALL_ITEMS", "KINDS", "OUTPUT_ITEMS", "OUTPUT_RESULT_ITEMS", "Line", "Rollout",
           "children_index", "detect", "family", "first_meta", "iter_roots", "parent_of",
           "parse_ts", "read_rollout", "rollout_files", "spawn_info", "token_total",
           "uuid7_ms"]
