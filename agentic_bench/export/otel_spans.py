"""A run's records as OpenTelemetry spans (plain data; no OpenTelemetry import here).

One trace per issued session: a root span (``session <trace session>``; for an agent tree,
whose one session *is* the tree, ``tree <trace session>``), a ``turn <n>`` span per turn
record, and below them one span per step record — an LLM call as a GenAI ``chat`` span, a tool
wait as ``execute_tool``, ``embed`` and ``retrieve`` as ``embeddings`` and ``retrieval``, other
stages (``rerank``, a tree's ``wait``, ...) by their kind. A spawned subagent (a ``branch``
record with ``spawned``) is an ``invoke_agent`` span under the turn (or the subagent) that
spawned it, its steps under it; a fan-out is a ``fanout`` span with a ``branch`` span per
member; a join is a ``join`` span. Names, kinds and ``gen_ai.*`` attributes follow the GenAI
semantic conventions (open-telemetry/semantic-conventions v1.41.0, docs/gen-ai/gen-ai-spans.md
and gen-ai-agent-spans.md; names as in opentelemetry-semantic-conventions 0.66b2,
opentelemetry/semconv/_incubating/attributes/gen_ai_attributes.py); what the conventions do not
name is kept as ``agentic_bench.<record field>``.

Times are the records' own: a record's ns since the run's start plus the run record's
``started_at`` (the wall clock read just before the run's zero), so spans keep the records'
exact monotonic durations and gaps. Ids come from :mod:`agentic_bench.transport.traceparent`:
the run record's ``trace_key`` (a run without one: a key made of its ``started_at``), the
session id and the span's path in the session — the ids the live ``traceparent`` headers named,
and the same ids each time a folder is exported. docs: the ``otel`` export in docs/interop.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from agentic_bench.transport.traceparent import SESSION, span_id, trace_id

AttrValue = str | bool | int | float | tuple[str, ...]
Attrs = dict[str, AttrValue]

SESSION_TYPES = frozenset({"step", "turn", "session", "branch", "fanout", "join"})
# record fields a span carries elsewhere (ids, times, the semconv attributes below)
_CONSUMED = frozenset({"type", "session_id", "source_session", "t_scheduled_ns", "t_sent_ns",
                       "t_start_ns", "t_end_ns", "t_first_token_ns", "input_tokens",
                       "output_tokens", "cached_tokens", "finish_reason", "http_status",
                       "error_type", "wall_time"})
_MAX_TEXT = 512  # a string field longer than this is cut (an error message, say)
# statuses that are no failure: done, or (a subagent) stopped by the harness at the run's end
_NOT_FAILED = frozenset({"ok", "stopped"})
_OPERATIONS = {"llm": "chat", "tool": "execute_tool", "embed": "embeddings",
               "retrieve": "retrieval"}


class RecordsError(ValueError):
    """Records that cannot be made into spans (no run record, no wall-clock time)."""


@dataclass(frozen=True)
class SpanEvent:
    """A timed event on a span (the first token of a reply)."""

    name: str
    time_ns: int
    attributes: Attrs = field(default_factory=dict)


@dataclass(frozen=True)
class SpanSpec:
    """One span, as the exporter hands it to the SDK: ids, wall-clock ns (since the epoch),
    kind, attributes; ``error``: the status description of a failed span (None: not failed)."""

    name: str
    trace_id: int
    span_id: int
    parent_id: int | None
    start_ns: int
    end_ns: int
    kind: Literal["internal", "client"]
    attributes: Attrs
    error: str | None = None
    events: tuple[SpanEvent, ...] = ()


@dataclass(frozen=True)
class RunInfo:
    """What a ``run`` record gives every span after it: the trace key, the wall-clock ns of
    the run's zero, the model and the endpoint's host and port."""

    key: str
    base_ns: int | None
    model: str | None
    host: str | None
    port: int | None
    benchmark: str

    @classmethod
    def of(cls, record: dict[str, Any]) -> RunInfo:
        started = record.get("started_at")
        found = record.get("endpoint")
        endpoint: dict[str, Any] = found if isinstance(found, dict) else {}
        parts = urlsplit(str(endpoint.get("url") or ""))
        try:
            host, port = parts.hostname, parts.port
        except ValueError:
            host, port = None, None
        key = record.get("trace_key") or f"run:{started!r}"
        offset = record.get("clock_offset_ns") or 0  # a resumed segment's clock goes on
        return cls(key=str(key),
                   base_ns=round(float(started) * 1e9) - int(offset)
                   if started is not None else None,
                   model=endpoint.get("model"), host=host, port=port,
                   benchmark=str(record.get("benchmark") or ""))


def run_spans(records: Iterable[dict[str, Any]]) -> Iterator[list[SpanSpec]]:
    """The spans of each session, root first, as its ``session`` record arrives (sessions a
    run left unfinished: when the next ``run`` record — a resume — or the end comes). Holds
    only the records of sessions in progress. RecordsError for records with no ``run``
    record."""
    run: RunInfo | None = None
    pending: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        kind = record.get("type")
        if kind == "run":
            if run is not None:
                yield from (session_spans(run, recs) for recs in pending.values())
                pending.clear()
            run = RunInfo.of(record)
            continue
        sid = record.get("session_id")
        if kind not in SESSION_TYPES or not isinstance(sid, str):
            continue
        if run is None:
            raise RecordsError("records before any 'run' record: not a run's records.jsonl")
        pending.setdefault(sid, []).append(record)
        if kind == "session":
            yield session_spans(run, pending.pop(sid))
    if run is not None:
        yield from (session_spans(run, recs) for recs in pending.values())


def session_spans(run: RunInfo, records: list[dict[str, Any]]) -> list[SpanSpec]:
    """The spans of one session from its records (the ``session`` record last, or none when
    the run ended before it); records without times are left out."""
    return _Session(run, records).spans()


class _Session:
    def __init__(self, run: RunInfo, records: list[dict[str, Any]]) -> None:
        self.run, self.records = run, records
        self.sid = str(records[0]["session_id"])
        self.trace = trace_id(run.key, self.sid)
        self.root = span_id(run.key, self.sid, SESSION)
        self.session = next((r for r in records if r.get("type") == "session"), None)
        self.base = run.base_ns if run.base_ns is not None else self._wall_base()
        self.turns = {r["turn"] for r in records if r.get("type") == "turn"}
        self.branches = {(r["turn"], r["branch"]): r for r in records
                         if r.get("type") == "branch"}
        self.fanouts = {(r["turn"], r["group"]) for r in records if r.get("type") == "fanout"}

    def _wall_base(self) -> int:
        """No run start: align on the session record's wall clock (read as it ended)."""
        s = self.session or {}
        if s.get("wall_time") is None or s.get("t_end_ns") is None:
            raise RecordsError(f"session {self.sid}: no wall-clock time in the run record "
                             "(started_at) or the session record (wall_time)")
        return round(float(s["wall_time"]) * 1e9) - int(s["t_end_ns"])

    def id(self, path: str) -> int:
        return span_id(self.run.key, self.sid, path)

    # where each kind of span hangs
    def turn_parent(self, turn: Any) -> int:
        return self.id(f"turn/{turn}") if turn in self.turns else self.root

    def branch_parent(self, turn: Any, branch: str) -> int:
        return self.id(f"branch/{turn}/{branch}") if (turn, branch) in self.branches \
            else self.turn_parent(turn)

    def parent_of_branch(self, record: dict[str, Any]) -> int:
        turn, path = record["turn"], str(record["branch"])
        if record.get("spawned"):
            parent = str(record.get("parent") or "")
            return self.branch_parent(turn, parent) if parent else self.turn_parent(turn)
        group = path.rsplit(".", 1)[0]
        if (turn, group) in self.fanouts:
            return self.id(f"fanout/{turn}/{group}")
        return self.turn_parent(turn)

    def parent_of_fanout(self, record: dict[str, Any]) -> int:
        group = str(record["group"])
        if "/" in group:
            return self.branch_parent(record["turn"], group.rsplit("/", 1)[0])
        return self.turn_parent(record["turn"])

    def spans(self) -> list[SpanSpec]:
        out: list[SpanSpec | None] = [self.root_span()]
        seen: dict[str, int] = {}
        for record in self.records:
            kind = record.get("type")
            if kind == "turn":
                out.append(self.span(record, f"turn/{record['turn']}", f"turn {record['turn']}",
                                     self.root))
            elif kind == "branch":
                out.append(self.branch_span(record))
            elif kind == "fanout":
                group = record["group"]
                out.append(self.span(record, f"fanout/{record['turn']}/{group}",
                                     f"fanout {group}", self.parent_of_fanout(record)))
            elif kind == "join":
                who = str(record.get("conversation") or "")
                path = f"join/{record['turn']}/{who}/{record.get('step')}"
                parent = self.branch_parent(record["turn"], who) if who \
                    else self.turn_parent(record["turn"])
                out.append(self.span(record, path, "join", parent))
            elif kind == "step":
                where = f"step/{record.get('turn')}/{record.get('branch', '')}/{record.get('step')}"
                seen[where] = seen.get(where, -1) + 1  # retried attempts: one span each
                out.append(self.step_span(record, f"{where}/{seen[where]}"))
        return [s for s in out if s is not None]

    def root_span(self) -> SpanSpec:
        s = self.session
        starts = [t for t in map(_start, self.records) if t is not None]
        ends = [int(r["t_end_ns"]) for r in self.records if r.get("t_end_ns") is not None]
        start = int(s["t_scheduled_ns"]) if s else min(starts, default=0)
        end = int(s["t_end_ns"]) if s else max(ends, default=start)
        tree = bool(s and ("branches" in s or "lane" in s)) or any(
            r.get("spawned") for r in self.records if r.get("type") == "branch")
        source = (s or self.records[0]).get("source_session") or self.sid.rsplit("#", 1)[0]
        attrs: Attrs = {"gen_ai.conversation.id": self.sid, "agentic_bench.session_id": self.sid,
                        "agentic_bench.complete": s is not None,
                        "agentic_bench.benchmark": self.run.benchmark}
        attrs.update(_fields(s or {}))
        status = (s or {}).get("status", "ok")
        return SpanSpec(f"{'tree' if tree else 'session'} {source}", self.trace, self.root, None,
                        self.base + start, self.base + max(end, start), "internal",
                        {**attrs, **_error_type(s or {})},
                        error=None if status in _NOT_FAILED else f"session {status}")

    def span(self, record: dict[str, Any], path: str, name: str, parent: int,
             kind: Literal["internal", "client"] = "internal",
             attrs: Attrs | None = None) -> SpanSpec | None:
        start, end = _start(record), record.get("t_end_ns")
        if start is None or end is None:
            return None
        status = record.get("status", "ok")
        return SpanSpec(name, self.trace, self.id(path), parent, self.base + start,
                        self.base + max(int(end), start), kind,
                        {**_fields(record), **(attrs or {}), **_error_type(record)},
                        error=None if status in _NOT_FAILED
                        else str(record.get("error") or status)[:_MAX_TEXT])

    def branch_span(self, record: dict[str, Any]) -> SpanSpec | None:
        path = f"branch/{record['turn']}/{record['branch']}"
        if record.get("spawned"):
            name = str(record.get("name") or record["branch"])
            return self.span(record, path, f"invoke_agent {name}", self.parent_of_branch(record),
                             attrs={"gen_ai.operation.name": "invoke_agent",
                                    "gen_ai.agent.name": name,
                                    "gen_ai.agent.id": str(record["branch"]),
                                    "gen_ai.conversation.id": self.sid})
        return self.span(record, path, f"branch {record['branch']}",
                         self.parent_of_branch(record))

    def step_span(self, record: dict[str, Any], path: str) -> SpanSpec | None:
        kind = str(record.get("kind") or "step")
        branch = str(record.get("branch") or "")
        parent = self.branch_parent(record.get("turn"), branch) if branch \
            else self.turn_parent(record.get("turn"))
        op = _OPERATIONS.get(kind)
        attrs: Attrs = {"gen_ai.operation.name": op} if op else {}
        if kind != "llm":
            tool = record.get("tool") or record.get("tool_name")
            if op == "execute_tool" and isinstance(tool, str):
                attrs["gen_ai.tool.name"] = tool
            name = f"{op} {tool}" if op == "execute_tool" and isinstance(tool, str) \
                else (op or kind)
            return self.span(record, path, name, parent, attrs=attrs)
        model = str(record.get("model") or self.run.model or "unknown")
        attrs.update(_chat_attributes(record, model, self.sid))
        if self.run.host:
            attrs["server.address"] = self.run.host
        if self.run.port:
            attrs["server.port"] = self.run.port
        spec = self.span(record, path, f"chat {model}", parent, "client", attrs)
        first = record.get("t_first_token_ns")
        if spec is None or first is None:
            return spec
        event = SpanEvent("agentic_bench.first_token", self.base + int(first))
        return SpanSpec(spec.name, spec.trace_id, spec.span_id, spec.parent_id, spec.start_ns,
                        spec.end_ns, spec.kind, spec.attributes, spec.error, (event,))


