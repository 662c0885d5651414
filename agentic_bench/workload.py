"""What a benchmark hands the harness: sessions, an executor, and optional scoring.

The replay of a trace is one workload; a task (agentic-edge, rag-e2e, a plugin) is another.
The composition root (:mod:`agentic_bench.bench`) runs any of them the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.load.runner import Execute, SessionSource
from agentic_bench.replay.session import RecordSink, ReplayOptions, SessionReplayer
from agentic_bench.transport.base import ChatTransport


@dataclass
class ExecContext:
    transport: ChatTransport
    sink: RecordSink
    t0_ns: int
    options: ReplayOptions
    # what an executor opened beside the run's transport (e.g. a second endpoint's client),
    # closed by the harness when the run's sessions are over
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    async def close_extras(self) -> None:
        while self.closers:
            await self.closers.pop()()


Scorer = Callable[[list[dict[str, Any]]], dict[str, Any] | None]


@dataclass
class Workload:
    name: str
    source: SessionSource
    make_executor: Callable[[ExecContext], Execute]
    score: Scorer | None = None
    default_slos: dict[str, float] = field(default_factory=dict)
    default_scenario: str | None = None
    default_overrides: dict[str, Any] = field(default_factory=dict)  # e.g. max_tokens
    info: dict[str, Any] = field(default_factory=dict)
    # what identifies the workload for --resume when ``info`` also holds measured figures
    # (e.g. the index build time); None: ``info`` itself
    identity: dict[str, Any] | None = None
    planned_turns: Callable[[int], int] | None = None
    recipe: tuple[Any, ...] | None = None  # picklable: how a worker process rebuilds this
    # extra files a benchmark writes into the run directory once the summary exists (e.g.
    # MLPerf's own artifacts); returns the paths written
    write_artifacts: Callable[[Path, dict[str, Any], list[dict[str, Any]]], list[Path]] | None \
        = None


def session_executor(workload: Workload, ctx: ExecContext) -> Execute:
    """The workload's executor for this run, with each session's affinity headers set while
    it runs (``--session-header``)."""
    from agentic_bench.transport.session_headers import with_session_headers

    return with_session_headers(workload.make_executor(ctx), ctx.options.session_headers)


def replay_executor(ctx: ExecContext) -> Execute:
    return SessionReplayer(ctx.transport, ctx.sink, ctx.options, ctx.t0_ns).run
