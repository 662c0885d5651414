"""The prompt of our tool-call routing, in plain Python (no Jinja, no llama-cpp-python).

The prompt format of llama-cpp-python's ``chatml-function-calling`` chat format plus a ``tool``
role: ChatML turns; with tools, the system message lists each as ``functions.<name>:`` and its
parameters' JSON, and says a reply begins with ``message:`` or ``functions.<name>:``; a
recorded assistant call is rendered that way too. Until 2026-12-06 our llama-cpp-python shim
rendered the same text from a Jinja template (checked character for character), so the routing
on ``llama-server`` (:mod:`.tool_routing`) sees the prompt the shim measured with;
``tests/unit/endpoint/test_routing_prompt.py`` keeps that text fixed.
"""

from __future__ import annotations

import json
from typing import Any

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
# the instructions after the function list (as llama-cpp-python's chatml-function-calling)
FORMAT_HELP = (
    "\n\nYou can respond to users messages with either a single message or one or more function"
    " calls."
    "\n\nTo respond with a message begin the message with 'message:', use the following format:"
    "\n\nmessage:"
    "\n<message>"
    "\n\nTo respond with one or more function calls begin the message with"
    " 'functions.<function_name>:', use the following format:"
    "\n\nfunctions.<function_name>:"
    '\n{ "arg1": "value1", "arg2": "value2" }'
    "\nfunctions.<function_name>:"
    '\n{ "arg1": "value1", "arg2": "value2" }'
)
# what Jinja's ``tojson`` filter escapes (HTML-safe JSON), as it writes it
_HTML_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"}


def html_safe_json(value: Any) -> str:
    """``json.dumps`` with sorted keys and ``< > & '`` escaped, as Jinja's ``tojson``."""
    text = json.dumps(value, sort_keys=True)
    for char, escaped in _HTML_SAFE.items():
        text = text.replace(char, escaped)
    return text


def content_text(content: Any) -> str:
    """OpenAI content may be a list of parts; the prompt wants a string."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def _system(content: str, tools: list[dict[str, Any]]) -> str:
    if not tools:
        return content
    listed = "".join(f"\nfunctions.{t['function']['name']}:\n"
                     f"{html_safe_json(t['function'].get('parameters'))}\n" for t in tools)
    return f"{content}\n\nYou have access to the following functions:\n{listed}{FORMAT_HELP}"


def _assistant(message: dict[str, Any], content: str, with_tools: bool) -> str:
    out = ""
    if content:
        out += ("message:\n" if with_tools else "") + content + f"{IM_END}\n"
    calls = message.get("tool_calls") or []
    if calls:
        out += "".join(f"functions.{c['function']['name']}:\n{c['function']['arguments']}"
                       for c in calls) + f"{IM_END}\n"
    return out


def render_routing_prompt(messages: list[dict[str, Any]],
                          tools: list[dict[str, Any]] | None) -> str:
    """The ChatML prompt, ending with the assistant's turn; with tools, a system message
    listing them is ensured."""
    tools = tools or []
    if tools and not any(m.get("role") == "system" for m in messages):
        messages = [{"role": "system", "content": ""}, *messages]
    parts: list[str] = []
    for message in messages:
        role = message.get("role")
        content = content_text(message.get("content"))
        parts.append(f"{IM_START}{role}\n")
        if role == "system":
            parts.append(_system(content, tools) + f"{IM_END}\n")
        elif role in ("user", "tool"):
            parts.append(content + f"{IM_END}\n")
        elif role == "assistant":
            parts.append(_assistant(message, content, bool(tools)))
    return "".join(parts) + f"{IM_START}assistant\n"
