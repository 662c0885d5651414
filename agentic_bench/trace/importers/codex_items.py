"""Codex response items as text and chat messages, and the exact ``messages`` of the requests
whose history Codex rewrote (compaction, a fork's copied history).

Item shapes: openai/codex ``codex-rs/protocol/src/models.rs`` (``ResponseItem``,
``FunctionCallOutputPayload``: a string, or a list of content items; 152e7cae); what counts as
injected context: ``codex-rs/core/src/event_mapping.rs`` (0846c126) and the contextual user
fragments of ``codex-rs/core/src/context`` (``<environment_context>``, ``# AGENTS.md
instructions``, ``<skill>``, ``<user_shell_command>``, ``<turn_aborted>``,
``<subagent_notification>`` ...).
"""

from __future__ import annotations

import json
from typing import Any

from agentic_bench.trace.history import messages_before
from agentic_bench.trace.importers.codex_rollout import CALL_ITEMS, OUTPUT_RESULT_ITEMS
from agentic_bench.trace.importers.common import decode_arguments
from agentic_bench.trace.model import SCHEMA_VERSION, Session

CONTEXT_PREFIXES = ("<user_instructions>", "<environment_context>", "# agents.md instructions",
                    "<skill>", "<user_shell_command>", "<turn_aborted>", "<subagents>",
                    "<subagent_notification>", "<hook_prompt")


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [p["text"] for p in content or [] if isinstance(p, dict)
             and isinstance(p.get("text"), str) and p["text"]]
    return "\n".join(parts)


def is_context(content: Any) -> bool:
    texts = [content] if isinstance(content, str) else [
        p.get("text") for p in content or [] if isinstance(p, dict)]
    return any(isinstance(t, str) and t.lstrip().lower().startswith(CONTEXT_PREFIXES)
               for t in texts)


def output_text(output: Any) -> str:
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return content_text(output)
    if isinstance(output, dict) and isinstance(output.get("content"), str | list):
        return output_text(output["content"])
    return json.dumps(output, ensure_ascii=False)


def to_call(item: dict[str, Any]) -> dict[str, Any]:
    kind = item["type"]
    cid = item.get("call_id") or item.get("id")
    if kind == "function_call":
        name, args = item["name"], decode_arguments(item.get("arguments")) or {}
    elif kind == "custom_tool_call":
        name, args = item["name"], {"input": item["input"]}
    elif kind == "local_shell_call":
        name, args = "local_shell", {k: v for k, v in item["action"].items() if k != "type"}
    else:  # tool_search_call
        name, args = "tool_search", decode_arguments(item.get("arguments")) or {}
    return {"name": str(name), "arguments": args, **({"id": str(cid)} if cid else {})}


def chat_messages(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Response items (a replacement or copied history) as chat messages; context, reasoning
    and encrypted compaction items are left out."""
    out: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("type")
        if kind == "message":
            role, content = item.get("role"), item.get("content")
            if role == "assistant":
                out.append({"role": "assistant", "content": content_text(content)})
            elif role == "user" and not is_context(content):
                out.append({"role": "user", "content": content_text(content)})
        elif kind in CALL_ITEMS:
            call = to_call(item)
            if not out or out[-1]["role"] != "assistant":
                out.append({"role": "assistant", "content": ""})
            out[-1].setdefault("tool_calls", []).append({
                "id": call.get("id", ""), "type": "function", "function": {
                    "name": call["name"],
                    "arguments": json.dumps(call["arguments"], ensure_ascii=False)}})
        elif kind in OUTPUT_RESULT_ITEMS:
            out.append({"role": "tool", "tool_call_id": item.get("call_id", ""),
                        "content": output_text(item.get("output"))})
    return out



def set_exact_messages(system: str | None, turns: list[dict[str, Any]],
                       prefix: list[dict[str, Any]],
                       compactions: list[tuple[dict[str, Any], list[dict[str, Any]]]],
                       all_steps: bool) -> None:
    """Record ``messages`` on the llm steps whose sent history replay would not derive: those
    after a compaction (its replacement history, then what followed), those of a fork (the
    copied history first), or every one (``all_steps``: a branch with several user inputs)."""
    if not prefix and not compactions and not all_steps:
        return
    tmp = Session.model_validate({"schema_version": SCHEMA_VERSION, "session_id": "tmp",
                                  "system": system, "turns": turns})
    head = [{"role": "system", "content": system}] if system else []
    replaced = {id(step): msgs for step, msgs in compactions}
    state, cut = prefix, len(head)
    for ti, turn in enumerate(tmp.turns):
        for si, model_step in enumerate(turn.steps):
            if model_step.kind != "llm":
                continue
            step = turns[ti]["steps"][si]
            plain = not state and cut == len(head)
            if plain and not all_steps and id(step) not in replaced:
                continue
            derived = messages_before(tmp, ti, si)
            if not plain or all_steps:
                step["messages"] = head + state + derived[cut:]
            if id(step) in replaced:
                state, cut = replaced[id(step)], len(derived) + 1


__all__ = ["CONTEXT_PREFIXES", "chat_messages", "content_text", "is_context", "output_text",
           "set_exact_messages", "to_call"]
