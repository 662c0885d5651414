"""OpenAI Codex CLI session logs (rollouts) → sessions: ``agentic-bench import codex PATH``.

Source format: openai/codex, ``codex-rs/protocol/src/protocol.rs`` (``RolloutLine``,
``RolloutItem``, ``SessionMeta``, ``SessionSource::SubAgent``, ``TokenCountEvent``; edb4efee),
``codex-rs/protocol/src/models.rs`` (``ResponseItem``; 152e7cae), the writer
``codex-rs/core/src/rollout/recorder.rs`` (035416bf) and its persistence policy
``codex-rs/rollout/src/policy.rs`` (0136a731), the multi-agent tools
``codex-rs/core/src/tools/handlers/multi_agents/{spawn,wait}.rs`` (04a51a35, 1f1bd303); the
legacy format: ``codex-rs/core/src/rollout.rs`` (89a151f5). Files live in
``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``.

``PATH`` is one rollout file (its subagents are looked up among the ``.jsonl`` files of the same
folder) or a folder (every rollout under it; a subagent goes into its parent's tree when the
parent is there, else it is a session of its own). One session per top-level rollout
(``session_id`` = the thread id), sessions in file-name (= start time) order with
``start_offset_s`` from the first. How items map to turns and steps: :mod:`.codex_convert`;
parsing and the replay gate of forked rollouts: :mod:`.codex_rollout`; the fidelity profile:
:mod:`.codex_profile`. docs/importers.md has the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.codex_convert import Child, Conversation, convert
from agentic_bench.trace.importers.codex_profile import profile_source
from agentic_bench.trace.importers.codex_rollout import (
    Rollout,
    detect,
    iter_roots,
    read_rollout,
    spawn_info,
)
from agentic_bench.trace.importers.common import build_session
from agentic_bench.trace.model import Session

MAX_DEPTH = 32


def _has_work(conv: Conversation) -> bool:
    return bool(conv.requests) or any(st.get("kind") == "spawn" for t in conv.turns
                                      for st in t["steps"])


def _children(rollout: Rollout, kids: dict[str, list[Path]], ref: float | None,
              seen: set[str], depth: int) -> list[Child]:
    out: list[Child] = []
    if depth >= MAX_DEPTH:
        return out
    for path in kids.get(rollout.thread_id, []):
        child = read_rollout(path)
        if child.thread_id in seen:
            continue
        seen.add(child.thread_id)
        conv = convert(child, _children(child, kids, ref, seen, depth + 1), ref)
        if not _has_work(conv):
            continue
        out.append(_child(child, conv))
    return sorted(out, key=lambda c: (c.start is None, c.start or 0.0, c.thread_id))


def _child(rollout: Rollout, conv: Conversation) -> Child:
    """A subagent's conversation as a spawned branch: its turns one after another (a ``wait``
    for the time between them), its first user message as the task; with more than one user
    input, or copied history, or a compaction, every request records its exact messages."""
    conv.exact_messages(all_steps=len(conv.turns) > 1)
    steps: list[dict[str, Any]] = []
    for i, turn in enumerate(conv.turns):
        if i and turn["think_time_s"] > 0:
            steps.append({"kind": "wait", "duration_ms": turn["think_time_s"] * 1000,
                          "reason": "input"})
        steps.extend(turn["steps"])
    spawn = spawn_info(rollout.meta)
    nickname = spawn.get("agent_nickname") or rollout.meta.get("agent_nickname")
    role = spawn.get("agent_role") or spawn.get("agent_type") or rollout.meta.get("agent_role")
    meta = {k: v for k, v in (("thread_id", rollout.thread_id), ("agent_nickname", nickname),
                              ("agent_role", role), ("depth", spawn.get("depth")),
                              ("forked_from_id", rollout.meta.get("forked_from_id")),
                              ("model", conv.models[0] if conv.models else None),
                              ("file", rollout.path.name)) if v is not None}
    meta.update({k: v for k, v in conv.counts.items() if v})
    branch: dict[str, Any] = {"id": rollout.thread_id, "task": conv.turns[0]["user"],
                              "steps": steps, "metadata": meta}
    if nickname or role:
        branch["name"] = str(nickname or role)
    if conv.system:
        branch["system"] = conv.system
    times = [line.ts for line in rollout.lines if line.ts is not None]
    return Child(rollout.thread_id, [rollout.thread_id, *([str(nickname)] if nickname else [])],
                 rollout.start_ts, max(times) if times else None, branch)


def _tools(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """Dynamic tools declared in the session meta, as OpenAI tool schemas."""
    tools = []
    for spec in meta.get("dynamic_tools") or []:
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            params = spec.get("input_schema") or spec.get("parameters")
            tools.append({"type": "function", "function": {
                "name": spec["name"], "description": str(spec.get("description") or ""),
                "parameters": params if isinstance(params, dict) else {"type": "object"}}})
    return tools


def _metadata(rollout: Rollout, conv: Conversation) -> dict[str, Any]:
    meta = rollout.meta
    source = meta.get("source")
    out: dict[str, Any] = {"source": "codex", "thread_id": rollout.thread_id,
                           "file": rollout.path.name}
    for key in ("cwd", "cli_version", "originator", "model_provider", "forked_from_id",
                "git"):
        if meta.get(key) not in (None, "", {}):
            out[key] = meta[key]
    if source is not None:
        out["session_source"] = source
    if rollout.parent_id:
        out["parent_thread_id"] = rollout.parent_id
    if conv.models:
        out["model"] = conv.models[0]
        if len(conv.models) > 1:
            out["models"] = conv.models
    if rollout.legacy:
        out["legacy_format"] = True
    if rollout.prefix:
        out["copied_history_lines"] = len(rollout.prefix)
    if conv.subagents:
        out["subagents"] = conv.subagents
    out.update({k: v for k, v in sorted(conv.counts.items()) if v})
    return out


def import_codex(path: Path) -> Iterator[Session]:
    """Sessions of a Codex rollout file or of a folder of rollouts (see the module doc)."""
    path = Path(path)
    first_start: float | None = None
    for root_path, kids in iter_roots(path):
        rollout = read_rollout(root_path)
        ref = rollout.start_ts
        seen = {rollout.thread_id}
        conv = convert(rollout, _children(rollout, kids, ref, seen, 0), ref)
        if not _has_work(conv):
            continue
        conv.exact_messages(all_steps=False)
        data: dict[str, Any] = {"session_id": rollout.thread_id, "system": conv.system,
                                "tools": _tools(rollout.meta), "turns": conv.turns,
                                "metadata": _metadata(rollout, conv)}
        if ref is not None:
            first_start = ref if first_start is None else first_start
            data["start_offset_s"] = max(0.0, ref - first_start)
        yield build_session(data, root_path, 1)


__all__ = ["detect", "import_codex", "profile_source"]
