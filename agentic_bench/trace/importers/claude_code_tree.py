"""Claude Code transcripts (read by :mod:`.claude_code_transcripts`) as a session tree of the
native format.

* **Requests.** Assistant lines that share ``message.id`` (else ``requestId``) are one API call
  — one ``llm`` step at the place of its first line — wherever its lines are (tool results may
  be written between the blocks of one streamed reply): ``output.content`` is its text blocks,
  ``output.tool_calls`` its ``tool_use`` blocks (``id``, ``name``, ``input`` as arguments),
  ``usage`` the last line's (input = ``input_tokens`` + ``cache_read_input_tokens`` +
  ``cache_creation_input_tokens``). Its start is the time of the last user line before its
  first line (the prompt or tool result that triggered it; with none since the previous call,
  that call's end), its end the time of its last line: ``start_s`` and ``duration_ms``.
* **Turns.** A user line without ``tool_result`` blocks (string or text content) is a prompt;
  the prompts before a call are joined into the turn's ``user`` message; ``think_time_s`` is the
  gap from the previous call's end to the first prompt. Each ``tool_result`` block is a ``tool``
  step (``call_id``, the call's name and arguments, the result's text) whose ``duration_ms`` is
  the time since the previous call's end (or the previous result).
* **Subagents.** A subagent transcript is linked to the tool call that spawned it through the
  parent's result line (``toolUseResult.agentId``), its ``meta.json`` (``toolUseId``), or — for
  sidechains inside the session file — by its first prompt equal to a ``Task``/``Agent`` call's
  ``prompt``. It becomes a ``spawn`` step right after that call's ``llm`` step (a ``Branch``: id
  ``agent-<agentId>``, task = its first prompt, its own steps, a ``wait`` for the spawn offset)
  and a ``join`` right before the parent's first call after the result came back (the parent
  waited for it); that result's tool step waits nothing itself. A background agent
  (``toolUseResult.isAsync``) is joined before the call that follows its
  ``<task-notification>``; an unlinked transcript (e.g. ``agent-acompact-*``) is spawned after
  the last parent call that ended before it began and joined before the first one that starts
  after it ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentic_bench.trace.importers.claude_code_transcripts import Entry

SPAWN_TOOLS = ("Task", "Agent")
UNKNOWN_TOOL = "unknown_tool"


@dataclass(eq=False)
class Request:
    """One API call: the assistant lines of one message id."""

    lines: list[Entry]
    trigger: Entry | None  # the last user line before its first line, when after the previous
    previous: Request | None

    @property
    def end(self) -> float:
        return max(line.ts for line in self.lines)

    @property
    def start(self) -> float:
        first = self.lines[0].ts
        if self.trigger is not None:
            return min(self.trigger.ts, first)
        return min(self.previous.end, first) if self.previous is not None else first

    def calls(self) -> list[dict[str, Any]]:
        seen: dict[str, dict[str, Any]] = {}
        for line in self.lines:
            for b in line.blocks:
                if b["type"] == "tool_use" and b["id"] not in seen:
                    seen[b["id"]] = {"id": b["id"], "name": b["name"],
                                     "arguments": dict(b.get("input") or {})}
        return list(seen.values())

    def usage(self) -> dict[str, int] | None:
        usage = self.lines[-1].message.get("usage")
        if not isinstance(usage, dict):
            return None
        return {"input_tokens": sum(usage.get(k) or 0 for k in (
                    "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")),
                "output_tokens": usage.get("output_tokens") or 0}


Event = Request | Entry


@dataclass(eq=False)
class Conversation:
    """One agent's requests and user lines in order (the session's, or a subagent's)."""

    events: list[Event]
    requests: list[Request]
    agent_id: str | None = None
    name: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    first_prompt: str = ""


def entry_text(entry: Entry) -> str:
    parts = []
    for b in entry.blocks:
        if b["type"] == "text" and b.get("text"):
            parts.append(str(b["text"]))
        elif b["type"] in ("image", "document"):
            parts.append(f"[{b['type']}]")
    return "\n".join(parts)


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str) or content is None:
        return content or ""
    parts = []
    for item in content if isinstance(content, list) else [content]:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            parts.append(item["text"])
        elif isinstance(item, dict):
            parts.append(f"[{item.get('type', 'content')}]")
        else:
            parts.append(str(item))
    return "\n".join(parts)


def is_prompt(entry: Entry) -> bool:
    return entry.kind == "user" and not any(b["type"] == "tool_result" for b in entry.blocks)


def conversation(entries: list[Entry]) -> Conversation:
    """Group assistant lines into requests and order them with the user lines."""
    events: list[Event] = []
    requests: dict[str, Request] = {}
    seen: set[str] = set()
    trigger: Entry | None = None
    previous: Request | None = None
    for e in entries:
        if e.uuid and e.uuid in seen:
            continue  # a line written twice
        seen.add(e.uuid)
        if e.kind == "user":
            events.append(e)
            trigger = e
        elif e.key in requests:
            requests[e.key].lines.append(e)
        else:
            previous = requests[e.key] = Request([e], trigger, previous)
            events.append(previous)
            trigger = None
    conv = Conversation(events, list(requests.values()))
    conv.first_prompt = next((entry_text(e) for e in events
                              if isinstance(e, Entry) and is_prompt(e)), "")
    return conv


