"""Reading of LangSmith run exports (the format and the mapping are described in
:mod:`.langsmith`'s docstring): each run checked and linked into its trace's tree
(:func:`read_runs`), which runs are subagents (:func:`subagents`, :func:`owner`,
:func:`tool_above`), and what a run says in OpenAI's shape: its request messages, its reply's
text and tool calls, its token usage. The conversion (:mod:`.langsmith_tree`) and the entry
points with the source's own counts (:mod:`.langsmith`) build on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentic_bench.errors import TraceError
from agentic_bench.trace.importers.atif_trajectories import first_line_object
from agentic_bench.trace.importers.common import (
    decode_arguments,
    fail,
    iter_jsonl,
    load_json,
    text_of,
)
from agentic_bench.trace.jsonl import json_loads

SOURCE = "langsmith"
NOT_AGENT = {"tool", "retriever", "embedding", "prompt", "parser"}
ROLES = {"human": "user", "user": "user", "ai": "assistant", "assistant": "assistant",
         "system": "system", "developer": "system", "tool": "tool", "function": "tool",
         "HumanMessage": "user", "AIMessage": "assistant", "AIMessageChunk": "assistant",
         "SystemMessage": "system", "ToolMessage": "tool", "FunctionMessage": "tool"}


@dataclass(eq=False)
class Run:
    """One run (span) as read, with where it was read (for errors)."""

    id: str
    trace_id: str
    parent_id: str | None
    run_type: str
    name: str
    start: float
    end: float | None
    order: str
    raw: dict[str, Any]
    path: Path
    line: int
    where: str
    children: list[Run] = field(default_factory=list)
    parent: Run | None = None

    @property
    def meta(self) -> dict[str, Any]:
        m = (self.raw.get("extra") or {}).get("metadata")
        return m if isinstance(m, dict) else {}


def parse_time(path: Path, line: int, where: str, value: Any) -> float:
    try:
        t = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise fail(path, line, where, f"not an ISO 8601 time: {value!r}") from None
    return round((t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp(), 6)


def _run(path: Path, line: int, where: str, obj: Any) -> Run:
    def bad(key: str, message: str) -> TraceError:
        return fail(path, line, f"{where}{key}", message)

    if not isinstance(obj, dict):
        raise bad("", "a run must be an object")
    for key in ("id", "run_type"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            raise bad(key, "missing or not a non-empty string")
    if obj.get("start_time") is None:
        raise bad("start_time", "missing")
    start = parse_time(path, line, f"{where}start_time", obj["start_time"])
    end = None if obj.get("end_time") is None else parse_time(path, line, f"{where}end_time",
                                                         obj["end_time"])
    if end is not None and end < start:
        raise bad("end_time", "ends before it starts")
    for key in ("inputs", "outputs", "extra"):
        if obj.get(key) is not None and not isinstance(obj[key], dict):
            raise bad(key, "must be an object")
    for key in ("events", "tags"):
        if obj.get(key) is not None and not isinstance(obj[key], list):
            raise bad(key, "must be a list")
    for key in ("prompt_tokens", "completion_tokens"):
        v = obj.get(key)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise bad(key, f"expected an integer >= 0, got {v!r}")
    if obj["run_type"] == "tool" and not obj.get("name"):
        raise bad("name", "a tool run needs the tool's name")
    parent = obj.get("parent_run_id")
    return Run(obj["id"], str(obj.get("trace_id") or ""), str(parent) if parent else None,
               obj["run_type"], str(obj.get("name") or ""), start, end,
               str(obj.get("dotted_order") or ""), obj, path, line, where)


def read_runs(path: Path) -> list[Run]:
    """Every run of a JSONL export (or of a JSON array / ``{"runs": [...]}``), linked."""
    path = Path(path)
    first = first_line_object(path)
    if first is not None and not isinstance(first.get("runs", first.get("data")), list):
        runs = [_run(path, line, "", obj) for line, obj in iter_jsonl(path)]
    else:  # one JSON document: an array of runs, {"runs": [...]}, or one run
        doc = load_json(path)
        if isinstance(doc, list):
            runs = [_run(path, 0, f"[{i}].", r) for i, r in enumerate(doc)]
        elif isinstance(doc, dict) and isinstance(doc.get("runs", doc.get("data")), list):
            key = "runs" if isinstance(doc.get("runs"), list) else "data"
            runs = [_run(path, 0, f"{key}[{i}].", r) for i, r in enumerate(doc[key])]
        else:
            runs = [_run(path, 0, "", doc)]
    by_id = {r.id: r for r in runs}
    for r in runs:
        r.parent = by_id.get(r.parent_id or "")
        if r.parent is not None:
            r.parent.children.append(r)
    for r in runs:
        if not r.trace_id:  # the root's id, as the SDK sets it
            top = r
            while top.parent is not None and top.parent is not r:
                top = top.parent
            r.trace_id = top.trace_id or top.id
    return runs


def _llm_below(run: Run) -> bool:
    return any(c.run_type == "llm" or _llm_below(c) for c in run.children)


def subagents(runs: list[Run]) -> set[Run]:
    """Runs that are subagents: a run with LLM calls below it directly under a tool run, or
    flagged ``ls_agent_type: subagent``; an llm run a tool makes (however deep) is one too. A
    candidate that makes no LLM call of its own (all are inside candidates below it) is a
    wrapper, not an agent."""
    found = {r for r in runs if r.run_type not in NOT_AGENT and r.parent is not None
             and _llm_below(r) and (r.parent.run_type == "tool"
                                    or r.meta.get("ls_agent_type") == "subagent")}
    found |= {r for r in runs if r.run_type == "llm" and tool_above(r, found)}
    owners = {id(o) for r in runs if r.run_type == "llm" and (o := owner(r, found, True))}
    return {r for r in found if id(r) in owners}


def owner(run: Run, subs: set[Run], self_too: bool = False) -> Run | None:
    """The subagent a run belongs to (its nearest subagent ancestor); None: the root agent."""
    cur = run if self_too else run.parent
    while cur is not None:
        if cur in subs:
            return cur
        cur = cur.parent
    return None


def tool_above(run: Run, agents: Run | set[Run] | None) -> Run | None:
    """The nearest tool run above ``run`` inside its agent (stopping at ``agents``)."""
    cur = run.parent
    while cur is not None and not (cur is agents or (isinstance(agents, set)
                                                     and cur in agents)):
        if cur.run_type == "tool":
            return cur
        cur = cur.parent
    return None


def message(m: Any) -> dict[str, Any] | None:
    """A LangChain (serialized or ``messages_to_dict``) or OpenAI message as an OpenAI one."""
    if isinstance(m, str):
        return {"role": "user", "content": m}
    if not isinstance(m, dict):
        return None
    if isinstance(m.get("kwargs"), dict):  # {"lc": 1, "type": "constructor", "id": [...]}
        ids: list[Any] = m["id"] if isinstance(m.get("id"), list) and m["id"] else [""]
        m = {**m["kwargs"], "role": m["kwargs"].get("role") or ROLES.get(str(ids[-1]))
             or ROLES.get(str(m["kwargs"].get("type")))}
    elif isinstance(m.get("data"), dict) and "role" not in m:  # messages_to_dict
        m = {**m["data"], "role": m["data"].get("role") or ROLES.get(str(m.get("type")))}
    role = ROLES.get(str(m.get("role") or m.get("type")))
    if role is None:
        return None
    out: dict[str, Any] = {"role": role, "content": text_of(m.get("content"))}
    calls = tool_calls(m)
    if calls:
        out["tool_calls"] = [{**({"id": c["id"]} if "id" in c else {}), "type": "function",
                              "function": {"name": c["name"], "arguments": json.dumps(
                                  c["arguments"], ensure_ascii=False)}} for c in calls]
    if role == "tool":
        out["tool_call_id"] = str(m.get("tool_call_id") or "")
    return out


def tool_calls(m: dict[str, Any]) -> list[dict[str, Any]]:
    """Tool calls of an assistant message in LangChain, OpenAI or Anthropic shape."""
    content: list[Any] = m["content"] if isinstance(m.get("content"), list) else []
    extra = m.get("additional_kwargs")
    raw = m.get("tool_calls") or (extra.get("tool_calls") if isinstance(extra, dict) else
                                  None) or [b for b in content if isinstance(b, dict)
                                            and b.get("type") == "tool_use"]
    calls = []
    for c in raw if isinstance(raw, list) else []:
        if not isinstance(c, dict):
            continue
        fn: dict[str, Any] = c["function"] if isinstance(c.get("function"), dict) else c
        name = fn.get("name")
        args = decode_arguments(fn.get("args", fn.get("arguments", fn.get("input"))))
        if isinstance(name, str) and name:
            calls.append({"name": name, "arguments": args if args is not None else {},
                          **({"id": str(c["id"])} if c.get("id") else {})})
    return calls


def input_messages(run: Run) -> list[dict[str, Any]] | None:
    """The request's messages (``inputs.messages``, one batch; or ``inputs.prompts``)."""
    inputs = run.raw.get("inputs") or {}
    msgs = inputs.get("messages")
    if isinstance(msgs, list) and msgs and isinstance(msgs[0], list):
        msgs = msgs[0]
    if not isinstance(msgs, list):
        prompts = inputs.get("prompts")
        msgs = prompts[:1] if isinstance(prompts, list) and prompts else None
    if msgs is None:
        return None
    out = [x for x in (message(m) for m in msgs) if x is not None]
    if isinstance(inputs.get("system"), str):  # Anthropic-shaped requests
        out.insert(0, {"role": "system", "content": inputs["system"]})
    return out


