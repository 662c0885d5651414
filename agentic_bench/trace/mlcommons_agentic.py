"""MLPerf Inference v6.1 Edge Agentic performance phase: the requests the reference sends.

Input: MLCommons' agentic JSONL (``agentic_coding_2.5h.jsonl``): one message per row, the rows
of a conversation consecutive, roles ``user`` / ``assistant`` / ``tool``. For every *client
row* (user or tool) the reference issues one chat request whose ``messages`` are the recorded,
teacher-forced history up to and including that row. This module rebuilds those requests
exactly, with no network and no pandas. References are to mlcommons/endpoints @ ea332753;
``DS`` = ``src/inference_endpoint/dataset_manager/agentic_inference_dataset.py``, ``AD`` =
``src/inference_endpoint/openai/openai_msgspec_adapter.py``, ``TY`` =
``src/inference_endpoint/openai/types.py``, ``CFG`` = ``src/inference_endpoint/config/schema.py``,
``ST`` = ``src/inference_endpoint/load_generator/agentic_inference_strategy.py``, ``YML`` =
``examples/11_Edge_Agentic_Example/online_edge_full_run.yaml``.

Loading and validation:
- ``_type: dataset_metadata`` rows are skipped (DS:257-262).
- ``conversation_id``: non-empty printable ASCII; a conversation's rows consecutive (DS:272-303).
- ``turn``: 1..N with no gap (DS:457-470). Stricter than DS, which sorts by turn (DS:127): here
  the file order itself must be 1..N, so a line number always names the offending row.
- Role sequence start→user, user→assistant, assistant→tool|user, tool→assistant|user
  (DS:314-319); a tool row needs an assistant with tool calls before it, a user row must not
  follow one (DS:335-340, 445-450). Assistant: non-empty ``content`` or non-empty ``tool_calls``,
  each ``{id, type: function, function: {name, arguments}}`` (DS:368-432). User: non-empty
  ``content`` (DS:433-444). Tool: non-empty ``tool_results`` of ``{tool_call_id, content}``
  (DS:341-367, 100-104).

History (DS:121-202): an optional system message first, from the first row with a non-empty
string ``system`` (DS:130-146); then every row in turn order becomes message(s): a tool row one
``role: tool`` message per ``tool_results`` entry (DS:68-108), any other row its ``role``,
``content``, ``name``, ``tool_calls``, ``reasoning_content`` when not null (DS:156-167). A client
row's request is ``history + its own messages`` (DS:176-184); assistant rows only extend the
history (DS:200-202).

Wire form: messages are encoded with None fields omitted (TY:84 ``omit_defaults=True``, defaults
None at TY:98-103), keys in TY:98-103 order; only role, content, name, tool_calls, tool_call_id
and reasoning_content are forwarded (AD:50-59). So an assistant row with only tool calls, which
DS:168-173 gives ``content: None``, goes out with *no* ``content`` key, while ``content: ""``
beside tool calls is kept as ``""``; ``reasoning_content`` is kept (also ``""``).

Request body (AD:173-193, field order TY:118-136, None omitted): ``model`` (the run's model name,
AD:76/174), ``messages``, ``temperature`` 0, ``max_completion_tokens`` 1024 (YML:51-53 via
AD:77-88 and DS:622-631), ``stream`` true (YML:35 online → CFG:1139-1144 streaming on → AD:86-87),
``seed`` 42, ``tools`` (the row's own, else the conversation's first user row's, DS:582-620).
No ``tool_choice``: the agentic path takes it only from a dataset column (AD:192), which this
dataset lacks. The reference also sends header ``X-Session-ID: <conversation_id>``
(CFG:419-421, load_generator/session.py:244-248): :func:`routing_headers`.

Not in the request: ``delay_seconds`` is only slept when ``inject_tool_delay`` (CFG:412-418,
ST:274-289; off in YML); trajectory salt only with ``enable_salt`` (CFG:405-411, ST:357-358; off);
each turn has a 600 s deadline (YML:67, ST:346-349) that aborts the rest of its conversation.
Per-row generation overrides (``model``, ``max_new_tokens``, ``temperature``...) would change
the body (transforms.py:142-145); the MLPerf dataset has none, so they are rejected here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.common import fail, iter_jsonl
from agentic_bench.trace.jsonl import json_loads

CLIENT_ROLES = ("user", "tool")
NEXT_ROLE = {"start": ("user",), "user": ("assistant",), "assistant": ("tool", "user"),
             "tool": ("assistant", "user")}
OVERRIDE_KEYS = ("model", "max_new_tokens", "max_completion_tokens", "max_tokens", "stream",
                 "temperature", "top_p", "top_k", "seed", "repetition_penalty", "n", "stop",
                 "presence_penalty", "frequency_penalty", "logit_bias", "user", "chat_template",
                 "chat_template_kwargs", "tool_choice")
Message = dict[str, Any]


@dataclass(frozen=True)
class RecordedReply:
    """The assistant row that follows a client row, as recorded."""

    content: str | None
    tool_calls: list[dict[str, Any]] | None
    reasoning_content: str | None


@dataclass(frozen=True)
class ClientRow:
    """One request of the performance phase (messages share dicts: do not mutate)."""

    conversation_id: str
    index: int  # 0-based position of the row in its conversation
    turn: int  # the MLPerf ``turn`` field (index + 1)
    role: str  # "user" or "tool"
    messages: list[Message]
    tools: list[dict[str, Any]] | None
    reply: RecordedReply | None
    delay_s: float
    line: int


@dataclass(frozen=True)
class Conversation:
    id: str
    rows: list[ClientRow]  # client rows only
    system: str | None
    tools: list[dict[str, Any]] | None
    n_rows: int  # every row, assistant rows included


def looks_like_mlcommons_agentic(path: Path | str, max_rows: int = 3) -> bool:
    """True when the first non-empty rows are MLCommons agentic rows (not our own trace)."""
    try:
        with open(path, "rb") as fh:
            seen = 0
            for raw in fh:
                if not raw.strip():
                    continue
                row = json_loads(raw)
                if not isinstance(row, dict) or "schema_version" in row:
                    return False
                if row.get("_type") != "dataset_metadata":
                    return "conversation_id" in row and "role" in row
                seen += 1
                if seen >= max_rows:
                    return False
    except (OSError, ValueError):
        return False
    return False


def load_conversations(path: Path | str) -> list[Conversation]:
    """Every conversation of ``path``; a broken row raises TraceError at ``file:line``."""
    groups: list[list[tuple[int, dict[str, Any]]]] = []
    seen: set[str] = set()
    for line, row in iter_jsonl(Path(path)):
        if row.get("_type") == "dataset_metadata":
            continue
        cid = row.get("conversation_id")
        if not isinstance(cid, str) or not cid:
            raise fail(path, line, "conversation_id", f"expected a non-empty string, got {cid!r}")
        if any(not 32 <= ord(ch) <= 126 for ch in cid):
            raise fail(path, line, "conversation_id", "expected printable ASCII only")
        if not groups or groups[-1][0][1]["conversation_id"] != cid:
            if cid in seen:
                raise fail(path, line, "conversation_id",
                           f"rows of conversation {cid!r} are not consecutive")
            seen.add(cid)
            groups.append([])
        groups[-1].append((line, row))
    if not groups:
        raise fail(path, 0, "", "expected at least one conversation row, found none")
    return [_conversation(path, group) for group in groups]


def request_body(row: ClientRow, *, model: str | None = None, max_completion_tokens: int = 1024,
                 temperature: float = 0.0, seed: int = 42) -> dict[str, Any]:
    """The reference's chat-completions body for ``row`` (TY:118-136 order, None omitted)."""
    body: dict[str, Any] = {"model": model, "messages": list(row.messages),
                            "temperature": temperature,
                            "max_completion_tokens": max_completion_tokens, "stream": True,
                            "seed": seed, "tools": row.tools}
    return {k: v for k, v in body.items() if v is not None}


