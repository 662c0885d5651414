"""Dynamo request traces (``dynamo.request.trace.v1``) → token-count session trees.

Source: NVIDIA Dynamo (github.com/ai-dynamo/dynamo): the record types in
``lib/llm/src/request_trace/types.rs``, the replay loader and its agentic lowering in
``lib/data-gen/src/request_trace/{load,agentic}.rs`` (PRs #10701, #10944, #10971 "agent-aware
request traces", #12787 ``input_trigger``), and ``docs/.../request-replay-tracing`` (record
shape). JSONL or gzip JSONL (``DYN_REQUEST_TRACE`` writes ``*.jsonl.gz`` shards), bare or
wrapped (``{"event": {...}}``) records; ``request_payload`` and ``tool_start`` rows are skipped.

Each ``request_end`` row is one LLM call: ``request.replay`` (``trace_block_size``,
``input_length``, ``input_sequence_hashes``: exactly ``ceil(input_length / block)`` rolling
block hashes), ``output_tokens``, ``request_received_ms`` (start), ``total_time_ms`` (else
``event_time_unix_ms``: the end), ``ttft_ms``, and ``agent_context`` (``session_id``,
``parent_session_id``, ``input_trigger``). Rules, as Dynamo's lowering does them:

* without ``agent_context`` on any row (a context-free trace) every request is its own
  single-request session at its recorded offset; a trace mixing the two is refused;
* with it, requests sharing ``session_id`` are one conversation, in ``(start, end, id)`` order,
  end-to-start gaps as ``wait`` steps (a ``user_message`` trigger starts a turn instead, the gap
  its think time); a session whose ``parent_session_id`` is in the trace is a subagent: a
  ``spawn`` step after the parent request that launched it and a ``join`` before the parent
  request that consumed it — given by a ``tool_end`` row's ``tool.claude``
  (``source_request_id``, ``consumer_request_id``, ``child_session_id``), else inferred: the
  latest parent request starting at or before the child's first start, and the first one
  starting at or after the child's last end (none: it runs in the background); one with no
  parent request before it is spawned at the start of the parent conversation;
* hashes become compact ids, first seen first, one namespace per session tree
  (``hash_id_scope`` ``local``): blocks a tree shares with another tree are not shared in
  replay.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.common import build_session, fail
from agentic_bench.trace.importers.tracelab import iter_records
from agentic_bench.trace.model import Session
from agentic_bench.trace.profile import TraceProfile

SCHEMA = "dynamo.request.trace.v1"
SKIPPED = frozenset({"request_payload", "tool_start"})
TRIGGERS = {"user_message": "user", "tool_result": "tool_result"}


@dataclass(slots=True)
class Req:
    line: int
    rid: str
    session: str | None
    parent: str | None
    trigger: str | None
    start: float  # ms since the epoch
    end: float
    ttft: float | None
    input: int
    output: int
    hashes: list[int]
    model: str | None
    tool_calls: int


@dataclass(slots=True)
class Tool:
    line: int
    session: str
    start: float
    end: float
    source: str | None = None  # tool.claude: the request that launched it
    consumer: str | None = None  # the request that consumed it
    child: str | None = None  # the subagent session it started
    mode: str | None = None  # blocking | background


def _unwrap(obj: dict[str, Any]) -> tuple[dict[str, Any], str]:
    event = obj.get("event")
    if "schema" not in obj and isinstance(event, dict):
        return event, "event."
    return obj, ""


def _num(path: Path, line: int, field: str, value: Any, need: bool) -> float | None:
    if value is None and not need:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise fail(path, line, field, f"must be a number >= 0, got {value!r}")
    return float(value)


def _int(path: Path, line: int, field: str, value: Any, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise fail(path, line, field, f"must be an integer >= {minimum}, got {value!r}")
    return value


def _str(path: Path, line: int, field: str, value: Any, need: bool = False) -> str | None:
    if value is None and not need:
        return None
    if not isinstance(value, str) or not value:
        raise fail(path, line, field, f"must be a non-empty string, got {value!r}")
    return value


def _request(path: Path, line: int, p: str, rec: dict[str, Any]) -> tuple[Req, int]:
    req = rec.get("request")
    if not isinstance(req, dict):
        raise fail(path, line, f"{p}request", "a request_end row needs a request object")
    rid = _str(path, line, f"{p}request.request_id", req.get("request_id"), True)
    replay = req.get("replay")
    if not isinstance(replay, dict):
        raise fail(path, line, f"{p}request.replay", "missing: replay needs the block hashes")
    where = f"{p}request.replay"
    block = _int(path, line, f"{where}.trace_block_size", replay.get("trace_block_size"), 1)
    length = _int(path, line, f"{where}.input_length", replay.get("input_length"))
    hashes = replay.get("input_sequence_hashes")
    if not isinstance(hashes, list) or not all(
            isinstance(h, int) and not isinstance(h, bool) for h in hashes):
        raise fail(path, line, f"{where}.input_sequence_hashes", "must be a list of integers")
    if len(hashes) != math.ceil(length / block):
        raise fail(path, line, f"{where}.input_sequence_hashes",
                   f"input_length {length} in blocks of {block} needs exactly "
                   f"{math.ceil(length / block)} hashes, got {len(hashes)}")
    start = _num(path, line, f"{p}request.request_received_ms", req.get("request_received_ms"),
                 True)
    event_ms = _num(path, line, f"{p}event_time_unix_ms", rec.get("event_time_unix_ms"), True)
    assert start is not None and event_ms is not None
    total = _num(path, line, f"{p}request.total_time_ms", req.get("total_time_ms"), False)
    given = rec.get("agent_context")
    if given is not None and not isinstance(given, dict):
        raise fail(path, line, f"{p}agent_context", "must be an object")
    ctx = given or {}
    model = req.get("model")
    frm = req.get("finish_reason_metadata") or {}
    calls = frm.get("tool_calls") if isinstance(frm, dict) else None
    return Req(
        line, str(rid),
        _str(path, line, f"{p}agent_context.session_id", ctx.get("session_id"), given is not None),
        _str(path, line, f"{p}agent_context.parent_session_id", ctx.get("parent_session_id")),
        TRIGGERS.get(str(ctx.get("input_trigger"))), start,
        start + (total if total is not None else max(0.0, event_ms - start)),
        _num(path, line, f"{p}request.ttft_ms", req.get("ttft_ms"), False), length,
        _int(path, line, f"{p}request.output_tokens", req.get("output_tokens")), hashes,
        model if isinstance(model, str) else None,
        len(calls) if isinstance(calls, list) else 0), block


def _tool(path: Path, line: int, p: str, rec: dict[str, Any]) -> Tool | None:
    ctx, tool = rec.get("agent_context"), rec.get("tool")
    if not isinstance(ctx, dict) or not isinstance(tool, dict):
        return None  # Dynamo's loader drops tool rows without a session too
    sid = _str(path, line, f"{p}agent_context.session_id", ctx.get("session_id"), True)
    w = f"{p}tool"
    end = _num(path, line, f"{w}.ended_at_unix_ms", tool.get("ended_at_unix_ms"), False)
    end = end if end is not None else float(rec.get("event_time_unix_ms") or 0)
    dur = _num(path, line, f"{w}.duration_ms", tool.get("duration_ms"), False)
    start = _num(path, line, f"{w}.started_at_unix_ms", tool.get("started_at_unix_ms"), False)
    start = start if start is not None else end - (dur or 0.0)
    if end < start:
        return None
    out = Tool(line, str(sid), start, end)
    claude = tool.get("claude")
    if isinstance(claude, dict):
        out.source = _str(path, line, f"{w}.claude.source_request_id",
                          claude.get("source_request_id"), True)
        out.consumer = _str(path, line, f"{w}.claude.consumer_request_id",
                            claude.get("consumer_request_id"))
        out.child = _str(path, line, f"{w}.claude.child_session_id",
                         claude.get("child_session_id"))
        out.mode = claude.get("execution_mode")
        if out.mode not in ("blocking", "background"):
            raise fail(path, line, f"{w}.claude.execution_mode",
                       f"must be 'blocking' or 'background', got {out.mode!r}")
    return out


def read_trace(path: Path) -> tuple[list[Req], list[Tool], int]:
    """Every request and tool span, validated; and the block size (one for the trace)."""
    reqs: list[Req] = []
    tools: list[Tool] = []
    seen: dict[str, int] = {}
    block = 0
    for line, obj in iter_records(path):
        rec, p = _unwrap(obj)
        if rec.get("schema") != SCHEMA:
            raise fail(path, line, f"{p}schema", f"expected {SCHEMA!r}, got "
                       f"{rec.get('schema')!r}")
        kind = rec.get("event_type")
        if kind in SKIPPED:
            continue
        if kind in ("tool_end", "tool_error"):
            tool = _tool(path, line, p, rec)
            if tool is not None:
                tools.append(tool)
            continue
        if kind != "request_end":
            raise fail(path, line, f"{p}event_type", f"unknown event type {kind!r}")
        req, size = _request(path, line, p, rec)
        if req.rid in seen:
            raise fail(path, line, f"{p}request.request_id",
                       f"duplicate request_id {req.rid!r} (first on line {seen[req.rid]})")
        if block and size != block:
            raise fail(path, line, f"{p}request.replay.trace_block_size",
                       f"{size} differs from the trace's {block}")
        if reqs and (req.session is None) != (reqs[0].session is None):
            raise fail(path, line, f"{p}agent_context", "a trace cannot mix requests with "
                       f"and without agent_context (line {reqs[0].line} differs)")
        seen[req.rid], block = line, size
        reqs.append(req)
    if not reqs:
        raise fail(path, 0, "", "no request_end records")
    owners = {r.rid: r.session for r in reqs}
    for tool in tools:
        for field, rid in (("source_request_id", tool.source),
                           ("consumer_request_id", tool.consumer)):
            if rid is not None and owners.get(rid, "") != tool.session:
                raise fail(path, tool.line, f"tool.claude.{field}",
                           f"{rid!r} is not a request of session {tool.session!r}")
    return reqs, tools, block


def _key(r: Req) -> tuple[float, float, str]:
    return r.start, r.end, r.rid


def import_dynamo(path: Path) -> Iterator[Session]:
    """Sessions of a Dynamo request trace: one per request (context-free) or per session
    tree (agent-aware); the whole file is read and checked first."""
    path = Path(path)
    reqs, tools, block = read_trace(path)
    t0 = min(r.start for r in reqs)
    if reqs[0].session is None:
        for r in sorted(reqs, key=_key):
            steps = [{"kind": "llm", **_llm(r, r.start, {})}]
            meta = {"source": "dynamo", "request_id": r.rid,
                    **({"model": r.model} if r.model else {}),
                    **({"tool_calls": r.tool_calls} if r.tool_calls else {})}
            yield build_session({"session_id": r.rid, "turns": [{"user": "", "steps": steps}],
                                 "start_offset_s": (r.start - t0) / 1000.0, "metadata": meta,
                                 "token_blocks": {"block_size": block}}, path, r.line)
        return
    builder = TreeBuilder(path, reqs, tools)
    for root in builder.roots():
        data = builder.session(root, t0)
        data["token_blocks"] = {"block_size": block}
        yield build_session(data, path, builder.sessions[root][0].line)


def _llm(r: Req, tree_t0: float, ids: dict[int, int]) -> dict[str, Any]:
    """An llm step's fields: prompt blocks (compact ids of the tree), sizes, times."""
    for h in r.hashes:
        ids.setdefault(h, len(ids) + 1)
    prompt: dict[str, Any] = {"hash_ids": [ids[h] for h in r.hashes]}
    if r.trigger:
        prompt["new_input"] = r.trigger
    step: dict[str, Any] = {"prompt": prompt, "usage": {"input_tokens": r.input,
                                                        "output_tokens": r.output},
                            "start_s": (r.start - tree_t0) / 1000.0,
                            "duration_ms": r.end - r.start}
    if r.ttft is not None:
        step["ttft_ms"] = r.ttft
    return step


