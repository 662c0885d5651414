"""OpenTelemetry GenAI spans (OTLP JSON export) → sessions.

Input: one OTLP JSON document ``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`` or
JSONL with one such document per line (the collector's file exporter). Spans with
``gen_ai.operation.name`` ``chat`` / ``text_completion`` / ``generate_content`` become ``llm``
steps, ``execute_tool`` spans ``tool`` steps, ``embeddings`` spans ``embed`` steps; the spans of
a subagent (an ``invoke_agent`` span under another agent) become a branch of a ``parallel`` step
(:mod:`.otel_agents`); other spans (a root ``invoke_agent``, HTTP, ...) are ignored. Spans are
grouped into sessions by ``gen_ai.conversation.id`` (when any span of a trace has one) or else
by trace id, and ordered by start time. Durations come from start/end times. A new turn starts
at a chat span whose input holds more user messages than the previous chat span's, or — when no
content was captured — at the first chat span of each trace. Think time is the gap between the
end of the previous turn's last span and the start of the new turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.errors import TraceError
from agentic_bench.trace.importers import otel_messages as om
from agentic_bench.trace.importers.calls import SessionBuilder
from agentic_bench.trace.importers.common import (
    build_session,
    decode_arguments,
    drop_derivable_messages,
    fail,
    first_char,
    iter_jsonl,
    load_json,
)
from agentic_bench.trace.importers.otel_agents import AgentTree
from agentic_bench.trace.jsonl import json_loads
from agentic_bench.trace.model import Session

LLM_OPS = {"chat", "text_completion", "generate_content"}
KNOWN_OPS = LLM_OPS | {"execute_tool", "embeddings"}


@dataclass(eq=False)  # identity: spans are keys of the agent tree
class Span:
    trace_id: str
    span_id: str
    name: str
    start_ns: int
    end_ns: int
    attrs: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    line: int = 0
    where: str = ""
    parent_id: str = ""

    @property
    def op(self) -> str | None:
        return self.attrs.get("gen_ai.operation.name")


def attr_value(value: Any) -> Any:
    """Decode an OTLP JSON ``AnyValue`` (``{"stringValue": ...}`` etc.)."""
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    try:
        if "intValue" in value:
            return int(value["intValue"])
        if "doubleValue" in value:
            return float(value["doubleValue"])
    except (TypeError, ValueError):
        return None
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [attr_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return attributes((value["kvlistValue"] or {}).get("values", []))
    return None


def attributes(items: Any) -> dict[str, Any]:
    if not isinstance(items, list):
        return {}
    return {kv["key"]: attr_value(kv.get("value")) for kv in items
            if isinstance(kv, dict) and isinstance(kv.get("key"), str)}


def _time(path: Path, line: int, where: str, span: dict[str, Any], key: str) -> int:
    value = span.get(key)
    try:
        return int(value)  # type: ignore[arg-type]  # OTLP JSON writes 64-bit ints as strings
    except (TypeError, ValueError):
        raise fail(path, line, f"{where}.{key}", f"missing or not an integer: {value!r}") from None


def _spans_of(path: Path, line: int, doc: Any, prefix: str) -> Iterator[Span]:
    if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
        raise fail(path, line, prefix + "resourceSpans", "missing: not an OTLP JSON trace export")
    for ri, rs in enumerate(doc["resourceSpans"]):
        for si, ss in enumerate((rs or {}).get("scopeSpans") or []):
            for pi, sp in enumerate((ss or {}).get("spans") or []):
                where = f"{prefix}resourceSpans[{ri}].scopeSpans[{si}].spans[{pi}]"
                if not isinstance(sp, dict) or not sp.get("traceId"):
                    raise fail(path, line, f"{where}.traceId", "missing")
                start = _time(path, line, where, sp, "startTimeUnixNano")
                end = _time(path, line, where, sp, "endTimeUnixNano")
                if end < start:
                    raise fail(path, line, f"{where}.endTimeUnixNano", "ends before it starts")
                events = [(str(ev.get("name", "")), attributes(ev.get("attributes")))
                          for ev in sp.get("events") or [] if isinstance(ev, dict)]
                yield Span(str(sp["traceId"]), str(sp.get("spanId", "")), str(sp.get("name", "")),
                           start, end, attributes(sp.get("attributes")), events, line, where,
                           str(sp.get("parentSpanId") or ""))


def _first_line_is_json(path: Path) -> bool:
    with open(path, "rb") as fh:
        line = fh.readline(1 << 24)
    try:
        return isinstance(json_loads(line), dict)
    except ValueError:
        return False


def read_spans(path: Path) -> list[Span]:
    """Spans of one OTLP JSON document, or of JSON Lines holding one document per line."""
    if first_char(path) == "{":
        try:
            doc = load_json(path)
        except TraceError:
            if not _first_line_is_json(path):
                raise  # a broken single document: report its own line
            doc = None  # JSON Lines of export requests
        if isinstance(doc, dict):
            return list(_spans_of(path, 0, doc, ""))
    spans: list[Span] = []
    for line, doc in iter_jsonl(path):
        spans.extend(_spans_of(path, line, doc, ""))
    return spans


def import_otel(path: Path) -> Iterator[Session]:
    all_spans = read_spans(path)
    conv_of_trace: dict[str, str] = {}
    for s in all_spans:  # any span of a trace (e.g. invoke_agent) may carry the conversation id
        cid = s.attrs.get("gen_ai.conversation.id")
        if cid and s.trace_id not in conv_of_trace:
            conv_of_trace[s.trace_id] = str(cid)
    agents = AgentTree(all_spans)
    spans = [s for s in all_spans if s.op in KNOWN_OPS]
    if not spans:
        raise fail(path, 0, "", "no spans with gen_ai.operation.name chat/execute_tool/"
                   "embeddings found")
    groups: dict[str, list[Span]] = {}
    for s in spans:
        groups.setdefault(conv_of_trace.get(s.trace_id, s.trace_id), []).append(s)
    t0 = min(s.start_ns for s in spans)
    ordered = sorted(groups.items(), key=lambda kv: min(s.start_ns for s in kv[1]))
    for key, group in ordered:
        group.sort(key=lambda s: (s.start_ns, s.end_ns))
        yield _session(path, key, group, t0, agents)


class _Found:
    """What the spans of a session declare besides their steps."""

    def __init__(self) -> None:
        self.tool_defs: list[dict[str, Any]] = []
        self.models: set[str] = set()


def _feed(path: Path, b: SessionBuilder, s: Span, found: _Found) -> None:
    try:
        if s.op in LLM_OPS:
            msgs = om.input_messages(s.attrs, s.events)
            out = om.output(s.attrs, s.events)
            b.llm(s.trace_id, s.start_ns, s.end_ns, msgs, out, _params(s.attrs),
                  _usage(s.attrs))
            if isinstance(s.attrs.get("gen_ai.request.model"), str):
                found.models.add(s.attrs["gen_ai.request.model"])
            if "gen_ai.tool.definitions" in s.attrs and not found.tool_defs:
                found.tool_defs = _tool_defs(s.attrs["gen_ai.tool.definitions"])
        elif s.op == "execute_tool":
            name = s.attrs.get("gen_ai.tool.name")
            if not isinstance(name, str) or not name:
                raise om.MessageError("execute_tool span without gen_ai.tool.name")
            result = s.attrs.get("gen_ai.tool.call.result", "")
            b.tool(s.start_ns, s.end_ns, name, s.attrs.get("gen_ai.tool.call.id"),
                   decode_arguments(s.attrs.get("gen_ai.tool.call.arguments")) or {},
                   result if isinstance(result, str) else json.dumps(result))
        else:
            b.stage(s.start_ns, s.end_ns, "embed")
    except om.MessageError as exc:
        raise fail(path, s.line, s.where, str(exc)) from None


def _build(path: Path, b: SessionBuilder, spans: list[Span], agents: AgentTree,
           level: frozenset[Span | None], found: _Found) -> None:
    """Feed ``b`` the spans of agents ``level`` and, as parallel steps, their subagents."""
    mine = [s for s in spans if agents.owner(s) in level]
    events: list[tuple[int, int, Span | list[Span]]] = [(s.start_ns, 0, s) for s in mine]
    events += [(min(a.start_ns for a in c), 1, c) for c in agents.clusters(level)]
    for _, _, event in sorted(events, key=lambda e: (e[0], e[1])):
        if isinstance(event, Span):
            _feed(path, b, event, found)
            continue
        branches = []
        for agent in event:
            sub = SessionBuilder()
            _build(path, sub, spans, agents, frozenset({agent}), found)
            turns = sub.finish()
            steps = [st for t in turns for st in t["steps"]]
            if not any(st["kind"] in ("llm", "parallel") for st in steps):
                b.dropped += 1  # a subagent that made no model call: nothing to replay
                continue
            name = agent.attrs.get("gen_ai.agent.name")
            branches.append({"name": str(name or agent.name), "task": turns[0]["user"],
                             "steps": steps, **({"system": sub.system} if sub.system else {})})
        if branches:
            b.parallel(min(a.start_ns for a in event), max(a.end_ns for a in event), branches)


def _session(path: Path, key: str, spans: list[Span], t0: int, agents: AgentTree) -> Session:
    b = SessionBuilder()
    found = _Found()
    _build(path, b, spans, agents, agents.top_level(spans), found)
    tool_defs, models = found.tool_defs, found.models
    if not b.finish():
        raise fail(path, spans[0].line, spans[0].where, f"session {key!r} has no chat span")
    metadata: dict[str, Any] = {"source": "otel-genai", "trace_ids": sorted(
        {s.trace_id for s in spans})}
    if models:
        metadata["model"] = sorted(models)[0]
    if b.dropped:
        metadata["dropped_spans"] = b.dropped
    data: dict[str, Any] = {"session_id": key, "turns": b.turns, "tools": tool_defs,
                            "start_offset_s": (spans[0].start_ns - t0) / 1e9,
                            "metadata": metadata}
    if b.system:
        data["system"] = b.system
    return drop_derivable_messages(build_session(data, path, spans[0].line))


PARAM_ATTRS = {"gen_ai.request.max_tokens": "max_tokens",
               "gen_ai.request.temperature": "temperature", "gen_ai.request.top_p": "top_p",
               "gen_ai.request.frequency_penalty": "frequency_penalty",
               "gen_ai.request.presence_penalty": "presence_penalty",
               "gen_ai.request.seed": "seed", "gen_ai.request.stop_sequences": "stop"}


def _params(attrs: dict[str, Any]) -> dict[str, Any]:
    return {name: attrs[key] for key, name in PARAM_ATTRS.items() if attrs.get(key) is not None}


def _usage(attrs: dict[str, Any]) -> dict[str, int] | None:
    usage = {}
    for name, keys in (("input_tokens", ("gen_ai.usage.input_tokens",
                                         "gen_ai.usage.prompt_tokens")),
                       ("output_tokens", ("gen_ai.usage.output_tokens",
                                          "gen_ai.usage.completion_tokens"))):
        value = next((attrs[k] for k in keys if isinstance(attrs.get(k), int)), None)
        if value is not None and value >= 0:
            usage[name] = value
    return usage or None


def _tool_defs(value: Any) -> list[dict[str, Any]]:
    try:
        data = json_loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError as exc:
        raise om.MessageError(f"gen_ai.tool.definitions is not valid JSON: {exc.msg}") from None
    if not isinstance(data, list):
        raise om.MessageError("gen_ai.tool.definitions must be a JSON list")
    out = []
    for tool in data:
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict):
            out.append(tool)
        elif isinstance(tool, dict) and isinstance(tool.get("name"), str):
            fn = {k: tool[k] for k in ("name", "description", "parameters") if k in tool}
            out.append({"type": "function", "function": fn})
    return out
