"""Claude Code conversations (:mod:`.claude_code_tree`) as turns and steps: one session per main
session file, its subagents as spawned branches (the rules are in :mod:`.claude_code_tree`'s
docstring; the format in :mod:`.claude_code`'s)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agentic_bench.trace.importers.claude_code_transcripts import SOURCE, Transcript
from agentic_bench.trace.importers.claude_code_tree import (
    UNKNOWN_TOOL,
    Conversation,
    Link,
    Request,
    begin_ts,
    conversation,
    entry_text,
    is_prompt,
    link_subagents,
    result_text,
    split_sidechains,
)
from agentic_bench.trace.importers.common import build_session, stub_tool
from agentic_bench.trace.model import Session


@dataclass
class Plan:
    """Where a conversation's spawn and join steps go."""

    first: list[dict[str, Any]] = field(default_factory=list)  # before its first call
    after: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # after id(request)
    joins: dict[int, list[str]] = field(default_factory=dict)  # before id(request)
    waited: set[str] = field(default_factory=set)  # tool results a join stands for


def llm_step(req: Request, t0: float) -> dict[str, Any]:
    text = "\n".join(str(b["text"]) for line in req.lines for b in line.blocks
                     if b["type"] == "text" and b.get("text"))
    step: dict[str, Any] = {"kind": "llm", "output": {"tool_calls": req.calls(),
                                                      **({"content": text} if text else {})},
                            "duration_ms": _ms(req.end - req.start),
                            "start_s": _s(req.start - t0)}
    usage = req.usage()
    if usage is not None:
        step["usage"] = usage
    return step


def _ms(seconds: float) -> float:
    """Milliseconds, to the microsecond the log records (no float noise of epoch seconds)."""
    return round(max(0.0, seconds) * 1000.0, 3)


def _s(seconds: float) -> float:
    return round(max(0.0, seconds), 6)


def _wait(seconds: float, reason: str) -> list[dict[str, Any]]:
    return [{"kind": "wait", "duration_ms": _ms(seconds), "reason": reason}] \
        if _ms(seconds) > 0 else []


class Builder:
    """Turns of the session's conversation, the subagents' branches inside them."""

    def __init__(self, subs: list[Conversation], links: dict[int, Link], t0: float) -> None:
        self.subs = subs
        self.links = links
        self.t0 = t0
        self.tools: set[str] = set()
        self.dropped: Counter[str] = Counter()
        self.branch_ids: set[str] = set()

    def plan(self, conv: Conversation) -> Plan:
        plan = Plan()
        children = [(sub, self.links[id(sub)]) for sub in self.subs
                    if self.links[id(sub)].parent is conv]
        for sub, link in sorted(children, key=lambda c: begin_ts(c[0])):
            spawned = link.request.end if link.request is not None else begin_ts(sub)
            bid, branch = self.branch(sub, link, spawned)
            spawn = {"kind": "spawn", "branch": branch, "start_s": _s(spawned - self.t0)}
            if link.request is None:
                plan.first.append(spawn)
            else:
                plan.after.setdefault(id(link.request), []).append(spawn)
            if link.join_before is not None:
                plan.joins.setdefault(id(link.join_before), []).append(bid)
            if link.waited_call:
                plan.waited.add(link.waited_call)
        return plan

    def branch(self, sub: Conversation, link: Link,
               spawned: float) -> tuple[str, dict[str, Any]]:
        turns = self.turns(sub)
        steps = _wait(begin_ts(sub) - spawned, "spawn offset") + list(turns[0]["steps"])
        for turn in turns[1:]:  # a branch has one task: later prompts are not carried
            self.dropped["subagent_prompts_after_the_task"] += 1
            steps += _wait(turn["think_time_s"], "user") + turn["steps"]
        base = f"agent-{sub.agent_id}" if sub.agent_id else f"sidechain-{len(self.branch_ids) + 1}"
        bid, n = base, 1
        while bid in self.branch_ids:  # an agent id recorded twice stays two branches
            n += 1
            bid = f"{base}#{n}"
        self.branch_ids.add(bid)
        args = link.call["arguments"] if link.call is not None else {}
        task = turns[0]["user"] or str(args.get("prompt") or "(no prompt recorded)")
        name = sub.meta.get("agentType") or args.get("subagent_type") or args.get("description")
        meta = {k: v for k, v in (("agent_id", sub.agent_id), ("source", sub.name),
                                  ("tool_use_id", link.call["id"] if link.call else None),
                                  ("description", args.get("description")),
                                  ("requests", len(sub.requests))) if v is not None}
        if link.call is None:
            meta["placed_by_time"] = True  # no spawning tool call found for it
        branch: dict[str, Any] = {"id": bid, "task": task, "steps": steps, "metadata": meta}
        if isinstance(name, str) and name:
            branch["name"] = name
        return bid, branch

    def turns(self, conv: Conversation) -> list[dict[str, Any]]:
        plan = self.plan(conv)
        turns: list[dict[str, Any]] = []
        steps: list[dict[str, Any]] | None = None
        prompt: list[str] = []
        prompt_ts: float | None = None
        last_end = marker = 0.0
        calls: dict[str, dict[str, Any]] = {}
        last: set[str] = set()
        for ev in conv.events:
            if isinstance(ev, Request):
                if steps is None or prompt_ts is not None:
                    think = _s(prompt_ts - last_end) if turns and prompt_ts else 0.0
                    steps = list(plan.first) if not turns else []
                    turns.append({"user": "\n\n".join(prompt), "think_time_s": think,
                                  "steps": steps})
                    prompt, prompt_ts = [], None
                if id(ev) in plan.joins:
                    steps.append({"kind": "join", "branches": plan.joins[id(ev)]})
                steps.append(llm_step(ev, self.t0))
                steps.extend(plan.after.get(id(ev), []))
                made = ev.calls()
                calls.update((c["id"], c) for c in made)
                self.tools.update(c["name"] for c in made)
                last = {c["id"] for c in made}
                last_end = marker = ev.end
            elif is_prompt(ev):
                prompt_ts = ev.ts if prompt_ts is None else prompt_ts
                if entry_text(ev):
                    prompt.append(entry_text(ev))
            elif steps is None or prompt_ts is not None:
                self.dropped["tool_results_outside_a_call"] += 1
            else:
                if entry_text(ev):
                    self.dropped["user_text_beside_tool_results"] += 1
                for b in ev.blocks:
                    if b["type"] != "tool_result":
                        continue
                    cid = b["tool_use_id"]
                    call = calls.get(cid, {"name": UNKNOWN_TOOL, "arguments": {}})
                    waited = 0.0 if cid in plan.waited else ev.ts - marker
                    step = {"kind": "tool", "name": call["name"], "arguments": call["arguments"],
                            "result": result_text(b), "duration_ms": _ms(waited)}
                    if cid in last:
                        step["call_id"] = cid
                    else:
                        self.dropped["tool_results_for_an_earlier_call"] += 1
                    self.tools.add(call["name"])
                    steps.append(step)
                    marker = max(marker, ev.ts)
        if prompt_ts is not None:
            self.dropped["unanswered_prompts"] += 1
        return turns


