"""The contracts every layer above shares: sessions as they are issued and finished, the
executor signature, the session source, the run context an executor gets, and the workload a
benchmark hands the harness.

This module sits below ``load/``, ``replay/``, ``tasks/`` and ``run/``: it imports only the
trace model, the transport contract and the replay options, so the scheduler (``load/``), the
trace replayer (``replay/``) and every task depend on it rather than on each other.
``agentic_bench.api`` re-exports these names (the plugin surface).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agentic_bench.options.replay import ReplayOptions
from agentic_bench.trace.model import Session
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.request import NO_CONTEXT, RequestContext

RecordSink = Callable[[dict[str, Any]], None]


class ReplayClock(Protocol):
    """Waits of a lane run (load/lanes.py): ``sleep_until`` a deadline unless ``stop`` is set
    first (True: stopped), and the requests in flight, from which the clock tells when the
    whole run is idle (the idle-gap cap moves every pending deadline earlier then);
    ``shift_ns``: how far the caps (the run's, and a tree's own: the per-tree idle cap) have
    moved this clock's deadlines in all, so far."""

    @property
    def shift_ns(self) -> int: ...

    async def sleep_until(self, deadline_ns: int, stop: asyncio.Event | None) -> bool: ...

    def request_started(self) -> None: ...

    def request_done(self) -> None: ...


@dataclass
class LaneStart:
    """How a lane runs the session tree it holds (load/lanes.py): from ``start_s`` of its
    recorded timeline (0: its first request; earlier requests are history), as the warm-up
    (only each live conversation's last ``warmup_requests`` requests before ``start_s``) or
    measured; with its cache-bust ``marker``; ``stop``: the measured phase is over — with
    ``cut`` nothing more is sent, else the tree runs to its end. ``ahead``: only write the
    tree's first request, before it is due, and keep it in ``written`` (the replayer's own
    object: load/ only carries it to the lane's measured ticket); nothing is sent; with
    ``ahead_blocks`` at the writers' last place, with ``marker`` a placeholder (a tree drawn
    ahead: the lane that sends it is not known yet, load/next_trees.py). ``answered``: called
    once, by the executor, when the tree's first measured request has its reply (the lane
    then draws its next tree ahead)."""

    lane: int
    start_s: float = 0.0
    shift_s: float = 0.0
    warmup: bool = False
    warmup_requests: int = 1
    recycle_pass: int = 0
    marker: str | None = None
    stop: asyncio.Event | None = None
    cut: bool = False
    clock: ReplayClock | None = None
    ahead: bool = False
    ahead_blocks: bool = False
    written: object | None = None
    answered: Callable[[], None] | None = None


@dataclass
class SessionTicket:
    """One issued session: its global index, the session, when it was scheduled; ``lane``:
    how a lane runs it (None: from its start, as any session); ``request_context``: what
    every chat request of the session carries (its affinity headers and ``user``, set by
    :func:`agentic_bench.workload.session_executor`; the LoadGen adapter's chunk hook),
    passed explicitly to each ``transport.chat``."""

    index: int
    session: Session
    scheduled_ns: int
    worker: int = 0
    lane: LaneStart | None = None
    request_context: RequestContext = NO_CONTEXT

    @functools.cached_property
    def session_id(self) -> str:  # (read for every record of the session)
        return f"{self.session.session_id}#{self.index}"


@dataclass
class SessionOutcome:
    """How one session ended: its status and its counts of turns, requests and errors."""

    session_id: str
    status: str
    turns: int
    turns_ok: int
    requests: int
    errors: int


Execute = Callable[[SessionTicket], Awaitable[SessionOutcome]]


class SessionSource:
    """Sessions by global index, cycling through a trace of ``size`` sessions."""

    def __init__(self, size: int, get: Callable[[int], Session],
                 offsets: list[float | None] | None = None) -> None:
        self.size = size
        self._get = get
        self.offsets = offsets or []

    def __call__(self, index: int) -> Session:
        return self._get(index % self.size)


@dataclass
class ExecContext:
    """What an executor gets for a run: the run's transport, the record sink, the run's zero
    time, the replay options; ``transport_kind``: the run's ``--transport`` (pass it as
    ``make_chat_client(kind=...)`` for any client an executor opens itself; None: the
    environment variable, then ``raw``)."""

    transport: ChatTransport
    sink: RecordSink
    t0_ns: int
    options: ReplayOptions
    # what an executor opened beside the run's transport (e.g. a second endpoint's client),
    # closed by the harness when the run's sessions are over
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    transport_kind: str | None = None

    async def close_extras(self) -> None:
        while self.closers:
            await self.closers.pop()()


Scorer = Callable[[list[dict[str, Any]]], dict[str, Any] | None]


@dataclass
class Segment:
    """The outcome of one measured segment of a run (the scheduler's or LoadGen's)."""

    duration_s: float
    stop_reason: str
    issued: int
    cancelled: int
    workers: list[dict[str, Any]] | None = None


@dataclass
class Workload:
    """What a benchmark hands the harness: its sessions (``source``), an executor factory,
    an optional scorer, defaults (SLOs, scenario, body overrides), what identifies it for
    ``--resume`` and the recipe by which a worker process rebuilds it (docs/architecture.md)."""

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
    # called once the endpoint is open, before anything is sent: (endpoint URL, API key) →
    # facts for ``info`` (e.g. the tokenizer prompts are synthesized with); may refuse the run
    prepare: Callable[[str, str | None], dict[str, Any]] | None = None
    # the sessions are timed agent trees (Weka): --concurrency runs them in lanes (load/lanes.py)
    trees: bool = False
    # the model is to make tool calls (OpenAI ``tools``): the embedded endpoint then puts our
    # tool-call routing in front of llama-server (endpoint/resolve.py); inproc refuses it
    tool_routing: bool = False


__all__ = ["ExecContext", "Execute", "LaneStart", "RecordSink", "ReplayClock", "Scorer",
           "Segment", "SessionOutcome", "SessionSource", "SessionTicket", "Workload"]
