"""LangSmith runs (read by :mod:`.langsmith_runs`) as a session tree of the native format.

It holds the mapping of one trace's runs to turns and steps: :class:`Level` walks the runs of
one agent (the trace's root agent, or a subagent as a spawned branch) in start order — ``llm``
runs → ``llm`` steps (with :func:`params` and :func:`ttft_ms`), ``tool`` / ``retriever`` /
``embedding`` runs → ``tool`` / ``retrieve`` / ``embed`` steps, subagents → ``spawn`` and
``join`` steps, gaps → ``wait`` steps or ``think_time_s``; :class:`Trace` collects what the
session declares and counts; :func:`session_of` builds the session. The format and the mapping
rules are in :mod:`.langsmith`'s docstring.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.atif_trajectories import drop_derivable
from agentic_bench.trace.importers.common import build_session, declare_tools, decode_arguments
from agentic_bench.trace.importers.langsmith_runs import (
    SOURCE,
    Run,
    input_messages,
    message,
    output,
    owner,
    parse_time,
    tool_above,
    usage,
)
from agentic_bench.trace.model import Session
from agentic_bench.trace.semantics import PARAM_RULES

PARAMS = ("max_tokens", "max_completion_tokens", "temperature", "top_p", "seed", "stop",
          "presence_penalty", "frequency_penalty")
NO_CONTENT = "(content not captured)"


def ttft_ms(run: Run) -> float | None:
    """First ``new_token`` event (else ``first_token_time``) minus the start."""
    for i, ev in enumerate(run.raw.get("events") or []):
        if isinstance(ev, dict) and ev.get("name") == "new_token" and ev.get("time"):
            t = parse_time(run.path, run.line, f"{run.where}events[{i}].time", ev["time"])
            return max(0.0, round((t - run.start) * 1000, 3))
    if run.raw.get("first_token_time"):
        t = parse_time(run.path, run.line, f"{run.where}first_token_time",
                       run.raw["first_token_time"])
        return max(0.0, round((t - run.start) * 1000, 3))
    return None


def params(run: Run) -> dict[str, Any]:
    """Request fields recorded on the run (wrap_openai inputs, LangChain invocation_params,
    ``ls_*`` metadata), those the chat API would accept as they are."""
    inv = (run.raw.get("extra") or {}).get("invocation_params")
    out: dict[str, Any] = {}
    for src in (run.raw.get("inputs") or {}, inv if isinstance(inv, dict) else {},
                {k[3:]: v for k, v in run.meta.items() if k.startswith("ls_")}):
        for key in PARAMS:
            rule = PARAM_RULES.get(key)
            if key not in out and src.get(key) is not None and (
                    rule is None or rule[1](src[key])):  # type: ignore[operator]
                out[key] = src[key]
    return out


def _decls(run: Run, ctx: Trace) -> None:
    inv = (run.raw.get("extra") or {}).get("invocation_params") or {}
    for src in ((run.raw.get("inputs") or {}).get("tools"), inv.get("tools")):
        for tool in src if isinstance(src, list) else []:
            fn = tool.get("function") if isinstance(tool, dict) and isinstance(
                tool.get("function"), dict) else tool
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                ctx.tools.setdefault(fn["name"], {"type": "function", "function": {
                    "name": fn["name"], **({"description": fn["description"]}
                                           if "description" in fn else {}),
                    "parameters": fn.get("parameters") or fn.get("input_schema")
                    or {"type": "object", "properties": {}}}})
    model = inv.get("model") or inv.get("model_name") or run.meta.get("ls_model_name") or (
        run.raw.get("inputs") or {}).get("model")
    if isinstance(model, str) and model:
        ctx.models.add(model)


def _text(value: Any) -> str:
    if isinstance(value, dict):
        for key in ("input", "question", "query", "task", "prompt"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return value if isinstance(value, str) else NO_CONTENT


@dataclass
class Trace:
    """One trace while converting: its runs, subagents, start, and what the session collects."""

    runs: list[Run]
    subs: set[Run]
    t0: float
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    models: set[str] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)
    ids: set[str] = field(default_factory=set)

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def rel(self, t: float) -> float:
        return round(max(0.0, t - self.t0), 6)


class Level:
    """The steps of one agent: the trace's root agent (turns) or a subagent (one branch)."""

    def __init__(self, ctx: Trace, agent: Run | None) -> None:
        self.ctx, self.agent, self.branch = ctx, agent, agent is not None
        self.system: str | None = None
        self.turns: list[dict[str, Any]] = []
        self.buffer: list[dict[str, Any]] = []  # steps before the first llm call
        self.cursor: float | None = None  # end of the last call (or of a joined subagent)
        self.pending = 0.0  # tool time recorded since the cursor, seconds
        self.calls: list[dict[str, Any]] = []  # the last call's tool calls
        self.used: set[int] = set()
        self.users = -1
        self.fresh = False

    def steps(self) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = self.turns[-1]["steps"] if self.turns else self.buffer
        return steps

    def run(self) -> None:
        ctx, agent = self.ctx, self.agent
        subs = [s for s in ctx.subs if owner(s, ctx.subs) is agent]
        mine = [r for r in ctx.runs if (r is agent and r.run_type == "llm") or (
            r not in ctx.subs and owner(r, ctx.subs) is agent and (r.run_type == "llm" or (
                r.run_type in ("tool", "retriever", "embedding") and not tool_above(r, agent))))]
        events = []
        for r in mine:
            wraps = [s for s in subs if tool_above(s, agent) is r]
            key = r.end if wraps and r.end is not None else r.start
            events.append((key, 1, r.order, r, wraps))
        events += [(s.start, 0, s.order, s, []) for s in subs]
        running: list[tuple[str, Run, Run | None]] = []
        for _, kind, _, r, wraps in sorted(events, key=lambda e: e[:3]):
            if kind == 0:
                bid = self._spawn(r)
                if bid:
                    running.append((bid, r, tool_above(r, agent)))
                continue
            due = [x for x in running if x[2] is r or (x[1].end is not None
                                                        and r.start >= x[1].end - 1e-6)]
            if due:
                self._join(due)
                running = [x for x in running if x not in due]
            if r.run_type == "llm":
                self._llm(r)
            else:
                self._stage(r, wraps)
        if self.buffer:  # no llm call of its own (or steps after none): one turn holds them
            if self.turns:
                self.turns[-1]["steps"].extend(self.buffer)
            else:
                root = agent or next((r for r in ctx.runs if r.parent is None), ctx.runs[0])
                self.turns.append({"user": _text(root.raw.get("inputs")), "think_time_s": 0.0,
                                   "steps": self.buffer})
            self.buffer = []

    def _gap(self, start: float) -> None:
        if self.cursor is None:
            return
        gap = round(max(0.0, start - self.cursor - self.pending), 6)
        if self.fresh and len(self.turns) > 1:
            self.turns[-1]["think_time_s"] = gap
        elif gap > 1e-6:
            self.steps().append({"kind": "wait", "duration_ms": round(gap * 1000, 3),
                                 "reason": "gap"})

    def _llm(self, r: Run) -> None:
        msgs = input_messages(r)
        users = [m for m in msgs or [] if m["role"] == "user"]
        if not self.turns or (not self.branch and msgs is not None and len(users) > self.users):
            if not self.turns and msgs and msgs[0]["role"] == "system":
                self.system = msgs[0]["content"]
            user = users[-1]["content"] if users else _text(
                (self.agent or r).raw.get("inputs")) if msgs is None else ""
            self.turns.append({"user": user, "think_time_s": 0.0, "steps": self.buffer})
            self.buffer, self.fresh = [], True
        self.users = len(users) if msgs is not None else self.users
        self._gap(r.start)
        _decls(r, self.ctx)
        step: dict[str, Any] = {"kind": "llm", "params": params(r), "start_s": self.ctx.rel(
            r.start)}
        if msgs is not None:
            step["messages"] = msgs
        out = output(r)
        self.calls, self.used = (out[1] if out else []), set()
        if out is not None:
            step["output"] = {"tool_calls": out[1], **({"content": out[0]} if out[0] else {})}
        tokens, ttft = usage(r), ttft_ms(r)
        if tokens:
            step["usage"] = tokens
        if r.end is not None:
            step["duration_ms"] = round((r.end - r.start) * 1000, 3)
        if ttft is not None:
            step["ttft_ms"] = ttft
        if r.raw.get("error"):
            self.ctx.add("error_llm_runs")
        self.steps().append(step)
        self.cursor, self.pending, self.fresh = r.end, 0.0, False

    def _stage(self, r: Run, wraps: list[Run]) -> None:
        inputs, outs = r.raw.get("inputs") or {}, r.raw.get("outputs") or {}
        took = 0.0 if r.end is None else r.end - r.start
        took = max(0.0, took - sum(s.end - s.start for s in wraps if s.end is not None))
        self.pending += took
        step: dict[str, Any] = {"duration_ms": round(took * 1000, 3)}
        if r.run_type == "retriever":
            docs = [(d.get("kwargs") or d) for d in outs.get("documents") or []
                    if isinstance(d, dict)]
            step.update(kind="retrieve", query=_text(inputs), documents=[{
                "text": str(d.get("page_content", "")),
                **{k: v for k, v in (("id", d.get("id") or (d.get("metadata") or {}).get("id")),
                                     ("title", (d.get("metadata") or {}).get("title")))
                   if isinstance(v, str)}} for d in docs])
        elif r.run_type == "embedding":
            texts = inputs.get("texts") or inputs.get("input") or []
            step.update(kind="embed", inputs=[str(t) for t in (
                texts if isinstance(texts, list) else [texts])])
        else:
            result = outs.get("output", outs) if outs else ""
            tm = message(result) if isinstance(result, dict) else None
            text = tm["content"] if tm is not None else result if isinstance(
                result, str) else json.dumps(result, ensure_ascii=False, default=str)
            cid = (tm or {}).get("tool_call_id") or inputs.get("tool_call_id")
            call = next((c for c in self.calls if cid and c.get("id") == cid), None) or next(
                (c for c in self.calls if c["name"] == r.name and id(c) not in self.used), None)
            raw_in = inputs.get("input", inputs)
            args = call["arguments"] if call else (decode_arguments(raw_in) if not isinstance(
                raw_in, str) or decode_arguments(raw_in) is not None else {"input": raw_in})
            step.update(kind="tool", name=r.name, arguments=args or {}, result=text)
            if call is not None:
                self.used.add(id(call))
                if call.get("id"):
                    step["call_id"] = call["id"]
        self.steps().append(step)

    def _spawn(self, s: Run) -> str | None:
        sub = Level(self.ctx, s)
        sub.run()
        steps = [st for t in sub.turns for st in t["steps"]]
        if not any(st["kind"] in ("llm", "spawn") for st in steps):
            self.ctx.add("dropped_subagents")
            return None
        bid, n = s.name or "subagent", 1
        while bid in self.ctx.ids:
            n += 1
            bid = f"{s.name or 'subagent'}#{n}"
        self.ctx.ids.add(bid)
        branch = {"id": bid, "name": s.name, "task": sub.turns[0]["user"], "steps": steps,
                  "metadata": {"run_id": s.id, "run_type": s.run_type}}
        if sub.system is not None:
            branch["system"] = sub.system
        self.steps().append({"kind": "spawn", "branch": branch, "start_s": self.ctx.rel(
            s.start)})
        return bid

    def _join(self, due: list[tuple[str, Run, Run | None]]) -> None:
        self.steps().append({"kind": "join", "branches": [b for b, _, _ in due]})
        ends = [s.end for _, s, _ in due]
        if all(e is not None for e in ends):
            self.cursor = max(e for e in [self.cursor, *ends] if e is not None)
            self.pending = 0.0
        else:
            self.cursor = None