def split_sidechains(entries: list[Entry]) -> tuple[list[Entry], list[list[Entry]]]:
    """The main thread of a session file and its inline sidechains (CLI 1.0.x): grouped by
    ``agentId``, else by ``parentUuid`` chains; a sidechain starts at a prompt with no parent,
    a line whose parent is unknown joins the latest sidechain."""
    main = [e for e in entries if not e.sidechain]
    if not main:
        return entries, []  # a subagent transcript given on its own
    groups: dict[str, list[Entry]] = {}
    group_of: dict[str, str] = {}
    latest = ""
    for e in entries:
        if not e.sidechain:
            continue
        if e.agent_id:
            key = "agent:" + e.agent_id
        elif e.parent in group_of:
            key = group_of[str(e.parent)]
        elif (e.parent is None and is_prompt(e)) or not latest:
            key = f"root:{e.line}"
        else:
            key = latest
        group_of[e.uuid] = latest = key
        groups.setdefault(key, []).append(e)
    return main, list(groups.values())


@dataclass
class Link:
    parent: Conversation
    request: Request | None  # the call that spawned it (None: placed by time)
    call: dict[str, Any] | None
    join_before: Request | None
    waited_call: str | None  # the tool result the join stands for (waits nothing itself)


def _result_lines(convs: list[Conversation]) -> dict[str, tuple[Conversation, int, Entry]]:
    out: dict[str, tuple[Conversation, int, Entry]] = {}
    for conv in convs:
        for i, ev in enumerate(conv.events):
            if isinstance(ev, Entry) and ev.kind == "user":
                for b in ev.blocks:
                    if b["type"] == "tool_result":
                        out.setdefault(b["tool_use_id"], (conv, i, ev))
    return out


def _next_request(conv: Conversation, index: int) -> Request | None:
    return next((ev for ev in conv.events[index + 1:] if isinstance(ev, Request)), None)


def _is_above(conv: Conversation, sub: Conversation, links: dict[int, Link]) -> bool:
    """Is ``sub`` the parent, grandparent, ... of ``conv``? (a link may not close a cycle)"""
    node: Conversation | None = conv
    while node is not None:
        if node is sub:
            return True
        link = links.get(id(node))
        node = link.parent if link is not None else None
    return False


def link_subagents(main: Conversation, subs: list[Conversation]) -> dict[int, Link]:
    """For every subagent (by ``id``), where it was spawned and where its parent waited."""
    convs = [main, *subs]
    owner: dict[str, tuple[Conversation, Request, dict[str, Any]]] = {}
    for conv in convs:
        for req in conv.requests:
            for call in req.calls():
                owner.setdefault(call["id"], (conv, req, call))
    results = _result_lines(convs)
    by_agent: dict[str, str] = {}
    for cid, (_, _, line) in results.items():
        tur = line.raw.get("toolUseResult")
        if isinstance(tur, dict) and isinstance(tur.get("agentId"), str):
            by_agent.setdefault(tur["agentId"], cid)
    links: dict[int, Link] = {}
    used: set[str] = set()

    def attach(sub: Conversation, cid: str) -> bool:
        parent, req, call = owner[cid]
        if cid in used or _is_above(parent, sub, links):
            return False
        used.add(cid)
        links[id(sub)] = _link(sub, parent, req, call, results.get(cid))
        return True

    pending = []
    for sub in subs:
        ref: Any = by_agent.get(sub.agent_id or "") or sub.meta.get("toolUseId")
        if not (isinstance(ref, str) and ref in owner and attach(sub, ref)):
            pending.append(sub)
    for sub in pending:  # inline sidechains: the first prompt is the Task call's prompt
        cands = sorted((req.start, cid) for cid, (_, req, call) in owner.items()
                       if call["name"] in SPAWN_TOOLS and cid not in used
                       and str(call["arguments"].get("prompt", "")).strip()
                       == sub.first_prompt.strip())
        if not any(attach(sub, cid) for _, cid in cands):
            links[id(sub)] = _by_time(main, sub)
    return links


def _link(sub: Conversation, parent: Conversation, req: Request, call: dict[str, Any],
          result: tuple[Conversation, int, Entry] | None) -> Link:
    if result is None or result[0] is not parent:
        return Link(parent, req, call, None, None)  # never came back: runs in the background
    _, index, line = result
    tur = line.raw.get("toolUseResult")
    if isinstance(tur, dict) and (tur.get("isAsync") is True
                                  or tur.get("status") == "async_launched"):
        tag = f"<task-id>{sub.agent_id}</task-id>"
        note = next((i for i, ev in enumerate(parent.events) if i > index and sub.agent_id
                     and isinstance(ev, Entry) and tag in entry_text(ev)), None)
        joined = _next_request(parent, note) if note is not None else None
        return Link(parent, req, call, joined, None)
    return Link(parent, req, call, _next_request(parent, index), call["id"])


def begin_ts(conv: Conversation) -> float:
    """When a conversation's first line was written."""
    return min(ev.ts if isinstance(ev, Entry) else ev.lines[0].ts for ev in conv.events)


def _by_time(main: Conversation, sub: Conversation) -> Link:
    begin = begin_ts(sub)
    end = max(r.end for r in sub.requests)
    before = [r for r in main.requests if r.end <= begin]
    after = [r for r in main.requests if r.start >= end]
    spawn_at = before[-1] if before else None
    joined = after[0] if after and (spawn_at is None or after[0] is not spawn_at) else None
    return Link(main, spawn_at, None, joined, None)
