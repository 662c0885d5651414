"""Per-run replay options and the think-time policy: plain data, at the bottom of the house.

Think-time policy: how long to wait for everything that is not an LLM call — user think time
between turns and the recorded durations of tool, retrieve, rerank and embed steps that a plain
replay does not execute for real. ``recorded`` waits as recorded; ``scaled:F`` waits F times as
long; ``none`` does not wait.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.options.schema import TextValue


@dataclass(frozen=True)
class ThinkPolicy(TextValue):
    """Think time between turns: the recorded gap scaled by ``factor`` (0: none); the
    ``--think-time`` option's value, parsed from its text."""

    factor: float = 1.0

    @classmethod
    def parse(cls, text: str) -> ThinkPolicy:
        text = text.strip().lower()
        if text == "recorded":
            return cls(1.0)
        if text == "none":
            return cls(0.0)
        if text.startswith("scaled:"):
            try:
                factor = float(text.split(":", 1)[1])
            except ValueError:
                factor = -1.0
            if factor >= 0:
                return cls(factor)
        raise ConfigError(
            f"--think-time {text!r}: expected 'recorded', 'none' or 'scaled:<factor>' (factor ≥ 0)"
        )

    def wait_s(self, recorded_s: float) -> float:
        return max(0.0, recorded_s) * self.factor

    def __str__(self) -> str:
        if self.factor == 1.0:
            return "recorded"
        return "none" if self.factor == 0.0 else f"scaled:{self.factor:g}"


@dataclass(frozen=True)
class SynthesisOptions:
    """How prompts given as blocks are written and sent (docs/agentx.md): the tokenizer
    (a local folder or ``server``), the seed of block texts, and whether replies are held to
    their recorded length (``ignore_eos``, and ``min_tokens`` for servers that take it)."""

    tokenizer: str = "server"
    seed: int = 42
    ignore_eos: bool = True
    min_tokens: bool = False


@dataclass(frozen=True)
class ReplayOptions:
    """How a session's requests are made: the model, the history policy, think time, body
    overrides, timeouts and retries, a cache-busting salt, the session affinity headers and
    prompt synthesis."""

    model: str
    history: str = "recorded"
    think: ThinkPolicy = field(default_factory=ThinkPolicy)
    overrides: dict[str, Any] = field(default_factory=dict)
    request_timeout_s: float = 300.0
    turn_timeout_s: float | None = None
    live_max_steps: int = 25
    salt: str | None = None
    retries: int = 0
    retry_rule: str = "any"  # --retry-on: which failures are retried (replay/timed_call.py)
    session_headers: tuple[str, ...] = ()  # each session's id in these HTTP headers
    session_user: bool = False  # and as each request body's OpenAI ``user`` field
    parent_session_headers: tuple[str, ...] = ()  # a subagent's parent session id in these
    synthesis: SynthesisOptions = field(default_factory=SynthesisOptions)
    trace_key: str | None = None  # --traceparent: the run's key of W3C trace ids (None: off)
