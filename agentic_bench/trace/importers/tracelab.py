"""TraceLab coding-agent round traces → token-count session traces (prompts as blocks).

Source: UW SyFI TraceLab (github.com/uw-syfi/TraceLab, release v0.0.2,
``syfi_coding_trace.jsonl.gz``; row shape in ``example_sessions/sanitized/README.md`` and
``artifacts/utils/DB_SCHEMA.md``, token accounting in ``docs/prompt_cache_accounting.md``,
the source's own replay semantics in ``replay/README.md``). One JSON object per line (plain
or gzip JSONL, told apart by the gzip magic bytes and read as a stream), one row per LLM
call ("round"): ``session_id``, ``round_index``, ``input_tokens_total``, ``prefix_tokens``
(the provider's cached prefix), ``output_tokens``, ``timing_events`` (``event_type``,
ISO ``timestamp``) and ``tools`` (``tool_name``, latencies). No text, no hash ids, no
parent/child link between sessions.

Mapping (docs/importers.md, ``tracelab``):

* rows are grouped by ``session_id`` (sessions in order of first appearance) and ordered by
  ``(round_index, file order)``, as TraceLab's own DuckDB does; every row is kept;
* a row is an ``llm`` step: ``usage`` = (``input_tokens_total``, ``output_tokens``); its start
  is its last input event (``user_message``/``tool_result``: the prompt was complete), its end
  its last output event (``reasoning``/``text``/``tool_call``/``usage_report``), so
  ``start_s`` (from the session's first timestamp) and ``duration_ms`` come from them; TTFT is
  not recorded;
* a row whose new input holds a user message starts a turn whose ``think_time_s`` is the
  end-to-start gap before it; before any other row the gap is a ``wait`` step (``tool``);
* prompts as blocks of :data:`BLOCK_SIZE` tokens with ids local to the session: a round keeps
  the first ``floor(prefix_tokens / BLOCK_SIZE)`` blocks of the previous round (never more
  than that round's full blocks) and the rest are new ids — TraceLab's replay rule
  ("``prefix_len``: prior context tokens kept for this round"); a recorded cache miss
  therefore replays as a rewritten history. The first round's ``prefix_tokens`` (the agent's
  system prompt and tool schemas, cached by earlier sessions) is the session's
  ``token_blocks.system_tokens``.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import IO, Any, cast

from agentic_bench.trace.importers.common import build_session, fail
from agentic_bench.trace.jsonl import (
    DEFAULT_MAX_LINE_BYTES,
    iter_raw_lines,
    json_loads,
    malformed_json_message,
)
from agentic_bench.trace.model import Session
from agentic_bench.trace.profile import TraceProfile

BLOCK_SIZE = 64  # tokens per prompt block (the Weka corpora's; Codex caches in 128s)
INPUT_EVENTS = frozenset({"user_message", "tool_result"})
GZIP_MAGIC = b"\x1f\x8b"
RESET_BLOCKS = 2  # a kept prefix this many blocks short of the previous round is a reset
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
KEYS = ("session_id", "round_index", "input_tokens_total")


def open_source(path: Path) -> IO[bytes]:
    """The file as a binary stream, decompressed when it starts with the gzip magic."""
    with open(path, "rb") as fh:
        gzipped = fh.read(2) == GZIP_MAGIC
    return cast(IO[bytes], gzip.open(path, "rb")) if gzipped else open(path, "rb")


def iter_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, object)`` for each non-blank line of a JSONL or gzip JSONL file; a bad line
    (or a broken gzip stream) raises :class:`TraceError` at its line."""
    try:
        fh = open_source(path)
    except OSError as exc:
        raise fail(path, 0, "", f"cannot open: {exc.strerror or exc}") from None
    line = 0
    with fh:
        try:
            for raw in iter_raw_lines(fh, DEFAULT_MAX_LINE_BYTES):
                line = raw.lineno
                if raw.data is None:
                    raise fail(path, line, "", f"line is {raw.size} bytes, over the cap")
                try:
                    text = raw.data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise fail(path, line, "", f"not valid UTF-8 (byte {exc.start})") from None
                if not text.strip():
                    continue
                try:
                    obj = json_loads(text.rstrip("\r\n"))
                except json.JSONDecodeError as exc:
                    raise fail(path, line, "", malformed_json_message(exc)) from None
                if not isinstance(obj, dict):
                    raise fail(path, line, "", f"expected a JSON object, got {type(obj).__name__}")
                yield line, obj
        except (OSError, EOFError, zlib.error) as exc:
            raise fail(path, line + 1, "", f"broken gzip stream: {exc}") from None


