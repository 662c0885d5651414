"""Executors for a workload: the plain trace replayer, and any workload's executor with the
run's per-session affinity headers. The contracts themselves (:class:`Workload`,
:class:`ExecContext`, …) live in :mod:`agentic_bench.contracts`.

The replay of a trace is one workload; a task (agentic-edge, rag-e2e, a plugin) is another.
The composition root (:mod:`agentic_bench.run`) runs any of them the same way.
"""

from __future__ import annotations

from dataclasses import replace

from agentic_bench.contracts import (
    ExecContext,
    Execute,
    SessionOutcome,
    SessionTicket,
    Workload,
)
from agentic_bench.replay.trace_replayer import TraceReplayer


def session_executor(workload: Workload, ctx: ExecContext) -> Execute:
    """The workload's executor for this run; with ``--session-header`` / ``--session-user``,
    each session's ticket carries its rendered affinity headers and ``user``
    (``ticket.request_context``, the chunk hook it already had kept), which every chat request
    of the session passes to the transport (itself when neither is asked). With
    ``--traceparent`` (a trace key in the options) the context also carries the session's W3C
    ``traceparent`` (:mod:`agentic_bench.transport.traceparent`)."""
    execute = workload.make_executor(ctx)
    names, user_field = ctx.options.session_headers, ctx.options.session_user
    key = ctx.options.trace_key
    if not names and not user_field and key is None:
        return execute
    from agentic_bench.transport.session_headers import render
    from agentic_bench.transport.traceparent import with_traceparent

    async def run(ticket: SessionTicket) -> SessionOutcome:
        context = ticket.request_context
        if key is not None:
            context = with_traceparent(context, key, ticket.session_id)
        if names or user_field:
            context = render(names, ticket.session_id, user_field, base=context)
        return await execute(replace(ticket, request_context=context))

    return run


def replay_executor(ctx: ExecContext) -> Execute:
    return TraceReplayer(ctx.transport, ctx.sink, ctx.options, ctx.t0_ns).run


__all__ = ["replay_executor", "session_executor"]
