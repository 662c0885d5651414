"""Recorded LLM responses: the trace writer (``--record-trace``) and the response cache
(``--replay-responses``, MLPerf's cached-response method).

With the cache, every LLM call is still sent and timed, but the pipeline is handed the
*recorded* reply for the same request, so rounds, sub-queries and graded documents follow the
recording on any system. A request with no recorded match (e.g. a different index changed a
prompt) uses the live reply and counts as a miss in the sample record.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.trace.jsonl import TraceFile, session_to_json
from agentic_bench.trace.model import LlmStep, Session


class TraceWriter:
    """Appends one session per answered question to a JSONL trace (flushed per line)."""

    def __init__(self, path: Path, append: bool = False) -> None:
        self.path = Path(path)
        self.written = 0
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if not append:
            self.path.write_text("", encoding="utf-8")

    def write(self, session: Session) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(session_to_json(session) + "\n")
        self.written += 1


def request_key(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages, sort_keys=True, ensure_ascii=False)


@dataclass
class QuestionResponses:
    """One question's recorded replies, consumed in order per identical request."""

    replies: dict[str, deque[str]]
    hits: int = 0
    misses: int = 0

    def take(self, messages: list[dict[str, Any]]) -> str | None:
        queue = self.replies.get(request_key(messages))
        if queue:
            self.hits += 1
            return queue.popleft()
        self.misses += 1
        return None

    def counts(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses}


@dataclass
class ResponseCache:
    by_question: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    path: str = ""

    @classmethod
    def load(cls, path: Path) -> ResponseCache:
        """Read a trace written by ``--record-trace`` (validated; raises TraceError)."""
        cache = cls(path=str(path))
        for session in TraceFile(path):
            replies: dict[str, list[str]] = {}
            for turn in session.turns:
                for step in turn.steps:
                    if isinstance(step, LlmStep) and step.messages is not None:
                        replies.setdefault(request_key(step.messages), []).append(
                            step.output.content or "")
            cache.by_question[session.session_id] = replies
        return cache

    def __len__(self) -> int:
        return len(self.by_question)

    def for_question(self, question_id: str) -> QuestionResponses:
        recorded = self.by_question.get(question_id, {})
        return QuestionResponses({k: deque(v) for k, v in recorded.items()})
