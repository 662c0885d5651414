"""One airline task as a closed-loop conversation against the endpoint under test.

Each customer message is a turn. Within a turn the agent (the model under test) is called
with tau2's system prompt, the history and the 14 tools; its tool calls run on the session's
copy of the database (timed as ``tool`` stages) and their outputs go back to it, until it
answers the customer in text or ``max_steps`` calls were made. The customer is the script
(default) or an LLM on ``--user-endpoint`` (its calls are timed as ``user`` stages, outside
turn latency). The model's own replies are always fed back (live history on the agent side).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from time import perf_counter_ns
from typing import Any

from agentic_bench.api import Session, SessionRecorder

from tau2_airline_bench.data import task_by_id, user_guidelines
from tau2_airline_bench.db import AirlineDB
from tau2_airline_bench.prompt import clip, system_prompt
from tau2_airline_bench.schemas import tool_schemas
from tau2_airline_bench.scoring import Conversation
from tau2_airline_bench.tools import AirlineTools, call_tool
from tau2_airline_bench.user import FIRST_AGENT_MESSAGE, LlmUser, is_stop, scripted_turns


@dataclass
class Settings:
    profile: str = "full"  # full | compact (see prompt.py)
    max_steps: int = 10  # agent LLM calls per customer turn
    max_tool_chars: int = 0  # 0 = tool outputs unabridged
    max_tokens: int | None = 1024  # per agent call (the global --max-tokens wins)
    confirmations: int = 1  # scripted user: "Yes, please go ahead." turns
    user_endpoint: str | None = None  # None = scripted user; URL or "same"
    user_model: str | None = None
    user_api_key_env: str = "OPENAI_API_KEY"
    max_user_turns: int = 10  # LLM user: customer messages before giving up (max_turns)
    user_max_tokens: int = 256

    @property
    def user_mode(self) -> str:
        from agentic_bench.api import redact_url

        return "scripted" if not self.user_endpoint else f"llm:{redact_url(self.user_endpoint)}"


class UserSide:
    """The customer: next message, or None when the conversation is over."""

    def __init__(self, settings: Settings, task: dict[str, Any], rec: SessionRecorder) -> None:
        self.settings = settings
        self.rec = rec
        self.script = None if settings.user_endpoint else scripted_turns(
            task, settings.confirmations)
        self.llm = LlmUser(task, user_guidelines()) if settings.user_endpoint else None
        self.client: Any = None
        self.model = settings.user_model
        self.failed = False
        self.stopped = False
        self.last_end_ns = 0

    async def next(self, turn: int, agent_text: str | None) -> str | None:
        if self.script is not None:
            return self.script[turn] if turn < len(self.script) else None
        assert self.llm is not None
        if turn >= self.settings.max_user_turns:
            return None
        self.llm.heard(agent_text or "")
        text = await self._ask(turn)
        if text is None:
            self.failed = True
            return None
        self.llm.said(text)
        if is_stop(text):
            self.stopped = True
            return None
        return text

    async def _ask(self, turn: int) -> str | None:
        assert self.llm is not None
        transport, model = await self._transport()
        body = {"model": model, "messages": list(self.llm.messages), "temperature": 0,
                "seed": 42, "max_tokens": self.settings.user_max_tokens}
        t0 = perf_counter_ns()
        result = await transport.chat(body, self.rec.ctx.options.request_timeout_s,
                                      context=self.rec.ticket.request_context)
        end = perf_counter_ns()
        self.last_end_ns = end
        status = "ok" if result.ok else "error"
        self.rec.stage("user", turn, 0, t0, end, status=status, model=model,
                       **({} if result.ok else {"error_type": result.error_type,
                                                 "error": result.error}))
        return result.content if result.ok else None

    async def _transport(self) -> tuple[Any, str]:
        ctx = self.rec.ctx
        if self.settings.user_endpoint == "same":
            return ctx.transport, self.model or ctx.options.model
        if self.client is None:
            from agentic_bench.api import make_chat_client

            key = os.environ.get(self.settings.user_api_key_env) or None
            self.client = make_chat_client(str(self.settings.user_endpoint), key,
                                           kind=ctx.transport_kind)
            if not self.model:
                status, listing = await self.client.list_models()
                models = listing.get("data") if isinstance(listing, dict) else None
                self.model = models[0]["id"] if status == 200 and models else "default"
        return self.client, str(self.model)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()


def _decode(arguments: str | None) -> dict[str, Any] | None:
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


async def run_conversation(rec: SessionRecorder, session: Session,
                           settings: Settings) -> Conversation:
    task_id = str(session.metadata["task_id"])
    task = task_by_id(task_id)
    conv = Conversation(task_id=task_id, db=AirlineDB())
    tools = AirlineTools(conv.db)
    schemas = tool_schemas(compact=settings.profile == "compact")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt(settings.profile)},
        {"role": "assistant", "content": FIRST_AGENT_MESSAGE}]
    user = UserSide(settings, task, rec)
    agent_text: str | None = FIRST_AGENT_MESSAGE
    try:
        turn = 0
        while True:
            text = await user.next(turn, agent_text)
            if text is None:
                conv.termination = ("user_error" if user.failed else "user_stop"
                                    if user.script is not None or user.stopped else "max_turns")
                break
            rec.start_turn()
            if user.last_end_ns:  # the customer's LLM time is not part of the turn
                rec.turn_start_ns = max(rec.turn_start_ns, user.last_end_ns)
                rec.cursor_ns = max(rec.cursor_ns, rec.turn_start_ns)
            messages.append({"role": "user", "content": text})
            agent_text, ok, transferred = await _agent_turn(rec, messages, schemas, tools,
                                                            conv, turn, settings)
            conv.turns = turn + 1
            if not ok:
                conv.termination = "agent_error"
                break
            if transferred and user.script is not None:
                break  # tau2's customer ends the call (###TRANSFER###) once transferred
            turn += 1
    finally:
        await user.close()
    if user.failed:
        rec.errors += 1
    return conv


async def _agent_turn(rec: SessionRecorder, messages: list[dict[str, Any]],
                      schemas: list[dict[str, Any]], tools: AirlineTools, conv: Conversation,
                      turn: int, settings: Settings) -> tuple[str | None, bool, bool]:
    """Agent calls until it answers the customer: ``(text, ok, transferred)``."""
    text: str | None = None
    transferred = False
    calls_made = 0
    for step in range(settings.max_steps):
        body: dict[str, Any] = {"messages": list(messages), "tools": schemas,
                                "tool_choice": "auto", "temperature": 0, "seed": 42}
        if settings.max_tokens:
            body["max_tokens"] = settings.max_tokens
        result = await rec.llm(body, turn, step, task_id=conv.task_id)
        if not result.ok:
            rec.end_turn(turn, tool_calls=calls_made)
            return None, False, transferred
        calls = result.tool_calls
        ids = [c.get("id") or f"call_{turn}_{step}_{i}" for i, c in enumerate(calls)]
        message: dict[str, Any] = {"role": "assistant", "content": result.content or ""}
        if calls:
            message["tool_calls"] = [
                {"id": i, "type": "function",
                 "function": {"name": c["name"], "arguments": c.get("arguments") or "{}"}}
                for i, c in zip(ids, calls, strict=True)]
        messages.append(message)
        if result.content:
            conv.agent_texts.append(result.content)
            text = result.content
        if not calls:
            break
        for cid, call in zip(ids, calls, strict=True):
            t0 = perf_counter_ns()
            args = _decode(call.get("arguments"))
            if args is None:
                output, error = "Error: tool arguments are not a JSON object", True
            else:
                output, error = call_tool(tools, call["name"], args)
            rec.stage("tool", turn, step, t0, perf_counter_ns(), name=call["name"],
                      tool_error=error)
            conv.tool_calls.append({"name": call["name"], "error": error, "turn": turn})
            transferred |= call["name"] == "transfer_to_human_agents" and not error
            calls_made += 1
            messages.append({"role": "tool", "tool_call_id": cid,
                             "content": clip(output, settings.max_tool_chars)})
    rec.end_turn(turn, tool_calls=calls_made, answered=text is not None)
    return text, True, transferred
