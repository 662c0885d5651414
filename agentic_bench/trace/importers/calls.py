"""Turn a time-ordered sequence of recorded chat calls (and tool spans) into session turns.

Used by the OpenTelemetry importer and by the recording proxy. Rules:
- a call starts a new turn when its request holds more ``user`` messages than the previous
  call's (or, without captured content, when its group key — e.g. the trace id — changes);
  ``think_time_s`` is the gap from the end of the previous call/tool to its start;
- inside a turn, ``tool`` messages that follow the previous call's reply become ``tool``
  steps (name and arguments from the matching call) unless tool spans already reported
  them; the gap between the previous reply and this call is split evenly between them;
- the exact request ``messages`` are kept on each ``llm`` step; the caller drops the ones
  replay would derive identically (:func:`drop_derivable_messages`).
"""

from __future__ import annotations

from typing import Any

from agentic_bench.trace.importers.common import text_of

NO_CONTENT = "(content not captured)"


class SessionBuilder:
    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []
        self.system: str | None = None
        self.dropped = 0
        self._users = -1
        self._key: str | None = None
        self._last_end: int | None = None
        self._calls: list[dict[str, Any]] = []
        self._tools_since = 0
        self._pending: list[tuple[int, dict[str, Any]]] = []  # stages waiting for a turn

    def _gap_ns(self, start_ns: int) -> int:
        return max(0, start_ns - self._last_end) if self._last_end is not None else 0

    def llm(self, key: str, start_ns: int, end_ns: int, messages: list[dict[str, Any]] | None,
            output: tuple[str, list[dict[str, Any]]] | None, params: dict[str, Any],
            usage: dict[str, int] | None, ttft_ns: int | None = None) -> None:
        users = [m for m in messages or [] if m.get("role") == "user"]
        if messages is not None:
            new_turn = not self.turns or len(users) > self._users
        else:
            new_turn = not self.turns or key != self._key
        if not self.turns and messages and messages[0].get("role") == "system":
            self.system = text_of(messages[0].get("content"))
        first_ns = min([start_ns, *(t for t, _ in self._pending)])
        if new_turn:
            think = self._gap_ns(first_ns) / 1e9 if self.turns else 0.0
            user = text_of(users[-1].get("content")) if users else NO_CONTENT
            self.turns.append({"user": user, "think_time_s": think, "steps": []})
        elif messages and self._calls and not self._tools_since:
            self._tool_messages(messages, self._gap_ns(first_ns))
        self.turns[-1]["steps"].extend(st for _, st in self._pending)
        self._pending = []
        step: dict[str, Any] = {"kind": "llm", "params": params,
                                "duration_ms": (end_ns - start_ns) / 1e6}
        if messages is not None:
            step["messages"] = messages
        if output is not None:
            content, calls = output
            step["output"] = {"tool_calls": calls, **({"content": content} if content else {})}
            self._calls = calls
        else:
            self._calls = []
        if usage:
            step["usage"] = usage
        if ttft_ns is not None:  # the trace format's Step.ttft_ms (a recorded TTFT), not a
            step["ttft_ms"] = ttft_ns / 1e6  # record field of the ttft metric
        self.turns[-1]["steps"].append(step)
        self._users = len(users) if messages is not None else self._users
        self._key = key
        self._last_end = max(end_ns, self._last_end or end_ns)
        self._tools_since = 0

    def _tool_messages(self, messages: list[dict[str, Any]], gap_ns: int) -> None:
        tail: list[dict[str, Any]] = []
        for msg in reversed(messages):
            if msg.get("role") != "tool":
                break
            tail.append(msg)
        tail.reverse()
        by_id = {c.get("id"): c for c in self._calls if c.get("id")}
        for i, msg in enumerate(tail):
            call = by_id.get(msg.get("tool_call_id"))
            if call is None:  # paired by position (a teacher-forced client's ids differ)
                call = self._calls[i] if i < len(self._calls) else {
                    "name": str(msg.get("name") or "unknown_tool"), "arguments": {}}
            step = {"kind": "tool", "name": call["name"], "arguments": call["arguments"],
                    "result": text_of(msg.get("content")), "duration_ms": gap_ns / 1e6 / len(tail)}
            if call.get("id"):  # the id of the call it answers: the trace stays consistent
                step["call_id"] = str(call["id"])
            self.turns[-1]["steps"].append(step)

    def tool(self, start_ns: int, end_ns: int, name: str, call_id: Any,
             arguments: dict[str, Any], result: str) -> None:
        if not self.turns:
            self.dropped += 1
            return
        if not call_id or call_id not in {c.get("id") for c in self._calls}:
            call_id = next((c.get("id") for c in self._calls if c["name"] == name), None)
        step: dict[str, Any] = {"kind": "tool", "name": name, "arguments": arguments,
                                "result": result, "duration_ms": (end_ns - start_ns) / 1e6}
        if call_id:
            step["call_id"] = str(call_id)
        self.turns[-1]["steps"].append(step)
        self._last_end = max(end_ns, self._last_end or end_ns)
        self._tools_since += 1

    def parallel(self, start_ns: int, end_ns: int, branches: list[dict[str, Any]]) -> None:
        """Subagents that ran at once (a ``parallel`` step). It joins the current turn (or, before
        the first call, the first turn); the parent's next request records what it got back, so
        its tool messages for the hand-off are not turned into tool steps again."""
        step = {"kind": "parallel", "branches": branches}
        if not self.turns:
            self._pending.append((start_ns, step))
            return
        self.turns[-1]["steps"].append(step)
        self._last_end = max(end_ns, self._last_end or end_ns)
        self._tools_since += 1

    def stage(self, start_ns: int, end_ns: int, kind: str) -> None:
        """An embed/retrieve stage: it joins the turn of the next llm call."""
        self._pending.append((start_ns, {"kind": kind, "duration_ms": (end_ns - start_ns) / 1e6}))

    def finish(self) -> list[dict[str, Any]]:
        """The turns; stages after the last llm call join the last turn."""
        if self._pending:
            if self.turns:
                self.turns[-1]["steps"].extend(st for _, st in self._pending)
            else:
                self.dropped += len(self._pending)
            self._pending = []
        return self.turns
