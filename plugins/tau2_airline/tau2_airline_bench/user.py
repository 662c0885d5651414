"""The customer side of a tau2 airline conversation: a script, or an LLM on a second endpoint.

tau2 drives the customer with an LLM that role-plays the task's instructions, reacts to the
agent, reveals information when asked and ends the call with ``###STOP###``. By default this
benchmark replays a fixed script derived from the same instructions (deterministic, the same
for every system under test, no second model):

1. ``Hi! <reason for call>``
2. ``<known info>`` (and ``<unknown info>``, e.g. "I don't remember my reservation id")
3. ``<task instructions>`` (conditions and preferences, stated up front)
4. ``Yes, please go ahead.`` (``confirmations`` times: the policy requires an explicit yes)

The instructions are written to the user in the second person; :func:`first_person` rewrites
them mechanically ("You want" → "I want", "your" → "my"). ``--user-endpoint`` replaces the
script with tau2's LLM user simulator prompt sent to another endpoint.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

STOP = "###STOP###"
TRANSFER = "###TRANSFER###"
OUT_OF_SCOPE = "###OUT-OF-SCOPE###"
FIRST_AGENT_MESSAGE = "Hi! How can I help you today?"  # tau2's orchestrator opens with this
CONFIRM = "Yes, please go ahead."

_FIXED = [
    (r"\byou're\b", "I'm"), (r"\bYou're\b", "I'm"),
    (r"\byou are\b", "I am"), (r"\bYou are\b", "I am"),
    (r"\byou were\b", "I was"), (r"\bYou were\b", "I was"),
    (r"\byourself\b", "myself"), (r"\bYourself\b", "Myself"),
    (r"\byours\b", "mine"), (r"\bYours\b", "Mine"),
    (r"\byour\b", "my"), (r"\bYour\b", "My"),
]
# "you" after these words or before punctuation is an object ("tells you", "corrects you.");
# otherwise it is the subject
_OBJECT_AFTER = frozenset(
    "to for with at from of about than tell tells told ask asks asked give gives gave offer "
    "offers offered let lets help helps send sends sent charge charges book books transfer "
    "transfers contact call calls pay pays refund refunds provide provides show shows thank "
    "assist assists remind reminds inform informs".split())
_YOU = re.compile(r"\b([A-Za-z']+\s+)?([Yy]ou)\b(?=(\s*[.,!?;:)]|\s*$)?)")


def first_person(text: str) -> str:
    """Rewrite second-person instructions as the customer's own words (mechanically)."""
    for pattern, repl in _FIXED:
        text = re.sub(pattern, repl, text)

    def you(m: re.Match[str]) -> str:
        before = m.group(1) or ""
        obj = before.strip().lower() in _OBJECT_AFTER or m.group(3) is not None
        word = "me" if obj else "I"
        return before + word

    return _YOU.sub(you, text)


def instructions(task: dict[str, Any]) -> Any:
    return task["user_scenario"]["instructions"]


def scripted_turns(task: dict[str, Any], confirmations: int = 1) -> list[str]:
    """The customer's messages for the scripted user (see the module docstring)."""
    ins = instructions(task)
    if isinstance(ins, str):
        return [first_person(ins)] + [CONFIRM] * confirmations
    turns = [f"Hi! {first_person(ins['reason_for_call'].strip())}"]
    info = [first_person(ins[k].strip()) for k in ("known_info", "unknown_info") if ins.get(k)]
    if info:
        turns.append("\n\n".join(info))
    if ins.get("task_instructions"):
        turns.append(first_person(ins["task_instructions"].strip()))
    return turns + [CONFIRM] * confirmations


def scenario_text(task: dict[str, Any]) -> str:
    """``str(task.user_scenario)`` as tau2 renders it for its user simulator."""
    scenario = task["user_scenario"]
    ins = scenario["instructions"]
    if isinstance(ins, str):
        body = ins
    else:
        tab = "\t"
        lines = [f"Domain: {ins['domain']}",
                 f"Reason for call:\n{textwrap.indent(ins['reason_for_call'], tab)}"]
        if ins.get("known_info") is not None:
            lines.append(f"Known info:\n{textwrap.indent(ins['known_info'], tab)}")
        if ins.get("unknown_info") is not None:
            lines.append(f"Unknown info:\n{textwrap.indent(ins['unknown_info'], tab)}")
        lines.append(f"Task instructions:\n{textwrap.indent(ins['task_instructions'], tab)}")
        body = "\n".join(lines)
    out = []
    if scenario.get("persona") is not None:
        out += ["Persona:", textwrap.indent(scenario["persona"], "\t")]
    out += ["Instructions:", textwrap.indent(body, "\t")]
    return "\n".join(out)


def user_system_prompt(task: dict[str, Any], guidelines: str) -> str:
    """tau2's user-simulator system prompt (global guidelines + the task's scenario)."""
    return f"{guidelines}\n\n<scenario>\n{scenario_text(task)}\n</scenario>".strip()


def is_stop(text: str) -> bool:
    return STOP in text or TRANSFER in text or OUT_OF_SCOPE in text


class LlmUser:
    """tau2's user simulator state: its system prompt and the conversation, roles flipped."""

    def __init__(self, task: dict[str, Any], guidelines: str) -> None:
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": user_system_prompt(task, guidelines)}]

    def heard(self, agent_text: str) -> None:
        """What the agent said to the customer (the user model sees it as ``user``)."""
        self.messages.append({"role": "user", "content": agent_text})

    def said(self, user_text: str) -> None:
        self.messages.append({"role": "assistant", "content": user_text})
