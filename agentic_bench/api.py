"""The public API for benchmark plugins: everything a task author needs, from one module.

A plugin is a distribution that registers objects in the ``agentic_bench.plugins`` entry-point
group (built-in benchmarks register the same way). A *task* supplies its sessions, its tools
(OpenAI schemas plus a simulated implementation), its scorer, its default scenario, SLOs and
accuracy target; :func:`simple_workload` turns ``(sessions, async per-session function,
scorer)`` into the :class:`Workload` the harness runs, so a plugin never touches the runner.
See ``docs/adding-a-task.md`` (``agentic-bench new-task NAME`` writes a working skeleton).

Importing this module is cheap: the harness types below are imported on first use
(``from agentic_bench.api import Workload`` works as usual).

Plugin kinds: an entry-point name ``KIND:NAME`` registers a plugin of that kind (``task`` when
there is no prefix): ``task``, ``scorer``, ``tool_mode``, ``importer``, ``reporter``. An object
may also declare ``kind = "..."``. The harness runs tasks; the other kinds are discoverable
with :func:`discover_plugins` / :func:`load_plugin` so tasks and tools can share them.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:

    from agentic_bench.contracts import (
        ExecContext,
        SessionOutcome,
        SessionSource,
        SessionTicket,
        Workload,
    )
    from agentic_bench.errors import ConfigError
    from agentic_bench.options.replay import ReplayOptions
    from agentic_bench.options.schema import OptionsModel, option
    from agentic_bench.plugin_kinds import (
        ImporterPlugin,
        ReporterPlugin,
        ScorerPlugin,
        TaskPlugin,
        ToolModePlugin,
    )
    from agentic_bench.tasks.base import Task
    from agentic_bench.tasks.lazy_method import lazy
    from agentic_bench.tasks.recorder import SessionRecorder
    from agentic_bench.trace.model import SCHEMA_VERSION, References, Session, ToolCall, Turn
    from agentic_bench.transport.choose import make_chat_client
    from agentic_bench.transport.request import RequestContext
    from agentic_bench.transport.result import ChatResult
    from agentic_bench.transport.url import redact_url

__all__ = [
    "GROUP",
    "PLUGIN_KINDS",
    "SCHEMA_VERSION",
    "ChatResult",
    "ConfigError",
    "ExecContext",
    "FakeTransport",
    "ImporterPlugin",
    "OptionsModel",
    "PluginRef",
    "References",
    "ReplayOptions",
    "ReporterPlugin",
    "RequestContext",
    "RunScorer",
    "ScorerPlugin",
    "Session",
    "SessionFn",
    "SessionOutcome",
    "SessionRecorder",
    "SessionScorer",
    "SessionSource",
    "SessionTicket",
    "Task",
    "TaskPlugin",
    "ToolCall",
    "ToolModePlugin",
    "Turn",
    "Workload",
    "discover_plugins",
    "lazy",
    "load_plugin",
    "make_chat_client",
    "make_session",
    "option",
    "parse_task_options",
    "redact_url",
    "run_offline",
    "sample_accuracy",
    "simple_workload",
    "split_name",
]

_LAZY = {
    "Task": "agentic_bench.tasks.base",
    "Workload": "agentic_bench.contracts",
    "ExecContext": "agentic_bench.contracts",
    "SessionRecorder": "agentic_bench.tasks.recorder",
    "SessionSource": "agentic_bench.contracts",
    "Session": "agentic_bench.trace.model",
    "Turn": "agentic_bench.trace.model",
    "References": "agentic_bench.trace.model",
    "ToolCall": "agentic_bench.trace.model",
    "SCHEMA_VERSION": "agentic_bench.trace.model",
    "ChatResult": "agentic_bench.transport.result",
    "RequestContext": "agentic_bench.transport.request",  # what one chat request carries
    "SessionTicket": "agentic_bench.contracts",
    "SessionOutcome": "agentic_bench.contracts",
    "ReplayOptions": "agentic_bench.options.replay",
    "ConfigError": "agentic_bench.errors",
    "make_chat_client": "agentic_bench.transport.choose",  # a plugin's own second endpoint
    "redact_url": "agentic_bench.transport.url",  # a URL safe to write into a summary
    "lazy": "agentic_bench.tasks.lazy_method",  # a task method imported on first call
    "OptionsModel": "agentic_bench.options.schema",  # a task's options, declared
    "option": "agentic_bench.options.schema",
    # one Protocol per plugin kind, checked when a plugin loads (docs/adding-a-task.md §6)
    **dict.fromkeys(("TaskPlugin", "ScorerPlugin", "ToolModePlugin", "ImporterPlugin",
                     "ReporterPlugin"), "agentic_bench.plugin_kinds"),
}


SessionFn = Callable[["SessionRecorder", "Session"], Awaitable[Any]]
"""``async def run(rec, session) -> outcome``: drive one session through ``rec``."""
SessionScorer = Callable[["Session", Any], Mapping[str, Any]]
"""``score(session, outcome) -> verdict``; ``verdict["correct"]`` (bool) is required."""
RunScorer = Callable[[list[dict[str, Any]]], "dict[str, Any] | None"]
"""``aggregate(records) -> accuracy block`` of summary.json (``headline`` is the gated value)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# --- plugin kinds (one implementation, in the registry) ------------------------------------