def timestamp_us(path: Path, line: int, field: str, value: Any) -> int | None:
    """An ISO 8601 timestamp (``Z`` or an offset; naive = UTC) as epoch microseconds (exact
    differences); None stays None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise fail(path, line, field, f"must be an ISO 8601 timestamp, got {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise fail(path, line, field, f"not an ISO 8601 timestamp: {value!r}") from None
    delta = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _count(path: Path, line: int, row: dict[str, Any], key: str, default: int | None) -> int:
    value = row.get(key)
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise fail(path, line, key, f"must be an integer >= 0, got {value!r}")
    return value


@dataclass(slots=True)
class Round:
    line: int
    order: int
    index: int
    input: int
    prefix: int
    output: int
    start: int | None  # epoch microseconds
    end: int | None
    new_input: str | None  # "user" | "tool_result" | None
    tools: tuple[str, ...]
    model: str | None


def _events(path: Path, line: int, row: dict[str, Any]
            ) -> tuple[int | None, int | None, str | None]:
    events = row.get("timing_events") or []
    if not isinstance(events, list):
        raise fail(path, line, "timing_events", "must be a list")
    inputs: list[int] = []
    outputs: list[int] = []
    kinds: set[str] = set()
    for i, ev in enumerate(events):
        if not isinstance(ev, dict) or not isinstance(ev.get("event_type"), str):
            raise fail(path, line, f"timing_events[{i}].event_type", "must be a string")
        t = timestamp_us(path, line, f"timing_events[{i}].timestamp", ev.get("timestamp"))
        kind = ev["event_type"]
        if kind in INPUT_EVENTS:
            kinds.add(kind)
        if t is not None:
            (inputs if kind in INPUT_EVENTS else outputs).append(t)
    new = "user" if "user_message" in kinds else "tool_result" if kinds else None
    return (max(inputs) if inputs else None), (max(outputs) if outputs else None), new


def parse_row(path: Path, line: int, order: int, row: dict[str, Any]) -> tuple[str, Round]:
    """One validated row: its session id and its :class:`Round`."""
    sid = row.get("session_id")
    if not isinstance(sid, str) or not sid:
        raise fail(path, line, "session_id", "missing or not a non-empty string")
    tools = row.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise fail(path, line, "tools", "must be a list of objects")
    names = tuple(str(t.get("tool_name") or "unknown_tool") for t in tools)
    model = row.get("model")
    if model is not None and not isinstance(model, str):
        raise fail(path, line, "model", "must be a string")
    start, end, new = _events(path, line, row)
    total = _count(path, line, row, "input_tokens_total", None)
    return sid, Round(line, order, _count(path, line, row, "round_index", None), total,
                      min(total, _count(path, line, row, "prefix_tokens", 0)),
                      _count(path, line, row, "output_tokens", None), start, end, new, names,
                      model)


def read_sessions(path: Path) -> tuple[dict[str, list[Round]], dict[str, dict[str, Any]]]:
    """Every row, validated, grouped by session (first-appearance order), with each
    session's provider and project."""
    groups: dict[str, list[Round]] = {}
    info: dict[str, dict[str, Any]] = {}
    for order, (line, row) in enumerate(iter_records(path)):
        sid, rnd = parse_row(path, line, order, row)
        groups.setdefault(sid, []).append(rnd)
        if sid not in info:
            info[sid] = {k: row[k] for k in ("provider", "project")
                         if isinstance(row.get(k), str)}
    for rounds in groups.values():
        rounds.sort(key=lambda r: (r.index, r.order))
    return groups, info


def _origin(rounds: list[Round]) -> int | None:
    starts = [r.start for r in rounds if r.start is not None]
    times = starts or [r.end for r in rounds if r.end is not None]
    return min(times) if times else None


