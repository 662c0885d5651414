"""``--trials K``: every task of a workload run K times, trial t seeded ``seed + t``.

:func:`with_trials` wraps a workload so that its source holds ``n × K`` sessions: the session
at global index ``i`` is task ``i mod n`` in trial ``i div n`` (trial 0 of every task first,
then trial 1...); with ``--sessions N`` the tasks are the first N, and the run issues N × K
sessions (under ``--duration`` it cycles on: trial = index div n). Every record of a session
carries ``trial``, and every chat request of trial ``t`` is sent with ``seed = seed + t`` in its
body (the benchmark's other sampling settings as configured), so a trial differs from the next
only by its seed, and a rerun repeats them all.
The summary's ``tasks`` block then adds pass@k / pass^k (metrics/scored_tasks.py), over each
task's trials 0 … K − 1 only (what a ``--duration`` run cycles on to is counted apart).
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from agentic_bench.contracts import (
    ExecContext,
    SessionOutcome,
    SessionSource,
    SessionTicket,
    Workload,
)

_TRIAL: contextvars.ContextVar[int] = contextvars.ContextVar("agentic_bench_trial", default=0)


class TrialSeededTransport:
    """The run's transport, with each chat request's ``seed`` set to the base seed plus the
    trial of the session sending it (a copy of the body; the caller's is left as it is)."""

    def __init__(self, inner: Any, seed: int) -> None:
        self._inner = inner
        self._seed = seed

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None,
                   **kwargs: Any) -> Any:
        return await self._inner.chat({**body, "seed": self._seed + _TRIAL.get()}, timeout_s,
                                      **kwargs)

    def __getattr__(self, name: str) -> Any:  # everything else is the run's transport's
        return getattr(self._inner, name)


def trial_of(index: int, tasks: int) -> int:
    """The trial of the session at global ``index`` when a trial holds ``tasks`` sessions."""
    return index // tasks


def trial_tasks(workload: Workload, sessions: int | None) -> int:
    """How many tasks a run with ``--trials`` repeats: the workload's, or the first
    ``--sessions N`` of them."""
    size = workload.source.size
    return size if sessions is None else max(1, min(sessions, size))


def with_trials(workload: Workload, trials: int, seed: int,
                sessions: int | None = None) -> Workload:
    """``workload`` with each of its tasks — or its first ``sessions`` — run ``trials`` times
    (module doc); itself when ``trials`` is 1."""
    if trials <= 1:
        return workload
    tasks = trial_tasks(workload, sessions)
    inner_source, inner_make = workload.source, workload.make_executor

    def tagged(sink: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        def write(record: dict[str, Any]) -> None:
            sid = record.get("session_id")
            if isinstance(sid, str) and "#" in sid and "trial" not in record:
                index = sid.rsplit("#", 1)[1]
                if index.isdigit():
                    record["trial"] = trial_of(int(index), tasks)
            sink(record)

        return write

    def make_executor(ctx: ExecContext) -> Callable[[SessionTicket], Awaitable[SessionOutcome]]:
        seeded = dataclasses.replace(ctx, transport=TrialSeededTransport(ctx.transport, seed),
                                     sink=tagged(ctx.sink))
        execute = inner_make(seeded)

        async def run_trial(ticket: SessionTicket) -> SessionOutcome:
            token = _TRIAL.set(trial_of(ticket.index, tasks))
            try:
                return await execute(ticket)
            finally:
                _TRIAL.reset(token)

        return run_trial

    info = {**workload.info, "trials": trials, "trial_seed": seed}
    identity = None if workload.identity is None else {**workload.identity, "trials": trials}
    return dataclasses.replace(
        workload, source=SessionSource(tasks * trials, lambda i: inner_source(i % tasks)),
        make_executor=make_executor,
        info=info, identity=identity, recipe=None)


__all__ = ["TrialSeededTransport", "trial_of", "trial_tasks", "with_trials"]
