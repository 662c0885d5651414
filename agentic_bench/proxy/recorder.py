"""Group recorded chat calls into sessions and write them as trace lines.

Grouping rule (see ``docs/recording.md``):
1. a request with an ``X-Session-ID`` header belongs to the open session with that id;
2. otherwise it continues the open session (without a header id and with no request in
   flight) whose last request's ``messages`` + reply are a prefix of its ``messages``
   (compared on role, text content, tool-call names and arguments, ``tool_call_id``; ids of
   the calls themselves are ignored); the longest such prefix wins, then the most recent;
3. otherwise it opens a new session.
A session is closed and written when it has been idle for ``idle_timeout_s`` (nothing in
flight) and on shutdown. Failed upstream calls are not recorded.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from agentic_bench.errors import TraceError
from agentic_bench.trace.importers.calls import SessionBuilder
from agentic_bench.trace.importers.common import (
    build_session,
    decode_arguments,
    drop_derivable_messages,
    text_of,
)
from agentic_bench.trace.jsonl import session_to_json
from agentic_bench.trace.model import Session

NOT_PARAMS = frozenset({"model", "messages", "tools", "stream", "stream_options"})


@dataclass
class Call:
    """One chat completion that went through the proxy."""

    body: dict[str, Any]
    start_ns: int
    end_ns: int = 0
    first_token_ns: int | None = None
    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {id, name, arguments str}
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass
class OpenSession:
    session_id: str
    header_id: str | None
    calls: list[Call] = field(default_factory=list)
    in_flight: int = 0
    last_key: tuple[Any, ...] | None = None  # normalized last request messages + reply
    last_active: float = field(default_factory=time.monotonic)


def _norm(msg: Any) -> tuple[Any, ...]:
    if not isinstance(msg, dict):
        return ("?", json.dumps(msg, sort_keys=True, default=str))
    calls = tuple(
        (str((c.get("function") or {}).get("name")),
         json.dumps(decode_arguments((c.get("function") or {}).get("arguments")),
                    sort_keys=True))
        for c in msg.get("tool_calls") or [] if isinstance(c, dict))
    return (msg.get("role"), text_of(msg.get("content")), calls, msg.get("tool_call_id"))


def reply_message(call: Call) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": call.content}
    if call.tool_calls:
        msg["tool_calls"] = [{"id": c.get("id"), "type": "function",
                              "function": {"name": c["name"], "arguments": c["arguments"]}}
                             for c in call.tool_calls]
    return msg


class Recorder:
    def __init__(self, out: Path, idle_timeout_s: float = 60.0, upstream: str = "",
                 dump: IO[str] | None = None) -> None:
        self.out_path = out
        self.out: IO[str] = open(out, "w", encoding="utf-8")  # closed in close()
        self.idle_timeout_s = idle_timeout_s
        self.upstream = upstream
        self.dump = dump
        self.open: dict[str, OpenSession] = {}
        self.by_header: dict[str, str] = {}
        self.used_ids: set[str] = set()
        self.t0_ns: int | None = None
        self.written_sessions = 0
        self.written_calls = 0
        self.failed_calls = 0
        self._counter = 0

    def _new_id(self, header_id: str | None) -> str:
        base = header_id or f"rec-{self._counter:05d}"
        self._counter += header_id is None
        sid, n = base, 1
        while sid in self.used_ids:
            n += 1
            sid = f"{base}#{n}"
        self.used_ids.add(sid)
        return sid

    def begin(self, body: dict[str, Any], header_id: str | None, start_ns: int,
              ) -> tuple[OpenSession, Call]:
        """Assign an arriving request to a session (rule in the module docstring)."""
        if self.t0_ns is None:
            self.t0_ns = start_ns
        session: OpenSession | None = None
        if header_id:
            sid = self.by_header.get(header_id)
            session = self.open.get(sid) if sid else None
            if session is None:
                session = OpenSession(self._new_id(header_id), header_id)
                self.by_header[header_id] = session.session_id
        else:
            key = tuple(_norm(m) for m in body.get("messages") or [])
            best: tuple[int, float] | None = None
            for cand in self.open.values():
                if cand.header_id or cand.in_flight or cand.last_key is None:
                    continue
                n = len(cand.last_key)
                if len(key) > n and key[:n] == cand.last_key:
                    rank = (n, cand.last_active)
                    if best is None or rank > best:
                        best, session = rank, cand
            if session is None:
                session = OpenSession(self._new_id(None), None)
        self.open[session.session_id] = session
        session.in_flight += 1
        session.last_active = time.monotonic()
        if self.dump is not None:
            self.dump.write(json.dumps({"session_id": session.session_id, "body": body}) + "\n")
            self.dump.flush()
        return session, Call(body=body, start_ns=start_ns)

    def finish(self, session: OpenSession, call: Call, ok: bool) -> None:
        session.in_flight -= 1
        session.last_active = time.monotonic()
        if not ok:
            self.failed_calls += 1
            return
        session.calls.append(call)
        msgs = [*(call.body.get("messages") or []), reply_message(call)]
        session.last_key = tuple(_norm(m) for m in msgs)

    def flush_idle(self, now: float | None = None) -> int:
        now = time.monotonic() if now is None else now
        idle = [s for s in self.open.values()
                if not s.in_flight and now - s.last_active >= self.idle_timeout_s]
        for s in idle:
            self._close(s)
        return len(idle)

    def flush_all(self) -> None:
        for s in sorted(self.open.values(),
                        key=lambda s: s.calls[0].start_ns if s.calls else 0):
            self._close(s)

    def _close(self, s: OpenSession) -> None:
        self.open.pop(s.session_id, None)
        if s.header_id and self.by_header.get(s.header_id) == s.session_id:
            del self.by_header[s.header_id]
        if not s.calls:
            return
        try:
            session = self.to_session(s)
        except TraceError as exc:
            print(f"record: session {s.session_id} not written: {exc}", file=sys.stderr)
            return
        self.out.write(session_to_json(session) + "\n")
        self.out.flush()
        self.written_sessions += 1
        self.written_calls += len(s.calls)

    def to_session(self, s: OpenSession) -> Session:
        b = SessionBuilder()
        first_tools = s.calls[0].body.get("tools") or []
        models: set[str] = {m for c in s.calls if isinstance(m := c.body.get("model"), str)}
        for call in s.calls:
            body = call.body
            params = {k: v for k, v in body.items() if k not in NOT_PARAMS}
            if (body.get("tools") or []) != first_tools:
                params["tools"] = body.get("tools") or []
            calls = [{"id": c["id"], "name": c["name"],
                      "arguments": decode_arguments(c["arguments"]) or {}}
                     if c.get("id") else {"name": c["name"],
                                          "arguments": decode_arguments(c["arguments"]) or {}}
                     for c in call.tool_calls]
            usage = {k: v for k, v in (("input_tokens", call.input_tokens),
                                       ("output_tokens", call.output_tokens)) if v is not None}
            ttft = call.first_token_ns - call.start_ns if call.first_token_ns else None
            b.llm(s.session_id, call.start_ns, call.end_ns, list(body.get("messages") or []),
                  (call.content, calls), params, usage or None, ttft)
        metadata: dict[str, Any] = {"source": "record", "upstream": self.upstream,
                                    "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        if models:
            metadata["model"] = sorted(models)[0]
        if s.header_id:
            metadata["client_session_id"] = s.header_id
        data: dict[str, Any] = {
            "session_id": s.session_id, "turns": b.finish(), "tools": first_tools,
            "start_offset_s": (s.calls[0].start_ns - (self.t0_ns or 0)) / 1e9,
            "metadata": metadata}
        if b.system is not None:
            data["system"] = b.system
        session = build_session(data, self.out_path, 0)
        if session.metadata.get("stub_tool_declarations") and first_tools:
            for turn in session.turns:  # keep sending what the client sent, not the stubs
                for step in turn.steps:
                    if step.kind == "llm":
                        step.params.setdefault("tools", first_tools)
        return drop_derivable_messages(session)

    def close(self) -> None:
        self.out.close()
        if self.dump is not None:
            self.dump.close()