def routing_headers(row: ClientRow) -> dict[str, str]:
    """The reference's per-request routing header (CFG:419-421, session.py:244-248)."""
    return {"X-Session-ID": row.conversation_id}


def _str_or_none(path: Path | str, line: int, row: dict[str, Any], key: str,
                 non_empty: bool = False) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or (non_empty and not value):
        want = "a non-empty string" if non_empty else "a string or null"
        raise fail(path, line, key, f"expected {want}, got {value!r:.80}")
    return value


def _tool_calls(path: Path | str, line: int, row: dict[str, Any]) -> list[dict[str, Any]] | None:
    calls = row.get("tool_calls")
    if calls is None:
        return None
    if not isinstance(calls, list) or not calls:
        raise fail(path, line, "tool_calls", "expected a non-empty list (or no field)")
    for i, call in enumerate(calls):
        where = f"tool_calls[{i}]"
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not call["id"]:
            raise fail(path, line, where, "expected an object with a non-empty string 'id'")
        if call.get("type") != "function":
            raise fail(path, line, f"{where}.type",
                       f"expected 'function', got {call.get('type')!r}")
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
            raise fail(path, line, f"{where}.function.name", "expected a non-empty string")
        if not isinstance(fn.get("arguments"), str | dict):
            raise fail(path, line, f"{where}.function.arguments",
                       "expected a JSON string or an object")
    return calls


