"""Executors for a workload: the plain trace replayer, and any workload's executor with the
run's per-session affinity headers. The contracts themselves (:class:`Workload`,
:class:`ExecContext`, …) live in :mod:`agentic_bench.contracts` and are re-exported here.

The replay of a trace is one workload; a task (agentic-edge, rag-e2e, a plugin) is another.
The composition root (:mod:`agentic_bench.bench`) runs any of them the same way.
"""

from __future__ import annotations

from agentic_bench.contracts import ExecContext, Execute, SessionSource, Workload
from agentic_bench.replay.session import SessionReplayer


def session_executor(workload: Workload, ctx: ExecContext) -> Execute:
    """The workload's executor for this run, with each session's affinity headers set while
    it runs (``--session-header``)."""
    from agentic_bench.transport.session_headers import with_session_headers

    return with_session_headers(workload.make_executor(ctx), ctx.options.session_headers,
                                ctx.options.session_user)


def replay_executor(ctx: ExecContext) -> Execute:
    return SessionReplayer(ctx.transport, ctx.sink, ctx.options, ctx.t0_ns).run


__all__ = ["ExecContext", "Execute", "SessionSource", "Workload", "replay_executor",
           "session_executor"]
