"""MLCommons endpoints agentic JSONL → sessions.

The format (``mlcommons/endpoints``, ``src/inference_endpoint/dataset_manager/
agentic_inference_dataset.py``): one message per line, rows of a conversation consecutive,
``turn`` numbered 1..N; ``role`` is ``user``, ``assistant`` or ``tool``. A user row carries
``content`` (and on the first row ``system`` and ``tools``); an assistant row ``content``
and/or OpenAI ``tool_calls`` (plus ``reasoning_content``); a tool row ``tool_results:
[{tool_call_id, content}]``. ``delay_seconds`` on a client row (user or tool) is the wait
before it is issued: user think time, or tool execution time.

Mapping: conversation → session; user row → turn (``think_time_s`` = delay); assistant row →
``llm`` step answering the preceding client row, its ``messages`` the exact history the
reference sends (:mod:`agentic_bench.trace.mlcommons_agentic`: ``reasoning_content`` kept);
each tool result → ``tool`` step (name and arguments from the matching call; the row's delay
split evenly over its results). A client row without a following assistant row still gets an
``llm`` step (empty output), because the MLCommons harness issues a request for every client
row.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.common import (
    build_session,
    fail,
    iter_jsonl,
    openai_tool_call,
    text_of,
)
from agentic_bench.trace.mlcommons_agentic import conversation_from_rows
from agentic_bench.trace.model import Session

GEN_PARAMS = ("temperature", "top_p", "top_k", "seed", "frequency_penalty", "presence_penalty",
              "repetition_penalty", "stop", "n")
MAX_TOKEN_KEYS = ("max_completion_tokens", "max_new_tokens", "max_tokens")
NEXT_ROLE = {"start": {"user"}, "user": {"assistant"}, "assistant": {"tool", "user"},
             "tool": {"assistant", "user"}}

Row = tuple[int, dict[str, Any]]


def import_mlcommons(path: Path) -> Iterator[Session]:
    """Yield one session per conversation (rows of a conversation must be consecutive)."""
    seen: set[str] = set()
    group: list[Row] = []
    for lineno, row in iter_jsonl(path):
        if row.get("_type") == "dataset_metadata":
            continue
        cid = row.get("conversation_id")
        if cid is None or str(cid) == "":
            raise fail(path, lineno, "conversation_id", "missing or empty")
        cid = str(cid)
        if group and str(group[0][1]["conversation_id"]) != cid:
            yield _session(path, group)
            group = []
        if not group:
            if cid in seen:
                raise fail(path, lineno, "conversation_id",
                           f"rows of conversation {cid!r} are not consecutive")
            seen.add(cid)
        group.append((lineno, row))
    if group:
        yield _session(path, group)


def _num(path: Path, line: int, row: dict[str, Any], key: str) -> float:
    value = row.get(key)
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise fail(path, line, key, f"must be a number >= 0, got {value!r}")
    return float(value)


def _check_turns(path: Path, rows: list[Row]) -> list[Row]:
    for line, row in rows:
        if isinstance(row.get("turn"), bool) or not isinstance(row.get("turn"), int):
            raise fail(path, line, "turn", f"must be an integer, got {row.get('turn')!r}")
    ordered = sorted(rows, key=lambda r: r[1]["turn"])
    for expect, (line, row) in enumerate(ordered, 1):
        if row["turn"] != expect:
            raise fail(path, line, "turn", f"turns must be 1..N without gaps; expected "
                       f"{expect}, got {row['turn']} (conversation {row['conversation_id']!r})")
    return ordered


def _params(client: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    params = {k: client[k] for k in GEN_PARAMS if client.get(k) is not None}
    for key in MAX_TOKEN_KEYS:
        value = client.get(key, defaults.get(key))
        if value is not None:
            params["max_tokens"] = value
            break
    return params


def _session(path: Path, rows: list[Row]) -> Session:
    rows = _check_turns(path, rows)
    first_line, first = rows[0]
    cid = str(first["conversation_id"])
    system = next((r["system"] for _, r in rows if isinstance(r.get("system"), str)
                   and r["system"]), None)
    user_rows = [r for _, r in rows if r.get("role") == "user"]
    defaults = user_rows[0] if user_rows else {}
    tools = defaults.get("tools") or []
    if not isinstance(tools, list):
        raise fail(path, first_line, "tools", "must be a list of OpenAI tool schemas")
    turns: list[dict[str, Any]] = []
    state = "start"
    calls: dict[str, dict[str, Any]] = {}  # id → call of the last assistant row
    pending: dict[str, Any] | None = None  # client row still waiting for its llm step
    kept_reasoning = 0
    for line, row in rows:
        role = row.get("role")
        if role not in NEXT_ROLE.get(state, set()):
            raise fail(path, line, "role", f"{role!r} cannot follow {state!r} "
                       "(expected user → assistant → [tool → assistant]* → user ...)")
        if role in ("user", "tool") and pending is not None:
            turns[-1]["steps"].append({"kind": "llm", "params": _params(pending, defaults)})
        if role == "user":
            content = text_of(row.get("content"))  # multimodal parts: their text
            if not content:
                raise fail(path, line, "content", "user rows need non-empty text content")
            turns.append({"user": content, "think_time_s": _num(path, line, row,
                                                               "delay_seconds"), "steps": []})
            pending = row
        elif role == "assistant":
            assert pending is not None
            raw_calls = row.get("tool_calls") or []
            if not isinstance(raw_calls, list):
                raise fail(path, line, "tool_calls", "must be a list")
            out_calls = [openai_tool_call(c, path, line, f"tool_calls[{i}]")
                         for i, c in enumerate(raw_calls)]
            raw_content = row.get("content")
            reply = raw_content if raw_content is None or isinstance(raw_content, str) \
                else json.dumps(raw_content, ensure_ascii=False)
            if not reply and not out_calls:
                raise fail(path, line, "content", "assistant rows need content or tool_calls")
            kept_reasoning += bool(row.get("reasoning_content"))
            output: dict[str, Any] = {"tool_calls": out_calls}
            if reply:
                output["content"] = reply
            turns[-1]["steps"].append({"kind": "llm", "params": _params(pending, defaults),
                                       "output": output})
            calls = {c["id"]: c for c in out_calls if "id" in c}
            pending = None
        else:  # tool
            results = row.get("tool_results")
            if not isinstance(results, list) or not results:
                raise fail(path, line, "tool_results", "tool rows need a non-empty list")
            delay_ms = _num(path, line, row, "delay_seconds") * 1000.0 / len(results)
            for i, res in enumerate(results):
                where = f"tool_results[{i}]"
                if not isinstance(res, dict) or not isinstance(res.get("tool_call_id"), str):
                    raise fail(path, line, f"{where}.tool_call_id", "missing (string required)")
                call = calls.get(res["tool_call_id"])
                if call is None:
                    raise fail(path, line, f"{where}.tool_call_id", f"{res['tool_call_id']!r} "
                               "matches no tool call of the preceding assistant row")
                if "content" not in res:
                    raise fail(path, line, f"{where}.content", "missing")
                result = res["content"]
                turns[-1]["steps"].append({
                    "kind": "tool", "call_id": res["tool_call_id"], "name": call["name"],
                    "arguments": call["arguments"], "duration_ms": delay_ms,
                    "result": result if isinstance(result, str) else json.dumps(result)})
            pending = row
        state = role
    if pending is not None:
        turns[-1]["steps"].append({"kind": "llm", "params": _params(pending, defaults)})
    # each request's exact history, as the reference builds it (reasoning_content kept, one
    # tool message per result, no content on a tool-call-only assistant message)
    requests = conversation_from_rows(path, rows, allow_overrides=True).rows
    llm_steps = [st for t in turns for st in t["steps"] if st["kind"] == "llm"]
    for step, client in zip(llm_steps, requests, strict=True):
        step["messages"] = client.messages
    metadata: dict[str, Any] = {"source": "mlcommons-agentic", "source_line": first_line,
                                "history": "MLCommons pre-built (reasoning_content kept)"}
    if isinstance(defaults.get("model"), str):
        metadata["model"] = defaults["model"]
    if kept_reasoning:
        metadata["reasoning_content_messages"] = kept_reasoning
    data: dict[str, Any] = {"session_id": cid, "turns": turns, "tools": tools,
                            "metadata": metadata}
    if system:
        data["system"] = system
    return build_session(data, path, first_line)