from agentic_bench.tasks.registry import (  # noqa: E402 - re-exported public API
    GROUP,
    PLUGIN_KINDS,
    PluginRef,
    discover_plugins,
    load_plugin,
    parse_task_options,  # the validated options of `agentic-bench run TASK ARGV`
    split_name,
)

# --- sessions and workloads -----------------------------------------------------------------


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
    from agentic_bench.contracts import SessionSource
    from agentic_bench.errors import ConfigError
    from agentic_bench.workload import Workload

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
    from agentic_bench.contracts import SessionOutcome
    from agentic_bench.tasks.recorder import SessionRecorder
    from agentic_bench.workload import ExecContext

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


# --- testing without a server ---------------------------------------------------------------

Reply = Callable[[dict[str, Any]], "str | Mapping[str, Any]"]


class FakeTransport:
    """A chat transport that answers from a Python function (for plugin unit tests).

    ``reply(body)`` returns the assistant text, or ``{"content": str, "tool_calls":
    [{"name": ..., "arguments": dict | str}]}``. Timestamps are real but trivially short.
    """

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext | None = None) -> ChatResult:
        """Answer ``body`` with ``reply(body)`` (``context`` is not used)."""
        from agentic_bench.transport.result import ChatResult

        self.requests.append(body)
        t0 = perf_counter_ns()
        out = self.reply(body)
        content, calls = (out, []) if isinstance(out, str) else (
            str(out.get("content") or ""), list(out.get("tool_calls") or []))
        tool_calls = [{"id": c.get("id") or f"call_{len(self.requests)}_{i}", "name": c["name"],
                       "arguments": c["arguments"] if isinstance(c.get("arguments"), str)
                       else json.dumps(c.get("arguments") or {})}
                      for i, c in enumerate(calls)]
        t1 = perf_counter_ns()
        return ChatResult(t_sent_ns=t0, t_first_byte_ns=t1, t_first_token_ns=t1, t_end_ns=t1,
                          token_times_ns=[t1], content=content, tool_calls=tool_calls,
                          finish_reason="tool_calls" if tool_calls else "stop",
                          output_tokens=1, model="fake", chunks=1)

    async def aclose(self) -> None:
        """Nothing to release."""
        return None


async def run_offline(workload: Workload, transport: Any, *, sessions: int | None = None,
                      model: str = "fake") -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Run sessions one after another on ``transport``; returns ``(records, accuracy)``."""
    from agentic_bench.contracts import SessionTicket
    from agentic_bench.options.replay import ReplayOptions
    from agentic_bench.workload import ExecContext

    records: list[dict[str, Any]] = []
    t0 = perf_counter_ns()
    ctx = ExecContext(transport, records.append, t0, ReplayOptions(model=model))
    execute = workload.make_executor(ctx)
    count = workload.source.size if sessions is None else sessions
    try:
        for i in range(count):
            await execute(SessionTicket(i, workload.source(i), perf_counter_ns()))
    finally:
        await ctx.close_extras()
    return records, workload.score(records) if workload.score else None
