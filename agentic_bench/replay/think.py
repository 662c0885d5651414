"""Think-time policy: how long to wait for everything that is not an LLM call.

Applies to user think time between turns and to the recorded durations of tool, retrieve,
rerank and embed steps that a plain replay does not execute for real.
``recorded`` waits as recorded; ``scaled:F`` waits F times as long; ``none`` does not wait.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentic_bench.errors import ConfigError


@dataclass(frozen=True)
class ThinkPolicy:
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