def session_dict(sid: str, rounds: list[Round], info: dict[str, Any],
                 offset_s: float | None) -> dict[str, Any]:
    """The native session (as a dict for :func:`build_session`) of one TraceLab session."""
    t0 = _origin(rounds)
    turns: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    think = 0.0
    prev: Round | None = None
    ids: list[int] = []
    counter = resets = untimed = 0
    for r in rounds:
        gap = 0.0
        if prev is not None and prev.end is not None and r.start is not None:
            gap = max(0, r.start - prev.end) / 1e6
        if prev is not None and r.new_input == "user":
            turns.append({"user": "", "think_time_s": think, "steps": steps})
            steps, think = [], gap
        elif gap > 0:
            steps.append({"kind": "wait", "duration_ms": gap * 1000.0,
                          "reason": "tool" if r.new_input == "tool_result" else "gap"})
        full = r.input // BLOCK_SIZE
        keep = 0 if prev is None else min(r.prefix // BLOCK_SIZE, len(ids), full)
        if prev is not None and min(len(ids), full) - keep > RESET_BLOCKS:
            resets += 1  # more than the providers' cache granularity (128 tokens) lost
        ids = ids[:keep] + list(range(counter + 1, counter + 1 + full - keep))
        counter += full - keep
        step: dict[str, Any] = {
            "kind": "llm", "prompt": {"hash_ids": ids},
            "usage": {"input_tokens": r.input, "output_tokens": r.output}}
        if r.new_input:
            step["prompt"]["new_input"] = r.new_input
        if r.start is not None and t0 is not None:
            step["start_s"] = (r.start - t0) / 1e6
        if r.start is not None and r.end is not None and r.end >= r.start:
            step["duration_ms"] = (r.end - r.start) / 1e3
        else:
            untimed += 1
        steps.append(step)
        prev = r
    turns.append({"user": "", "think_time_s": think, "steps": steps})
    tools = Counter(name for r in rounds for name in r.tools)
    meta: dict[str, Any] = {
        "source": "tracelab", "tracelab_session_id": sid, **info,
        "models": sorted({r.model for r in rounds if r.model}), "rounds": len(rounds),
        "tool_calls": sum(tools.values()), "tools": dict(sorted(tools.items()))}
    if resets:
        meta["prefix_resets"] = resets
    if untimed:
        meta["untimed_rounds"] = untimed
    data: dict[str, Any] = {
        "session_id": sid, "turns": turns, "metadata": meta,
        "token_blocks": {"block_size": BLOCK_SIZE, "system_tokens": rounds[0].prefix}}
    if offset_s is not None:
        data["start_offset_s"] = offset_s
    return data


def import_tracelab(path: Path) -> Iterator[Session]:
    """Sessions of a TraceLab JSONL (or gzip JSONL) file; the whole file is read and checked
    first (rows of a session may be anywhere in it)."""
    path = Path(path)
    groups, info = read_sessions(path)
    origins = {sid: _origin(rounds) for sid, rounds in groups.items()}
    known = [t for t in origins.values() if t is not None]
    first = min(known) if known else 0
    for sid, rounds in groups.items():
        t0 = origins[sid]
        data = session_dict(sid, rounds, info[sid], None if t0 is None else (t0 - first) / 1e6)
        yield build_session(data, path, rounds[0].line)


def detect(head: str) -> bool:
    """True when the first line is a TraceLab round row (decompressed text)."""
    text = head.lstrip()
    if not text.startswith("{"):
        return False
    first = text.split("\n", 1)[0]
    try:
        obj = json_loads(first)
    except json.JSONDecodeError:  # a first line longer than the head: its keys as text
        return all(f'"{k}"' in first for k in (*KEYS, "prefix_tokens"))
    return isinstance(obj, dict) and all(k in obj for k in KEYS)


def profile_source(path: Path) -> TraceProfile:
    """Counts from the raw rows (not through the conversion): sessions, rounds, tools, token
    counts, and end-to-start gaps between consecutive rounds of a session."""
    path = Path(path)
    rows: dict[str, list[tuple[int, int, int | None, int | None]]] = {}
    prof = TraceProfile(notes=[
        "TraceLab rows carry no parent/child link: trees and subagents are 0",
        "tool calls are the rows' tools[]; the import keeps them in session metadata only "
        "(a prompt given as blocks sends no tool schemas)",
        "prefix_hit not computed: prefix_tokens is the provider's cache read, the import "
        "rounds it down to 64-token blocks"])
    for order, (line, row) in enumerate(iter_records(path)):
        prof.requests += 1
        prof.input_tokens.append(row.get("input_tokens_total"))
        prof.output_tokens.append(row.get("output_tokens"))
        prof.tool_calls += len(row.get("tools") or [])
        ins: list[int] = []
        outs: list[int] = []
        for i, ev in enumerate(row.get("timing_events") or []):
            if not isinstance(ev, dict):
                continue
            t = timestamp_us(path, line, f"timing_events[{i}].timestamp", ev.get("timestamp"))
            if t is not None:
                (ins if ev.get("event_type") in INPUT_EVENTS else outs).append(t)
        rows.setdefault(str(row.get("session_id")), []).append(
            (int(row.get("round_index") or 0), order, max(ins) if ins else None,
             max(outs) if outs else None))
    prof.sessions = len(rows)
    for seq in rows.values():
        seq.sort()
        for (_, _, _, end), (_, _, start, _) in pairwise(seq):
            if end is not None and start is not None:
                prof.gaps_s.append(max(0, start - end) / 1e6)
    return prof


__all__ = ["BLOCK_SIZE", "detect", "import_tracelab", "iter_records", "open_source",
           "profile_source", "timestamp_us"]