class TreeBuilder:
    """The session trees of an agent-aware trace (the module's spawn and join rules)."""

    def __init__(self, path: Path, reqs: list[Req], tools: list[Tool]) -> None:
        self.path = path
        self.sessions: dict[str, list[Req]] = defaultdict(list)
        self.recorded: dict[str, str] = {}  # parent_session_id as recorded
        for r in reqs:
            assert r.session is not None
            self.sessions[r.session].append(r)
            old = self.recorded.setdefault(r.session, r.parent) if r.parent else None
            if old is not None and old != r.parent:
                raise fail(path, r.line, "agent_context.parent_session_id",
                           f"session {r.session!r} already has parent {old!r}")
        for seq in self.sessions.values():
            seq.sort(key=_key)
        self.parent = {c: p for c, p in self.recorded.items() if p in self.sessions and p != c}
        for child in self.parent:
            seen, node = {child}, self.parent[child]
            while node in self.parent:
                if node in seen:
                    raise fail(path, self.sessions[child][0].line,
                               "agent_context.parent_session_id",
                               f"sessions {sorted(seen)} are each other's parents")
                seen.add(node)
                node = self.parent[node]
        self.tools: dict[str, list[Tool]] = defaultdict(list)
        self.explicit: dict[str, Tool] = {}
        for tool in tools:
            self.tools[tool.session].append(tool)
            if tool.child in self.parent:
                if tool.child in self.explicit:
                    raise fail(path, tool.line, "tool.claude.child_session_id",
                               f"a second tool launches session {tool.child!r}")
                self.explicit[tool.child] = tool
        self.children: dict[str, list[str]] = defaultdict(list)
        for child in sorted(self.parent, key=lambda c: (_key(self.sessions[c][0]), c)):
            self.children[self.parent[child]].append(child)

    def roots(self) -> list[str]:
        return sorted((s for s in self.sessions if s not in self.parent),
                      key=lambda s: (_key(self.sessions[s][0]), s))

    def _members(self, sid: str) -> list[str]:
        return [sid] + [m for c in self.children[sid] for m in self._members(c)]

    def _placement(self, child: str) -> tuple[int | None, int | None, dict[str, Any]]:
        """(index of the parent request it follows, of the one that joins it, metadata)."""
        seq = self.sessions[self.parent[child]]
        kids = self.sessions[child]
        tool = self.explicit.get(child)
        if tool is not None:
            index = {r.rid: i for i, r in enumerate(seq)}
            if tool.source not in index:
                raise fail(self.path, tool.line, "tool.claude.source_request_id",
                           f"{tool.source!r} is not a request of parent session "
                           f"{self.parent[child]!r}")
            source = index[tool.source]
            consumer = index.get(tool.consumer) if tool.consumer else None
            if consumer is not None and consumer <= source:
                raise fail(self.path, tool.line, "tool.claude.consumer_request_id",
                           "the consuming request starts before the launching one")
            return source, consumer, {"spawn": "explicit", "execution_mode": tool.mode}
        end = max(k.end for k in kids)
        spawn = max((i for i, r in enumerate(seq) if r.start <= kids[0].start), default=None)
        join = next((i for i, r in enumerate(seq)
                     if r.start >= end and (spawn is None or i > spawn)), None)
        return spawn, join, {"spawn": "inferred" if spawn is not None else "start"}

    def _reason(self, sid: str, start: float, end: float) -> str:
        busy = any(t.end > start and t.start < end for t in self.tools[sid])
        return "tool" if busy else "gap"

    def _spawn(self, child: str, anchor: float, t0: float, ids: dict[int, int],
               meta: dict[str, Any]) -> dict[str, Any]:
        first = self.sessions[child][0]
        steps: list[dict[str, Any]] = []
        if first.start > anchor:
            steps.append({"kind": "wait", "duration_ms": first.start - anchor,
                          "reason": "spawn offset"})
        steps += self._conversation(child, anchor, t0, ids, False)[0][1]
        info = {"session_id": child, "parent_session_id": self.parent[child],
                **{k: v for k, v in meta.items() if v is not None}}
        return {"kind": "spawn", "start_s": (first.start - t0) / 1000.0,
                "branch": {"id": child, "steps": steps, "metadata": info}}

    def _conversation(self, sid: str, anchor: float, t0: float, ids: dict[int, int],
                      root: bool) -> list[tuple[float, list[dict[str, Any]]]]:
        """(think time, steps) per turn of one conversation (a branch: one turn)."""
        seq = self.sessions[sid]
        after: dict[int | None, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
        before: dict[int, list[str]] = defaultdict(list)
        for child in self.children[sid]:
            spawn, join, meta = self._placement(child)
            after[spawn].append((child, {**meta, **({"background": True} if join is None
                                                     else {})}))
            if join is not None:
                before[join].append(child)
        turns: list[tuple[float, list[dict[str, Any]]]] = [(0.0, [])]
        steps = turns[0][1]
        steps += [self._spawn(c, anchor, t0, ids, m) for c, m in after[None]]
        for i, r in enumerate(seq):
            if i:
                gap = max(0.0, r.start - seq[i - 1].end)
                if root and r.trigger == "user":
                    turns.append((gap / 1000.0, []))
                    steps = turns[-1][1]
                elif gap > 0:
                    steps.append({"kind": "wait", "duration_ms": gap,
                                  "reason": self._reason(sid, seq[i - 1].end, r.start)})
            if before[i]:
                steps.append({"kind": "join", "branches": before[i]})
            steps.append({"kind": "llm", **_llm(r, t0, ids)})
            steps += [self._spawn(c, r.end, t0, ids, m) for c, m in after[i]]
        return turns

    def session(self, root: str, t0: float) -> dict[str, Any]:
        """The native session (a dict for :func:`build_session`) of the tree under ``root``."""
        members = self._members(root)
        reqs = [r for m in members for r in self.sessions[m]]
        tree_t0 = min(r.start for r in reqs)
        turns = self._conversation(root, tree_t0, tree_t0, {}, True)
        meta: dict[str, Any] = {
            "source": "dynamo", "dynamo_session_id": root, "requests": len(reqs),
            "subagents": len(members) - 1, "models": sorted({r.model for r in reqs if r.model}),
            "tool_calls": sum(r.tool_calls for r in reqs)}
        if root in self.recorded:
            meta["parent_session_id"] = self.recorded[root]  # not in this trace
        return {"session_id": root, "start_offset_s": (tree_t0 - t0) / 1000.0, "metadata": meta,
                "turns": [{"user": "", "think_time_s": think, "steps": steps}
                          for think, steps in turns]}


def detect(head: str) -> bool:
    """True for a JSONL file whose first record names the schema (bare or wrapped)."""
    text = head.lstrip()
    return text.startswith("{") and f'"{SCHEMA}"' in text.split("\n", 1)[0]


def profile_source(path: Path) -> TraceProfile:
    """Counts from the raw ``request_end`` rows (not through the conversion): sessions (root
    agent sessions, or requests when no row has agent_context), subagents (sessions whose
    parent is in the trace), tokens, tool calls and end-to-start gaps per session."""
    path = Path(path)
    prof = TraceProfile(notes=[
        "input tokens are replay.input_length (the prompt the hashes describe)",
        "tool calls are finish_reason_metadata.tool_calls; the import keeps them in session "
        "metadata only (a prompt given as blocks sends no tool schemas)",
        "prefix_hit not computed: Dynamo's hashes are global, the import's ids are local to "
        "each session tree"])
    parents: dict[str, str | None] = {}
    times: dict[str, list[tuple[float, float, str]]] = {}
    for _, obj in iter_records(path):
        rec = obj["event"] if "schema" not in obj and isinstance(obj.get("event"), dict) \
            else obj
        if rec.get("event_type") != "request_end":
            continue
        req = rec.get("request") or {}
        ctx = rec.get("agent_context") or {}
        prof.requests += 1
        prof.input_tokens.append((req.get("replay") or {}).get("input_length"))
        prof.output_tokens.append(req.get("output_tokens"))
        prof.tool_calls += len((req.get("finish_reason_metadata") or {}).get("tool_calls")
                               or [])
        start = float(req.get("request_received_ms") or 0)
        total = req.get("total_time_ms")
        end = start + total if total is not None else float(rec["event_time_unix_ms"])
        sid = ctx.get("session_id") or f"request:{req.get('request_id')}"
        parents.setdefault(sid, ctx.get("parent_session_id"))
        times.setdefault(sid, []).append((start, end, str(req.get("request_id"))))
    children = {s for s, p in parents.items() if p is not None and p in parents and p != s}
    prof.subagents = len(children)
    prof.sessions = len(parents) - len(children)
    prof.trees = len({parents[c] for c in children if parents[c] not in children})
    for seq in times.values():
        seq.sort()
        prof.gaps_s += [max(0.0, b[0] - a[1]) / 1000.0 for a, b in pairwise(seq)]
    return prof


__all__ = ["SCHEMA", "Req", "Tool", "TreeBuilder", "detect", "import_dynamo", "profile_source",
           "read_trace"]