def _tool_messages(path: Path | str, line: int, row: dict[str, Any]) -> list[Message]:
    results = row.get("tool_results")
    if not isinstance(results, list) or not results:
        raise fail(path, line, "tool_results", "expected a non-empty list on a tool row")
    out: list[Message] = []
    for i, res in enumerate(results):
        where = f"tool_results[{i}]"
        if not isinstance(res, dict):
            raise fail(path, line, where, "expected an object {tool_call_id, content}")
        call_id, content = res.get("tool_call_id"), res.get("content")
        if not isinstance(call_id, str) or not call_id:
            raise fail(path, line, f"{where}.tool_call_id", "expected a non-empty string")
        if not isinstance(content, str):
            raise fail(path, line, f"{where}.content", f"expected a string, got {content!r:.80}")
        out.append({"role": "tool", "content": content, "tool_call_id": call_id})  # TY:98-103
    return out


def _row_message(path: Path | str, line: int, row: dict[str, Any], role: str) -> Message:
    forbidden = ["tool_results"] + ([] if role == "assistant"
                                    else ["tool_calls", "reasoning_content"])
    for key in forbidden:
        if row.get(key) is not None:
            raise fail(path, line, key, f"not expected on a {role} row")
    content = _str_or_none(path, line, row, "content", non_empty=role == "user")
    calls = _tool_calls(path, line, row) if role == "assistant" else None
    if role == "user" and content is None:
        raise fail(path, line, "content", "expected a non-empty string on a user row")
    if role == "assistant" and not content and not calls:
        raise fail(path, line, "content", "expected non-empty content or tool_calls")
    msg: Message = {"role": role, "content": content,
                    "name": _str_or_none(path, line, row, "name"), "tool_calls": calls,
                    "reasoning_content": _str_or_none(path, line, row, "reasoning_content")}
    return {k: v for k, v in msg.items() if v is not None}


def conversation_from_rows(path: Path | str, group: list[tuple[int, dict[str, Any]]], *,
                           allow_overrides: bool = False) -> Conversation:
    """One conversation from its ``(line, row)`` pairs in turn order. ``allow_overrides``:
    accept per-row generation parameters (the importer maps them itself) instead of
    rejecting them."""
    return _conversation(path, group, allow_overrides=allow_overrides)


def _conversation(path: Path | str, group: list[tuple[int, dict[str, Any]]], *,
                  allow_overrides: bool = False) -> Conversation:
    cid = group[0][1]["conversation_id"]
    system: str | None = None
    for line, row in group:
        if system is None and _str_or_none(path, line, row, "system"):
            system = row["system"]
        tools = row.get("tools")
        if tools is not None and (not isinstance(tools, list)
                                  or not all(isinstance(t, dict) for t in tools)):
            raise fail(path, line, "tools", "expected a list of tool objects")
        for key in () if allow_overrides else OVERRIDE_KEYS:
            if row.get(key) is not None:
                raise fail(path, line, key, "per-row generation parameters are not supported "
                           "(the MLPerf Edge Agentic dataset has none)")
    first_user_tools = next((row.get("tools") for _, row in group if row.get("role") == "user"),
                            None)
    history: list[Message] = [{"role": "system", "content": system}] if system else []
    rows: list[ClientRow] = []
    state, prev_calls = "start", False
    for i, (line, row) in enumerate(group):
        turn, role = row.get("turn"), row.get("role")
        if isinstance(turn, bool) or not isinstance(turn, int) or turn != i + 1:
            raise fail(path, line, "turn", f"expected {i + 1} (turns are 1..N in file order), "
                       f"got {turn!r}")
        if role not in NEXT_ROLE[state]:
            raise fail(path, line, "role", f"expected {' or '.join(NEXT_ROLE[state])} after "
                       f"{state}, got {role!r}")
        if role == "tool" and state == "assistant" and not prev_calls:
            raise fail(path, line, "role", "a tool row must follow an assistant with tool_calls")
        if role == "user" and state == "assistant" and prev_calls:
            raise fail(path, line, "role", "expected a tool row after an assistant's tool_calls")
        msgs = (_tool_messages(path, line, row) if role == "tool"
                else [_row_message(path, line, row, role)])
        prev_calls = role == "assistant" and "tool_calls" in msgs[0]
        if role in CLIENT_ROLES:
            delay = row.get("delay_seconds")
            if delay is not None and (isinstance(delay, bool) or not isinstance(delay, int | float)
                                      or delay < 0):
                raise fail(path, line, "delay_seconds", f"expected a number >= 0, got {delay!r}")
            tools = row.get("tools") if row.get("tools") is not None else first_user_tools
            rows.append(ClientRow(cid, i, turn, role, history + msgs, tools,
                                  _reply(group, i), float(delay or 0.0), line))
        history.extend(msgs)
        state = role
    return Conversation(cid, rows, system, first_user_tools, len(group))


def _reply(group: list[tuple[int, dict[str, Any]]], i: int) -> RecordedReply | None:
    if i + 1 >= len(group) or group[i + 1][1].get("role") != "assistant":
        return None
    nxt = group[i + 1][1]
    return RecordedReply(nxt.get("content"), nxt.get("tool_calls"), nxt.get("reasoning_content"))