def _used(steps: list[dict[str, Any]]) -> Iterator[str]:
    for st in steps:
        if st["kind"] == "llm":
            yield from (c["name"] for c in st.get("output", {}).get("tool_calls", []))
        elif st["kind"] == "tool":
            yield st["name"]
        elif st["kind"] == "spawn":
            yield from _used(st["branch"]["steps"])


def session_of(group: list[Run], subs: set[Run], t_first: float, path: Path) -> Session:
    """One trace's runs (``group``, ordered) as a session; ``subs``: the subagents of
    the export, ``t_first``: its first start."""
    ctx = Trace(group, {s for s in subs if s.trace_id == group[0].trace_id},
                group[0].start)
    level = Level(ctx, None)
    level.run()
    root = next((r for r in group if r.parent is None), group[0])
    meta: dict[str, Any] = {"source": SOURCE, "trace_id": group[0].trace_id,
                            "root_run": root.name}
    for key in ("thread_id", "session_id", "conversation_id"):
        if isinstance(root.meta.get(key), str):
            meta["thread_id"] = root.meta[key]
            break
    if len(ctx.models) == 1:
        meta["model"] = next(iter(ctx.models))
    elif ctx.models:
        meta["models"] = sorted(ctx.models)
    meta.update(sorted(ctx.counts.items()))
    steps = [st for t in level.turns for st in t["steps"]]
    tools, added = declare_tools(list(ctx.tools.values()), _used(steps))
    if added:
        meta["stub_tool_declarations"] = added
    data: dict[str, Any] = {"session_id": group[0].trace_id, "turns": level.turns,
                            "tools": tools, "metadata": meta,
                            "start_offset_s": round(group[0].start - t_first, 6)}
    if level.system is not None:
        data["system"] = level.system
    return drop_derivable(build_session(data, path, root.line))


__all__ = ["Level", "Trace", "params", "session_of", "ttft_ms"]
