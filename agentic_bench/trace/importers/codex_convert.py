"""One Codex rollout (:mod:`.codex_rollout`) as a conversation of turns and steps.

* **Requests.** A model call is a run of output items (assistant message, reasoning, function /
  custom tool / local shell / tool search call, web search) with no input item and no counted
  ``token_count`` between them; it is one ``llm`` step: ``output.content`` its assistant text,
  ``output.tool_calls`` its calls (``call_id``, name, arguments; a custom tool's free-form input
  as ``{"input": ...}``, a local shell call's action). A ``token_count`` event counts when its
  ``total_token_usage`` moved (Codex re-emits unchanged ones); it gives the latest call without
  usage its ``last_token_usage`` (``input_tokens``, cached included; ``output_tokens``,
  reasoning included) and ends it. A ``compacted`` item is the compaction call (output: its
  summary; usage: a counted ``token_count`` no call took); a counted ``token_count`` that no
  call or compaction takes is a call of its own with no recorded output.
* **Times.** A call starts at the time of the line before its first output item and ends at
  its ``token_count`` (else its last output item): ``start_s``, ``duration_ms``. A tool step
  lasts from the previous call's end (or previous result) to its result's line; what is left
  before the next call is a ``wait`` step, or the ``think_time_s`` of a new turn.
* **Turns.** Non-assistant messages before a call are its input. Developer messages and Codex's
  injected user context (``<environment_context>``, ``# AGENTS.md instructions``, ``<skill>``,
  ``<turn_aborted>``, ``<subagent_notification>`` ...; ``codex-rs/core/src/event_mapping.rs``)
  are context: before the first user message they join the system prompt (after the base
  instructions); later they join the next turn's user text; context alone starts a turn only
  after a call that made no tool call, else it is dropped (``dropped_context_messages``).
* **History changes.** After a compaction, and in a fork's copied history, replay sends what
  Codex sent: the steps after it record ``messages`` (system, the replacement history or the
  copied history as chat messages, then what followed).
* **Subagents** (``spawn_agent``: a child rollout whose ``source.subagent.thread_spawn``
  names this thread) are ``spawn`` steps before the result of the call that spawned them (the
  call whose result or ``collab_agent_spawn_end`` event names the child's thread id), else after
  the last call that began before them; a ``join`` goes before the first call after a
  ``wait``/``wait_agent`` result that names the child (that result waits nothing itself), else
  before the first call that starts after the child's last line; otherwise it runs in the
  background.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agentic_bench.trace.importers.codex_items import (
    chat_messages,
    content_text,
    is_context,
    output_text,
    set_exact_messages,
    to_call,
)
from agentic_bench.trace.importers.codex_rollout import (
    CALL_ITEMS,
    OUTPUT_RESULT_ITEMS,
    Line,
    Rollout,
    token_total,
)

NO_USER = "(no user message recorded)"


@dataclass(eq=False)
class Request:
    step: dict[str, Any]
    start: float | None
    end: float | None
    calls: list[dict[str, Any]] = field(default_factory=list)
    by_id: dict[str, dict[str, Any]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    usage_open: bool = True


@dataclass(eq=False)
class Child:
    """A converted subagent: its thread id, names, times and branch."""

    thread_id: str
    names: list[str]
    start: float | None
    end: float | None
    branch: dict[str, Any]
    spawned: bool = False
    joined: bool = False


@dataclass
class Conversation:
    system: str | None
    turns: list[dict[str, Any]]
    requests: list[Request]
    counts: Counter[str]
    models: list[str]
    prefix: list[dict[str, Any]]
    compactions: list[tuple[dict[str, Any], list[dict[str, Any]]]]
    subagents: int = 0

    def exact_messages(self, all_steps: bool) -> None:
        """Record ``messages`` where replay would not derive what Codex sent (once)."""
        set_exact_messages(self.system, self.turns, self.prefix, self.compactions, all_steps)


def base_instructions(meta: dict[str, Any]) -> str | None:
    value = meta.get("base_instructions", meta.get("instructions"))
    if isinstance(value, dict):
        value = value.get("text")
    return value if isinstance(value, str) and value.strip() else None


class Builder:
    """Scans one rollout's own lines into turns (see the module's rules)."""

    def __init__(self, rollout: Rollout, children: list[Child], ref: float | None) -> None:
        self.rollout, self.children, self.ref = rollout, children, ref
        self.system: list[str] = [b] if (b := base_instructions(rollout.meta)) else []
        self.turns: list[dict[str, Any]] = []
        self.preamble: list[dict[str, Any]] = []
        self.pending: list[tuple[str, str, bool]] = []
        self.requests: list[Request] = []
        self.req: Request | None = None
        self.run_open = False
        self.pending_usage: tuple[dict[str, int], Line, float | None] | None = None
        self.prev_ts = rollout.start_ts
        self.mark: float | None = None  # time up to which the parent's time is accounted
        self.prev_total = rollout.baseline_total
        self.counts: Counter[str] = Counter()
        self.models: list[str] = []
        self.joins: list[Child] = []
        self.compactions: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        self.linked = self._linked()

    def _linked(self) -> dict[str, list[Child]]:
        names: dict[str, str] = {}
        linked: dict[str, list[Child]] = {}
        taken: set[str] = set()
        for line in self.rollout.lines:
            p = line.payload
            if line.kind == "response_item" and line.item_type in CALL_ITEMS:
                names[str(p.get("call_id") or p.get("id"))] = to_call(p)["name"]
            pairs: list[tuple[str, str]] = []
            if line.kind == "response_item" and line.item_type in OUTPUT_RESULT_ITEMS \
                    and "spawn" in names.get(p["call_id"], ""):
                text = output_text(p.get("output"))
                pairs = [(p["call_id"], c.thread_id) for c in self.children
                         if c.thread_id in text]
            elif line.kind == "event_msg" and line.item_type == "collab_agent_spawn_end" \
                    and p.get("new_thread_id") and p.get("call_id"):
                pairs = [(str(p["call_id"]), str(p["new_thread_id"]))]
            for cid, tid in pairs:
                for child in self.children:
                    if child.thread_id == tid and tid not in taken:
                        taken.add(tid)
                        linked.setdefault(cid, []).append(child)
        return linked

    # -- steps -----------------------------------------------------------------------------
    def _steps(self) -> list[dict[str, Any]]:
        return self.turns[-1]["steps"] if self.turns else self.preamble

    def _rel(self, ts: float | None) -> float | None:
        return None if ts is None or self.ref is None else round(max(0.0, ts - self.ref), 6)

    def _gap(self, start: float | None) -> float:
        if start is None or self.mark is None:
            return 0.0
        return round(max(0.0, start - self.mark), 6)

    def _wait(self, gap: float) -> None:
        self._steps().append({"kind": "wait", "duration_ms": round(gap * 1000, 3),
                              "reason": "gap"})

    def _open_turn(self, user: str, think: float) -> None:
        self.turns.append({"user": user or NO_USER, "think_time_s": think,
                           "steps": self.preamble})
        self.preamble = []

    def _decide_turn(self, start: float | None) -> None:
        msgs, self.pending = self.pending, []
        real = [t for r, t, ctx in msgs if r == "user" and not ctx]
        if not self.turns:
            keep_user = not real
            self.system += [t for r, t, ctx in msgs if (r != "user" or ctx) and not
                            (keep_user and r == "user")]
            user = "\n\n".join(real or [t for r, t, _ in msgs if r == "user"])
            self._open_turn(user, 0.0)
            return
        gap = self._gap(start)
        ended = self.req is None or not self.req.calls
        if real or (msgs and ended):
            self._open_turn("\n\n".join(t for _, t, _ in msgs), gap)
            return
        self.counts["dropped_context_messages"] += len(msgs)
        if gap > 0:
            self._wait(gap)

    def _spawn(self, child: Child) -> None:
        child.spawned = True
        step: dict[str, Any] = {"kind": "spawn", "branch": child.branch}
        if (rel := self._rel(child.start)) is not None:
            step["start_s"] = rel
        self._steps().append(step)

    def _begin(self, start: float | None, output: dict[str, Any] | None = None,
               turn: bool = True) -> Request:
        if turn or not self.turns:
            self._decide_turn(start)
        elif (gap := self._gap(start)) > 0:
            self._wait(gap)
        for child in self.children:  # subagents no call spawned: by time
            if not child.spawned and not any(child in v for v in self.linked.values()) \
                    and child.start is not None and start is not None and child.start < start:
                self._spawn(child)
        due = [c for c in self.children if c.spawned and not c.joined and (
            c in self.joins or (c.end is not None and start is not None and c.end <= start))]
        if due:
            self._steps().append({"kind": "join", "branches": [c.thread_id for c in due]})
            for c in due:
                c.joined = True
        self.joins = [c for c in self.joins if not c.joined]
        step: dict[str, Any] = {"kind": "llm", "output": output or {}}
        req = Request(step, start, start)
        self._steps().append(step)
        self.requests.append(req)
        self.req = req
        return req

    # -- lines -----------------------------------------------------------------------------
    def feed(self, line: Line) -> None:
        if line.kind == "response_item":
            if line.is_output():
                self._output(line)
            elif line.is_input():
                self._input(line)
            else:
                self.counts[f"skipped_{line.item_type or 'unknown'}_items"] += 1
        elif line.kind == "event_msg" and line.item_type == "token_count":
            self._token_count(line)
        elif line.kind == "compacted":
            self._compacted(line)
        elif line.kind == "turn_context":
            model = line.payload.get("model")
            if isinstance(model, str) and model not in self.models:
                self.models.append(model)
            if not self.system and (b := base_instructions(line.payload)):
                self.system.append(b)
        if line.ts is not None:
            self.prev_ts = line.ts

    def _orphan(self) -> None:
        assert self.pending_usage is not None
        usage, line, start = self.pending_usage
        self.pending_usage = None
        req = self._begin(start, turn=False)
        req.step["usage"] = usage
        req.end, req.usage_open = line.ts, False
        if line.ts is not None:
            self.mark = max(line.ts, self.mark or line.ts)
        self.counts["calls_without_output"] += 1

    def _output(self, line: Line) -> None:
        if self.pending_usage is not None:
            self._orphan()
        if not self.run_open or self.req is None:
            self._begin(self.prev_ts)
            self.run_open = True
        req = self.req
        assert req is not None
        req.end = line.ts
        self.mark = line.ts if line.ts is not None else self.mark
        p, kind = line.payload, line.item_type
        if kind == "message":
            if text := content_text(p.get("content")):
                req.texts.append(text)
        elif kind in CALL_ITEMS:
            call = to_call(p)
            req.calls.append(call)
            if "id" in call:
                req.by_id.setdefault(call["id"], call)
        else:
            self.counts[f"{kind}_items"] += 1

    def _input(self, line: Line) -> None:
        self.run_open = False
        p = line.payload
        if line.item_type == "message":
            role, content = str(p["role"]), p["content"]
            self.pending.append((role, content_text(content),
                                 role != "user" or is_context(content)))
            return
        call = self.req.by_id.get(p["call_id"]) if self.req else None
        if call is None:
            self.counts["unmatched_tool_outputs"] += 1
            return
        for child in self.linked.pop(p["call_id"], []):
            self._spawn(child)
        joined: list[Child] = []
        if "wait" in call["name"]:
            text = json.dumps(call["arguments"]) + output_text(p.get("output"))
            joined = [c for c in self.children if c.spawned and not c.joined
                      and any(n and n in text for n in c.names)
                      and (c.end is None or line.ts is None or c.end <= line.ts)]
        duration = 0.0 if joined else self._gap(line.ts)
        self._steps().append({"kind": "tool", "call_id": p["call_id"], "name": call["name"],
                              "arguments": call["arguments"],
                              "result": output_text(p.get("output")),
                              "duration_ms": round(duration * 1000, 3)})
        self.joins += joined
        if line.ts is not None:
            self.mark = max(line.ts, self.mark or line.ts)

    def _token_count(self, line: Line) -> None:
        p = line.payload
        info = p.get("info")
        last = info.get("last_token_usage") if isinstance(info, dict) else (
            p if "input_tokens" in p else None)
        if not isinstance(last, dict):
            return
        total = token_total(p)
        if total is not None:
            if total == self.prev_total:
                self.counts["repeated_token_counts"] += 1
                return
            self.prev_total = total
        usage = {"input_tokens": int(last["input_tokens"]),
                 "output_tokens": int(last["output_tokens"])}
        for key in ("cached_input_tokens", "reasoning_output_tokens"):
            if isinstance(last.get(key), int):
                self.counts[key] += int(last[key])
        if self.req is not None and self.req.usage_open:
            self.req.step["usage"] = usage
            self.req.end, self.req.usage_open = line.ts, False
            self.run_open = False
            if line.ts is not None:
                self.mark = max(line.ts, self.mark or line.ts)
            return
        if self.pending_usage is not None:
            self._orphan()
        self.pending_usage = (usage, line, self.prev_ts)

    def _compacted(self, line: Line) -> None:
        start, usage = self.prev_ts, None
        if self.pending_usage is not None:
            usage, _, start = self.pending_usage
            self.pending_usage = None
        message = str(line.payload.get("message") or "")
        req = self._begin(start, {"content": message} if message else None, turn=False)
        if usage:
            req.step["usage"] = usage
        req.end, req.usage_open, self.run_open = line.ts, False, False
        if line.ts is not None:
            self.mark = max(line.ts, self.mark or line.ts)
        history = line.payload.get("replacement_history")
        replacement = chat_messages(history) if isinstance(history, list) else (
            [{"role": "user", "content": message}] if message else [])
        self.compactions.append((req.step, replacement))
        self.counts["compactions"] += 1

    def finish(self) -> Conversation:
        if self.pending_usage is not None:
            self._orphan()
        if self.pending and self.turns:
            self.counts["dropped_context_messages"] += len(self.pending)
        if self.preamble and not self.turns:
            self._decide_turn(self.prev_ts)
        for child in self.children:
            if not child.spawned:
                if not self.turns:
                    self._open_turn("", 0.0)
                self._spawn(child)
        for req in self.requests:
            step = req.step
            calls = req.calls
            out: dict[str, Any] = {"tool_calls": calls} if calls else {}
            if req.texts:
                out["content"] = "\n".join(req.texts)
            step["output"] = {**step["output"], **out}
            if (rel := self._rel(req.start)) is not None:
                step["start_s"] = rel
            if req.start is not None and req.end is not None:
                step["duration_ms"] = round(max(0.0, req.end - req.start) * 1000, 3)
        system = "\n\n".join(t for t in self.system if t) or None
        prefix = chat_messages([x.payload for x in self.rollout.prefix
                                if x.kind == "response_item"])
        return Conversation(system, self.turns, self.requests, self.counts, self.models,
                            prefix, self.compactions, len(self.children))


def convert(rollout: Rollout, children: list[Child], ref: float | None) -> Conversation:
    builder = Builder(rollout, children, ref)
    for line in rollout.lines:
        builder.feed(line)
    return builder.finish()


__all__ = ["Child", "Conversation", "base_instructions", "convert"]
