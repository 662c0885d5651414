"""ATIF trajectories (read and checked by :mod:`.atif_trajectories`) as a session tree of the
native format.

It holds the conversion of one root trajectory: :class:`Conversation` walks its steps into
turns (system steps before the conversation → ``system``; each user step → a turn; each agent
step that made an LLM call → an ``llm`` step with the history ATIF implies; observation results
→ ``tool`` steps; gaps → ``wait`` steps or ``think_time_s``), resolving subagent refs into
``spawn`` steps joined right after; :class:`Counts` collects what the session declares and
counts; :func:`session_of` builds the session. The format and the mapping rules are in
:mod:`.atif`'s docstring.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agentic_bench.trace.history import assistant_message
from agentic_bench.trace.importers.atif_trajectories import (
    SOURCE,
    TTFT_KEYS,
    Doc,
    Resolver,
    check,
    drop_derivable,
    duration_ms,
    extra_ms,
    is_request,
    parse_time,
    refs,
    text,
)
from agentic_bench.trace.importers.common import build_session, declare_tools
from agentic_bench.trace.model import Session


@dataclass
class Counts:
    """What one session collects while converting: tools, models, counters, ids."""

    t0: float | None
    resolver: Resolver
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    models: set[str] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)
    ids: set[str] = field(default_factory=set)
    seen: set[tuple[str, str]] = field(default_factory=set)

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def rel(self, t: float | None) -> float | None:
        return None if t is None or self.t0 is None else round(max(0.0, t - self.t0), 6)


class Conversation:
    """The steps of one trajectory: the session's turns, or (``branch``) a subagent's, whose
    later user steps join its one conversation (their gaps become ``wait`` steps)."""

    def __init__(self, ctx: Counts, doc: Doc, branch: bool) -> None:
        self.ctx, self.doc, self.branch = ctx, doc, branch
        self.system: str | None = None
        self.turns: list[dict[str, Any]] = []
        self.hist: list[dict[str, Any]] = []  # the chat history ATIF implies so far
        self.cursor: float | None = None  # end of the last call (or of a joined subagent)
        self.pending = 0.0  # tool time recorded since the cursor, seconds
        self._systems: list[str] = []
        self._fresh = False  # the current turn has no llm step yet

    def _steps(self) -> list[dict[str, Any]]:
        if not self.turns:
            self.turns.append({"user": "", "think_time_s": 0.0, "steps": []})
            self._fresh = True
        steps: list[dict[str, Any]] = self.turns[-1]["steps"]
        return steps

    def run(self) -> None:
        started = False
        for i, step in enumerate(self.doc.data["steps"]):
            w = f"steps[{i}]"
            msg = text(step["message"], self.ctx.counts)
            if step["source"] == "system":
                if started:
                    self.ctx.add("dropped_system_messages")
                else:
                    self._systems.append(msg)
                self._subagents(step, w)
                continue
            if not started:
                started = True
                if self._systems:
                    self.system = "\n\n".join(self._systems)
                    self.hist.append({"role": "system", "content": self.system})
            if step["source"] == "user":
                self.hist.append({"role": "user", "content": msg})
                if not self.branch or not self.turns:
                    self.turns.append({"user": msg, "think_time_s": 0.0, "steps": []})
                    self._fresh = True
            else:
                self._agent(step, w, msg)

    def _gap(self, start: float | None, steps: list[dict[str, Any]]) -> None:
        if self.cursor is None or start is None:
            return
        gap = round(max(0.0, start - self.cursor - self.pending), 6)
        if self._fresh and len(self.turns) > 1:
            self.turns[-1]["think_time_s"] = gap
        elif gap > 1e-6:
            steps.append({"kind": "wait", "duration_ms": round(gap * 1000.0, 3),
                          "reason": "gap"})

    def _agent(self, step: dict[str, Any], w: str, msg: str) -> None:
        ctx = self.ctx
        if step.get("reasoning_content"):
            ctx.add("dropped_reasoning_content")
        calls = [{"id": c["tool_call_id"], "name": c["function_name"],
                  "arguments": c["arguments"]} for c in step.get("tool_calls") or []]
        steps = self._steps()
        request = is_request(step)
        if request:
            start = parse_time(self.doc, step.get("timestamp"), f"{w}.timestamp")
            self._gap(start, steps)
            metrics = step.get("metrics") or {}
            llm: dict[str, Any] = {"kind": "llm", "messages": list(self.hist), "output": {
                "tool_calls": calls, **({"content": msg} if msg else {})}}
            usage = {k: metrics[m] for k, m in (("input_tokens", "prompt_tokens"),
                                                 ("output_tokens", "completion_tokens"))
                     if metrics.get(m) is not None}
            if usage:
                llm["usage"] = usage
            ctx.add("cached_tokens", metrics.get("cached_tokens") or 0)
            dur, ttft = duration_ms(step), extra_ms(step, TTFT_KEYS)
            if dur is not None:
                llm["duration_ms"] = dur
            if ttft is not None:
                llm["ttft_ms"] = ttft
            if ctx.rel(start) is not None:
                llm["start_s"] = ctx.rel(start)
            if isinstance(step.get("model_name"), str):
                ctx.models.add(step["model_name"])
            if (step.get("llm_call_count") or 1) > 1:
                ctx.add("aggregated_llm_calls", step["llm_call_count"])
            steps.append(llm)
            self.cursor = None if start is None or dur is None else start + dur / 1000.0
            self.pending, self._fresh = 0.0, False
        else:
            ctx.add("copied_context_steps" if step.get("is_copied_context") else
                    "no_llm_dispatch_steps")
        self.hist.append(assistant_message(msg, [
            {"id": c["id"], "name": c["name"],
             "arguments": json.dumps(c["arguments"], ensure_ascii=False)} for c in calls]))
        if not step.get("is_copied_context"):
            self._subagents(step, w)
        by_id = {c["id"]: c for c in calls}
        for res in (step.get("observation") or {}).get("results") or []:
            content = "" if res.get("content") is None else text(res["content"], ctx.counts)
            sid = res.get("source_call_id")
            if sid is None:
                if content and not res.get("subagent_trajectory_ref"):
                    self.hist.append({"role": "user", "content": content})
                    ctx.add("observations_as_user_messages")
                continue
            self.hist.append({"role": "tool", "tool_call_id": sid, "content": content})
            extra = res.get("extra") if isinstance(res.get("extra"), dict) else {}
            took = extra.get("duration_ms")
            took = float(took) if isinstance(took, int | float) and took >= 0 else 0.0
            self.pending += took / 1000.0
            if request:
                call = by_id[sid]
                steps.append({"kind": "tool", "call_id": sid, "name": call["name"],
                              "arguments": call["arguments"], "result": content,
                              "duration_ms": took})

    def _subagents(self, step: dict[str, Any], w: str) -> None:
        """Spawn every subagent the step's observation references; the parent joins them
        right away (it waits for the delegated result)."""
        ctx, joined = self.ctx, []
        for res in (step.get("observation") or {}).get("results") or []:
            for ref in res.get("subagent_trajectory_ref") or []:
                sub = ctx.resolver.resolve(self.doc, ref)
                key = (str(sub.path), sub.where) if sub is not None else None
                if sub is None or key is None or key in ctx.seen:  # missing, or a cycle
                    ctx.add("unresolved_subagents")
                    continue
                check(sub)
                ctx.seen.add(key)
                conv = Conversation(ctx, sub, branch=True)
                conv.run()
                ctx.seen.discard(key)
                steps = [st for t in conv.turns for st in t["steps"]]
                if not any(st["kind"] in ("llm", "spawn") for st in steps):
                    ctx.add("dropped_subagents")
                    continue
                _tool_decls(sub, ctx)
                d, agent = sub.data, sub.data["agent"]
                base = str(d.get("trajectory_id") or d.get("session_id") or "subagent")
                bid, n = base, 1
                while bid in ctx.ids:
                    n += 1
                    bid = f"{base}#{n}"
                ctx.ids.add(bid)
                meta = {k: d[k] for k in ("trajectory_id", "session_id") if d.get(k)}
                if isinstance(agent.get("model_name"), str):
                    meta["model"] = agent["model_name"]
                    ctx.models.add(agent["model_name"])
                branch = {"id": bid, "name": agent["name"], "task": conv.turns[0]["user"],
                          "steps": steps, "metadata": meta}
                if conv.system is not None:
                    branch["system"] = conv.system
                spawn: dict[str, Any] = {"kind": "spawn", "branch": branch}
                first = min(_times(sub, None), default=None)
                if ctx.rel(first) is not None:
                    spawn["start_s"] = ctx.rel(first)
                self._steps().append(spawn)
                joined.append((bid, conv.cursor))
        if joined:
            self._steps().append({"kind": "join", "branches": [b for b, _ in joined]})
            ends = [e for _, e in joined]
            if self.cursor is not None and all(e is not None for e in ends):
                self.cursor = max([self.cursor, *(e for e in ends if e is not None)])
                self.pending = 0.0
            else:
                self.cursor = None


def _tool_decls(doc: Doc, ctx: Counts) -> None:
    for tool in (doc.data.get("agent") or {}).get("tool_definitions") or []:
        if not isinstance(tool, dict):
            continue
        fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            ctx.tools.setdefault(fn["name"], {"type": "function", "function": {
                k: fn[k] for k in ("name", "description", "parameters") if k in fn}})


def _times(doc: Doc, resolver: Resolver | None, depth: int = 0) -> Iterator[float]:
    """The timestamps of a trajectory (and, with a resolver, of its subagents)."""
    for i, step in enumerate(doc.data["steps"]):
        t = parse_time(doc, step.get("timestamp"), f"steps[{i}].timestamp")
        if t is not None:
            yield t
    if resolver is not None and depth < 32:
        for ref in refs(doc.data):
            sub = resolver.resolve(doc, ref)
            if sub is not None:
                check(sub)
                yield from _times(sub, resolver, depth + 1)


def session_of(doc: Doc, index: int, resolver: Resolver) -> Session:
    times = list(_times(doc, resolver))
    ctx = Counts(min(times) if times else None, resolver)
    _tool_decls(doc, ctx)
    conv = Conversation(ctx, doc, branch=False)
    conv.run()
    d = doc.data
    agent = d["agent"]
    if isinstance(agent.get("model_name"), str):
        ctx.models.add(agent["model_name"])
    meta: dict[str, Any] = {"source": SOURCE, "atif_schema_version": d["schema_version"],
                            "agent": {k: agent[k] for k in ("name", "version") if k in agent}}
    for key in ("trajectory_id", "continued_trajectory_ref", "final_metrics", "notes"):
        if d.get(key) is not None:
            meta[key] = d[key]
    if isinstance(agent.get("model_name"), str):
        meta["model"] = agent["model_name"]
    if ctx.models - {meta.get("model")}:
        meta["models"] = sorted(ctx.models)
    meta.update(sorted(ctx.counts.items()))
    sid = d.get("session_id") or d.get("trajectory_id") or f"{doc.path.stem}-{index}"
    names = [n for n in _used(conv.turns)]
    tools, added = declare_tools(list(ctx.tools.values()), names)
    if added:
        meta["stub_tool_declarations"] = added
    data: dict[str, Any] = {"session_id": str(sid), "turns": conv.turns, "tools": tools,
                            "metadata": meta}
    if conv.system:
        data["system"] = conv.system
    return drop_derivable(build_session(data, doc.path, doc.line))


def _used(turns: list[dict[str, Any]]) -> Iterator[str]:
    stack = [st for t in turns for st in t["steps"]]
    while stack:
        st = stack.pop()
        if st["kind"] == "llm":
            yield from (c["name"] for c in st.get("output", {}).get("tool_calls", []))
        elif st["kind"] == "tool":
            yield st["name"]
        elif st["kind"] == "spawn":
            stack.extend(st["branch"]["steps"])


__all__ = ["Conversation", "Counts", "session_of"]
