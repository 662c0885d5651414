"""What one question's run produced, step by step (input to records and the trace)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentic_bench.transport.result import ChatResult


@dataclass
class LlmCall:
    """One chat call the pipeline made: the exact request and the timed result."""

    step: int
    stage: str
    start_ns: int
    messages: list[dict[str, Any]]
    params: dict[str, Any]
    result: ChatResult
    content: str  # what the pipeline was given (the recorded reply in cached-response mode)


@dataclass
class StageMark:
    """One non-LLM stage (embed, retrieve, rerank) as the pipeline reported it."""

    step: int
    stage: str
    start_ns: int
    end_ns: int
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def duration_ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


@dataclass
class QuestionLog:
    llm: list[LlmCall] = field(default_factory=list)
    stages: list[StageMark] = field(default_factory=list)
    next_step: int = 0

    def step(self) -> int:
        n = self.next_step
        self.next_step += 1
        return n