def _chat_attributes(record: dict[str, Any], model: str, sid: str) -> Attrs:
    """The GenAI semconv attributes of an inference span (gen-ai-spans.md)."""
    attrs: Attrs = {"gen_ai.provider.name": "openai", "gen_ai.request.model": model,
                    "gen_ai.conversation.id": sid}
    for source, name in (("input_tokens", "gen_ai.usage.input_tokens"),
                         ("output_tokens", "gen_ai.usage.output_tokens"),
                         ("cached_tokens", "gen_ai.usage.cache_read.input_tokens"),
                         ("http_status", "http.response.status_code")):
        if isinstance(record.get(source), int):
            attrs[name] = int(record[source])
    if record.get("finish_reason"):
        attrs["gen_ai.response.finish_reasons"] = (str(record["finish_reason"]),)
    if isinstance(record.get("ttft_ms"), int | float):
        attrs["gen_ai.response.time_to_first_chunk"] = float(record["ttft_ms"]) / 1000.0
    return attrs


def _error_type(record: dict[str, Any]) -> Attrs:
    status = record.get("status", "ok")
    if status in _NOT_FAILED:
        return {}
    return {"error.type": str(record.get("error_type") or status)}


def _start(record: dict[str, Any]) -> int | None:
    for name in ("t_sent_ns", "t_start_ns", "t_scheduled_ns"):
        if record.get(name) is not None:
            return int(record[name])
    return None


def _fields(record: dict[str, Any]) -> Attrs:
    """A record's other scalar fields as ``agentic_bench.<field>`` (lists of strings kept,
    other lists and objects — per-chunk ITL, tool calls — left out; long text cut)."""
    out: Attrs = {}
    for name, value in record.items():
        if name in _CONSUMED or value is None:
            continue
        if isinstance(value, str):
            out[f"agentic_bench.{name}"] = value[:_MAX_TEXT]
        elif isinstance(value, bool | int | float):
            out[f"agentic_bench.{name}"] = value
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            out[f"agentic_bench.{name}"] = tuple(value)
    return out


__all__ = ["Attrs", "RecordsError", "RunInfo", "SpanEvent", "SpanSpec", "run_spans",
           "session_spans"]
