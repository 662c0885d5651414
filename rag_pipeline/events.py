"""Stage events: how the pipeline tells its caller what it did and when.

Every stage (embed, retrieve, rerank, grade, generate, decompose, sufficiency) is reported as one
:class:`StageEvent` with ``time.perf_counter_ns()`` start/end stamps, so a harness can turn each
into a step record. LLM stages put the opaque reply object(s) returned by the chat function under
``info["replies"]`` so the caller can join its own transport timings.

While a stage runs, :data:`current_stage` holds its name; a chat function may read it to label the
request it sends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Final, Literal

StageName = Literal["embed", "retrieve", "rerank", "grade", "generate", "decompose", "sufficiency"]
STAGES: Final[tuple[str, ...]] = (
    "embed",
    "retrieve",
    "rerank",
    "grade",
    "generate",
    "decompose",
    "sufficiency",
)

current_stage: ContextVar[str | None] = ContextVar("rag_pipeline_current_stage", default=None)


@dataclass(slots=True)
class StageEvent:
    """One timed stage. ``info`` carries stage-specific details (round, counts, replies...)."""

    stage: StageName
    start_ns: int
    end_ns: int
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


StageCallback = Callable[[StageEvent], None]


@contextmanager
def timed_stage(
    stage: StageName, on_stage: StageCallback | None, info: dict[str, Any] | None = None
) -> Iterator[dict[str, Any]]:
    """Time the body as ``stage`` and report it; the yielded dict is the event's ``info``.

    The event is reported even when the body raises (with ``info["error"]`` set), then the
    exception propagates.
    """
    details: dict[str, Any] = dict(info or {})
    token = current_stage.set(stage)
    start = time.perf_counter_ns()
    try:
        yield details
    except BaseException as exc:
        details.setdefault("error", f"{type(exc).__name__}: {exc}")
        raise
    finally:
        end = time.perf_counter_ns()
        current_stage.reset(token)
        if on_stage is not None:
            on_stage(StageEvent(stage=stage, start_ns=start, end_ns=end, info=details))
