"""The fidelity profile of Codex rollouts, counted from the raw lines (not via the conversion).

An API call is, in each rollout's own lines (after the replay gate of a fork): a run of output
items (assistant message, reasoning, calls, web search) that no input item and no counted
``token_count`` interrupts; a ``compacted`` item; or a counted ``token_count`` (its
``total_token_usage`` moved) that neither the latest call (while it has no count) nor a
following ``compacted`` item takes. Tool calls are the ``function_call``, ``custom_tool_call``,
``local_shell_call`` and ``tool_search_call`` items. Gaps: from one call's end (its
``token_count``, else its last output line) to the next call's start (the line before its
first output) in the same rollout (a parent's wait for a subagent included). A subagent counts
when it (or one of its own subagents) made a call.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from agentic_bench.trace.importers.codex_rollout import (
    CALL_ITEMS,
    Rollout,
    iter_roots,
    read_rollout,
    token_total,
)
from agentic_bench.trace.profile import TraceProfile

NOTES = [
    "Codex rollouts record no tool schemas: tools are stub declarations",
    "times are the rollout's line write times: a call starts at the line before its first "
    "output item and ends at its token_count (or last output item)",
    "token counts come from token_count events (none in the legacy format); cached input and "
    "reasoning output are inside input_tokens / output_tokens",
]


@dataclass
class _Call:
    start: float | None
    end: float | None
    input_tokens: int | None = None
    output_tokens: int | None = None


def calls_of(rollout: Rollout) -> tuple[list[_Call], int]:
    """The API calls of one rollout (in order) and its tool calls."""
    calls: list[_Call] = []
    tools = 0
    open_run = False
    counting: _Call | None = None  # the latest call while it has no token count
    spare: _Call | None = None  # a counted token_count no call took yet
    prev_ts = rollout.start_ts
    total = rollout.baseline_total
    for line in rollout.lines:
        p = line.payload
        if line.is_output():
            if spare is not None:
                calls.append(spare)
                spare = None
            if not open_run:
                counting = _Call(prev_ts, line.ts)
                calls.append(counting)
                open_run = True
            elif calls:
                calls[-1].end = line.ts
            tools += line.item_type in CALL_ITEMS
        elif line.is_input():
            open_run = False
        elif line.kind == "event_msg" and p.get("type") == "token_count":
            info = p.get("info")
            last = info.get("last_token_usage") if isinstance(info, dict) else (
                p if "input_tokens" in p else None)
            now = token_total(p)
            if isinstance(last, dict) and (now is None or now != total):
                total = now if now is not None else total
                if counting is not None:
                    counting.input_tokens = last["input_tokens"]
                    counting.output_tokens = last["output_tokens"]
                    counting.end, counting, open_run = line.ts, None, False
                else:
                    if spare is not None:
                        calls.append(spare)
                    spare = _Call(prev_ts, line.ts, last["input_tokens"], last["output_tokens"])
        elif line.kind == "compacted":
            done = spare or _Call(prev_ts, None)
            done.end, spare, counting, open_run = line.ts, None, None, False
            calls.append(done)
        if line.ts is not None:
            prev_ts = line.ts
    if spare is not None:
        calls.append(spare)
    return calls, tools


def _add(profile: TraceProfile, rollout: Rollout) -> int:
    calls, tools = calls_of(rollout)
    profile.requests += len(calls)
    profile.tool_calls += tools
    profile.input_tokens += [c.input_tokens for c in calls]
    profile.output_tokens += [c.output_tokens for c in calls]
    for a, b in pairwise(calls):
        if a.end is None or b.start is None:
            continue
        profile.gaps_s.append(round(max(0.0, b.start - a.end), 6))
    return len(calls)


def _subtree(profile: TraceProfile, rollout: Rollout, kids: dict[str, list[Path]],
             seen: set[str], depth: int) -> int:
    """Add the counted subagents under ``rollout`` to ``profile``; returns how many."""
    found = 0
    if depth >= 32:
        return 0
    for path in kids.get(rollout.thread_id, []):
        child = read_rollout(path)
        if child.thread_id in seen:
            continue
        seen.add(child.thread_id)
        part = TraceProfile()
        below = _subtree(part, child, kids, seen, depth + 1)
        if _add(part, child) or below:
            found += 1 + below
            _merge(profile, part)
    return found


def _merge(into: TraceProfile, part: TraceProfile) -> None:
    into.requests += part.requests
    into.tool_calls += part.tool_calls
    into.input_tokens += part.input_tokens
    into.output_tokens += part.output_tokens
    into.gaps_s += part.gaps_s


def profile_source(path: Path) -> TraceProfile:
    """Sessions, trees, API calls, subagents, tool calls, per-call tokens and gaps of a Codex
    rollout file or folder, from the rollout lines themselves."""
    profile = TraceProfile(notes=list(NOTES))
    legacy, timed = False, False
    for root_path, kids in iter_roots(Path(path)):
        root = read_rollout(root_path)
        legacy, timed = legacy or root.legacy, timed or not root.legacy
        part = TraceProfile()
        subs = _subtree(part, root, kids, {root.thread_id}, 0)
        if not _add(part, root) and not subs:
            continue
        profile.sessions += 1
        profile.trees += subs > 0
        profile.subagents += subs
        _merge(profile, part)
    if legacy:
        profile.notes.append("legacy-format rollouts have no times and no token counts")
        if not timed:
            profile.unknown.append("gaps_s")
    return profile


__all__ = ["NOTES", "calls_of", "profile_source"]