def output(run: Run) -> tuple[str, list[dict[str, Any]]] | None:
    """The reply's text and tool calls (LangChain generations, OpenAI choices, a message)."""
    out = run.raw.get("outputs") or {}
    gens = out.get("generations")
    while isinstance(gens, list) and gens and isinstance(gens[0], list):
        gens = gens[0]
    cand: Any = None
    if isinstance(gens, list) and gens and isinstance(gens[0], dict):
        cand = gens[0].get("message") or {"role": "assistant", "content": gens[0].get("text")}
    elif isinstance(out.get("choices"), list) and out["choices"]:
        choice = out["choices"][0] if isinstance(out["choices"][0], dict) else {}
        cand = choice.get("message") or {"role": "assistant", "content": choice.get("text")}
    elif isinstance(out.get("output"), dict | str):
        cand = out["output"]
    elif "content" in out or "kwargs" in out:
        cand = out
    if isinstance(cand, dict) and "role" not in cand and "kwargs" not in cand:
        cand = {**cand, "role": "assistant"}
    msg = message(cand) if cand is not None else None
    if msg is None:
        return None
    return msg["content"], tool_calls_of(msg)


def tool_calls_of(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": c["function"]["name"], "arguments": json_loads(c["function"]["arguments"]),
             **({"id": c["id"]} if c.get("id") else {})} for c in msg.get("tool_calls", [])]


