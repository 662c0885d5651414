"""The agent's system prompt (tau2's ``LLMAgent`` prompt) and the compact profile.

``full`` is tau2's prompt: its agent instruction and the whole airline policy, with the 14
tool schemas as tau2 generates them. ``compact`` is for small-context endpoints (the embedded
SmolLM2 server has a 4,096-token window, smaller than tau2's prompt): the policy's opening
section only (general rules, before "## Domain Basic"), tool schemas without parameter titles
and descriptions, and tool outputs cut to ``max_tool_chars``. Compact runs are not comparable
with full ones; the profile is recorded in summary.json.
"""

from __future__ import annotations

from tau2_airline_bench.data import load_policy

AGENT_INSTRUCTION = """
You are a customer service agent that helps the user according to the <policy> provided below.
In each turn you can either:
- Send a message to the user.
- Make a tool call.
You cannot do both at the same time.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.
""".strip()

SYSTEM_PROMPT = """
<instructions>
{agent_instruction}
</instructions>
<policy>
{domain_policy}
</policy>
""".strip()

COMPACT_NOTE = "(Abridged policy: the detailed booking, change and refund rules are omitted.)"
COMPACT_TOOL_CHARS = 1500


def policy_text(profile: str) -> str:
    policy = load_policy()
    if profile == "compact":
        head = policy.split("\n## ", 1)[0].rstrip()
        return f"{head}\n\n{COMPACT_NOTE}"
    return policy


def system_prompt(profile: str = "full") -> str:
    return SYSTEM_PROMPT.format(agent_instruction=AGENT_INSTRUCTION,
                                domain_policy=policy_text(profile))


def clip(text: str, limit: int) -> str:
    if limit <= 0 or len(text) <= limit:
        return text
    return f"{text[:limit]}... [truncated {len(text) - limit} characters]"
