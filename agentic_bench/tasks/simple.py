"""A workload from plain parts — sessions, an async per-session function, a scorer — for
benchmark plugins (re-exported by :mod:`agentic_bench.api`): :func:`simple_workload` drives each
session through a :class:`~agentic_bench.tasks.recorder.SessionRecorder` and records its verdict
as a ``sample``; :func:`sample_accuracy` is the default accuracy block over those samples."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentic_bench.contracts import ExecContext, SessionOutcome, SessionTicket, Workload
    from agentic_bench.tasks.recorder import SessionRecorder
    from agentic_bench.trace.model import Session

SessionFn = Callable[["SessionRecorder", "Session"], Awaitable[Any]]
"""``async def run(rec, session) -> outcome``: drive one session through ``rec``."""
SessionScorer = Callable[["Session", Any], Mapping[str, Any]]
"""``score(session, outcome) -> verdict``; ``verdict["correct"]`` (bool) is required."""
RunScorer = Callable[[list[dict[str, Any]]], "dict[str, Any] | None"]
"""``aggregate(records) -> accuracy block`` of summary.json (``headline`` is the gated value)."""


def make_session(session_id: str, turns: Sequence[str], *, category: str | None = None,
                 system: str | None = None, tools: Sequence[Mapping[str, Any]] = (),
                 metadata: Mapping[str, Any] | None = None,
                 answer: str | None = None) -> Session:
    """A :class:`Session` with one turn per user message (the trace model of the harness)."""
    from agentic_bench.trace.model import SCHEMA_VERSION, References, Session, Turn

    return Session(schema_version=SCHEMA_VERSION, session_id=session_id, category=category,
                   system=system, tools=[dict(t) for t in tools],
                   turns=[Turn(user=text) for text in turns] or [Turn(user="")],
                   references=References(answer=answer), metadata=dict(metadata or {}))


def sample_accuracy(records: list[dict[str, Any]], *, target: float | None = None,
                    metric: str = "accuracy (mean of per-session verdicts)"
                    ) -> dict[str, Any] | None:
    """The default accuracy block: mean of ``correct`` over ``sample`` records, per category.

    ``headline`` is what ``--slo accuracy=X`` (or the task's target) is checked against;
    ``mean_score`` averages an optional per-sample ``score`` in [0, 1].
    """
    samples = [r for r in records if r.get("type") == "sample"]
    if not samples:
        return None
    by: dict[str, list[bool]] = {}
    for r in samples:
        by.setdefault(str(r.get("category") or "all"), []).append(bool(r.get("correct")))
    correct = sum(bool(r.get("correct")) for r in samples)
    scores = [float(r["score"]) for r in samples if isinstance(r.get("score"), int | float)]
    return {
        "metric": metric, "headline": correct / len(samples), "correct": correct,
        "total": len(samples), "target": target,
        "unanswered": sum(1 for r in samples if r.get("answered") is False),
        **({"mean_score": sum(scores) / len(scores)} if scores else {}),
        "by_category": {k: {"accuracy": sum(v) / len(v), "correct": sum(v), "total": len(v)}
                        for k, v in sorted(by.items())},
    }


def simple_workload(name: str, sessions: Sequence[Session], run_session: SessionFn,
                    scorer: SessionScorer | None = None, *, aggregate: RunScorer | None = None,
                    accuracy_target: float | None = None,
                    default_slos: Mapping[str, float] | None = None,
                    default_scenario: str | None = None,
                    info: Mapping[str, Any] | None = None,
                    tool_calls: bool = False) -> Workload:
    """A :class:`Workload` from sessions, an async per-session function and a scorer.

    For each issued session the harness calls ``await run_session(rec, session)``; the
    function drives the endpoint through ``rec`` (``rec.start_turn()``, ``await rec.llm(body,
    turn, step)``, ``rec.stage("tool", ...)``, ``rec.end_turn(turn)``) and returns an
    outcome. ``scorer(session, outcome)`` gives the verdict (``correct`` required), written as
    a ``sample`` record; ``aggregate(records)`` (default :func:`sample_accuracy`) makes the
    summary's accuracy block. An exception in either is recorded as an ``internal`` error of
    that session (the run goes on). Scoring runs in a worker thread after the session's
    clock has stopped. ``accuracy_target`` becomes the ``accuracy`` SLO. ``tool_calls``: the
    model is to make tool calls itself (OpenAI ``tools``), so the embedded endpoint serves it
    through our tool-call routing (docs/embedded-endpoint.md).
    """
    from agentic_bench.contracts import SessionSource, Workload
    from agentic_bench.errors import ConfigError

    items = list(sessions)
    if not items:
        raise ConfigError(f"{name}: no sessions to run")
    slos = dict(default_slos or {})
    if accuracy_target is not None:
        slos["accuracy"] = accuracy_target

    def score(records: list[dict[str, Any]]) -> dict[str, Any] | None:
        if aggregate is not None:
            return aggregate(records)
        return sample_accuracy(records, target=accuracy_target)

    def make_executor(ctx: ExecContext) -> Callable[[SessionTicket], Awaitable[SessionOutcome]]:
        async def execute(ticket: SessionTicket) -> SessionOutcome:
            return await _run_one(ctx, ticket, run_session, scorer)

        return execute

    return Workload(name=name, source=SessionSource(len(items), items.__getitem__),
                    make_executor=make_executor, score=score, default_slos=slos,
                    default_scenario=default_scenario, info=dict(info or {}),
                    tool_routing=tool_calls)


async def _run_one(ctx: ExecContext, ticket: SessionTicket, run_session: SessionFn,
                   scorer: SessionScorer | None) -> SessionOutcome:
    from agentic_bench.contracts import ExecContext, SessionOutcome
    from agentic_bench.tasks.recorder import SessionRecorder

    seen: dict[str, Any] = {"turns": 0, "session": False, "last_start": 0}

    def sink(record: dict[str, Any]) -> None:
        if record.get("type") == "turn":
            seen["turns"] += 1
            seen["last_start"] = rec.turn_start_ns
        elif record.get("type") == "session":
            seen["session"] = record.get("status") or "ok"
        ctx.sink(record)

    session = ticket.session
    rec = SessionRecorder(ExecContext(ctx.transport, sink, ctx.t0_ns, ctx.options,
                                      transport_kind=ctx.transport_kind), ticket)
    error: str | None = None
    outcome: Any = None
    try:
        outcome = await run_session(rec, session)
    except Exception as exc:
        error = _describe(exc)
    if error is not None:
        rec.errors += 1
        if rec.turn_start_ns not in (0, seen["last_start"]):
            rec.end_turn(seen["turns"], status="error", error_type="internal", error=error)
    turns = seen["turns"] or len(session.turns)
    status = "error" if error is not None else None
    if seen["session"]:  # run_session ended the session itself
        status = seen["session"]
    else:
        status = rec.end_session(turns, status=status)
    verdict: dict[str, Any] = {}
    if error is None:  # scored after the session's clock stopped, off the event loop
        try:
            if scorer is not None:
                verdict = dict(await asyncio.to_thread(scorer, session, outcome))
            elif isinstance(outcome, Mapping):
                verdict = dict(outcome)
        except Exception as exc:
            error = _describe(exc)
    if verdict or error is not None:
        sink({"type": "sample", "session_id": ticket.session_id,
              "source_session": session.session_id, "category": session.category,
              "correct": bool(verdict.get("correct")) if error is None else False,
              "answered": error is None and rec.errors == 0,
              **({"error": error} if error else {}),
              **{k: v for k, v in verdict.items() if k != "correct"}})
    return SessionOutcome(ticket.session_id, status or "ok", turns, rec.turns_ok, rec.requests,
                          rec.errors)


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}"[:2000]


__all__ = ["RunScorer", "SessionFn", "SessionScorer", "make_session", "sample_accuracy",
           "simple_workload"]