def usage(run: Run) -> dict[str, int]:
    """Token counts from the first place that gives them (run fields, usage_metadata,
    ``llm_output.token_usage``, the generation's message, an OpenAI ``usage``)."""
    raw, out = run.raw, run.raw.get("outputs") or {}
    gens = out.get("generations")
    while isinstance(gens, list) and gens and isinstance(gens[0], list):
        gens = gens[0]
    gmsg = gens[0].get("message") if isinstance(gens, list) and gens and isinstance(
        gens[0], dict) else None
    gmsg = (gmsg.get("kwargs") or gmsg) if isinstance(gmsg, dict) else {}
    for src in (raw, out.get("usage_metadata"), run.meta.get("usage_metadata"),
                (out.get("llm_output") or {}).get("token_usage"),
                (out.get("llm_output") or {}).get("usage"), gmsg.get("usage_metadata"),
                out.get("usage")):
        if not isinstance(src, dict):
            continue
        got = {}
        for name, keys in (("input_tokens", ("prompt_tokens", "input_tokens")),
                           ("output_tokens", ("completion_tokens", "output_tokens"))):
            v = next((src[k] for k in keys if isinstance(src.get(k), int)), None)
            if v is not None and v >= 0 and not isinstance(v, bool):
                got[name] = v
        if got:
            return got
    return {}


__all__ = ["NOT_AGENT", "ROLES", "SOURCE", "Run", "input_messages", "message", "output",
           "owner", "parse_time", "read_runs", "subagents", "tool_above", "tool_calls",
           "tool_calls_of", "usage"]