def _sub_conversations(t: Transcript) -> Conversation:
    conv = conversation(t.entries)
    stem = t.path.name[: -len(".jsonl")]
    conv.agent_id = next((e.agent_id for e in t.entries if e.agent_id),
                         stem[len("agent-"):] if stem.startswith("agent-") else None)
    conv.meta, conv.name = t.meta, t.path.name
    return conv


def session_of(main: Transcript, subs: list[Transcript], offset_s: float) -> Session | None:
    """One session: the main thread of ``main``, its subagents (files and inline sidechains);
    None when the main thread made no API call (nothing to replay)."""
    thread, inline = split_sidechains(main.entries)
    convs = [_sub_conversations(t) for t in subs]
    for group in inline:
        conv = conversation(group)
        conv.agent_id, conv.name = group[0].agent_id, "sidechain"
        convs.append(conv)
    root = conversation(thread)
    if not root.requests:
        return None
    kept = [c for c in convs if c.requests]
    links = link_subagents(root, kept)
    t0 = min(e.ts for e in thread)
    builder = Builder(kept, links, t0)
    turns = builder.turns(root)
    models = Counter(str(line.message.get("model")) for r in root.requests for line in r.lines[:1]
                     if line.message.get("model"))
    every = {str(line.message.get("model")) for c in [root, *kept] for r in c.requests
             for line in r.lines[:1] if line.message.get("model")}
    stem = main.path.name[: -len(".jsonl")] if main.path.name.endswith(".jsonl") \
        else main.path.name
    meta: dict[str, Any] = {"source": SOURCE, "file": main.path.name, **main.info,
                            "requests": sum(len(c.requests) for c in [root, *kept]),
                            "subagents": len(kept)}
    if main.session_ids:
        meta["sessionId"] = main.session_ids[0]
    if models:
        meta["model"] = models.most_common(1)[0][0]
        meta["models"] = sorted(every)
    for key, value in (("compactions", main.compactions),
                       ("skipped_lines", main.skipped + sum(t.skipped for t in subs)),
                       ("dropped_subagents", len(convs) - len(kept))):
        if value:
            meta[key] = value
    if builder.dropped:
        meta["dropped"] = dict(sorted(builder.dropped.items()))
    tools = [stub_tool(name) for name in sorted(builder.tools)]
    if tools:  # the logs hold no tool schemas (build_session only sees the top level)
        meta["stub_tool_declarations"] = len(tools)
    data = {"session_id": stem, "turns": turns, "tools": tools, "start_offset_s": offset_s,
            "metadata": meta}
    return build_session(data, main.path, main.entries[0].line)


__all__ = ["Builder", "Plan", "llm_step", "session_of"]
