"""Step, turn and session records for tasks that drive the endpoint themselves.

Tasks such as agentic-edge (a closed tool loop) and rag-e2e (a multi-stage graph) do not
replay a trace step by step; they use this recorder so their records have exactly the
fields and timing rules of a trace replay (see docs/metrics.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import ExecContext, SessionTicket
from agentic_bench.records.types import session_record, turn_record
from agentic_bench.replay.timed_call import timed_chat
from agentic_bench.transport.result import ChatResult
from agentic_bench.units import NS_PER_MS


@dataclass
class SessionRecorder:
    """Records one session of a task that drives the endpoint itself: ``llm`` sends and
    records a chat call (with the session's request context), ``stage`` a non-LLM step, and
    ``start_turn`` / ``end_turn`` / ``end_session`` the turn and session records."""

    ctx: ExecContext
    ticket: SessionTicket
    requests: int = 0
    errors: int = 0
    turns_ok: int = 0
    cursor_ns: int = 0
    turn_start_ns: int = 0
    turn_ok: bool = True
    turn_llm: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cursor_ns = self.ticket.scheduled_ns

    def _ids(self, turn: int, step: int) -> dict[str, Any]:
        t = self.ticket
        return {"type": "step", "session_id": t.session_id, "source_session": t.session.session_id,
                "session_index": t.index, "worker": t.worker, "turn": turn, "step": step,
                "category": t.session.category}

    async def llm(self, body: dict[str, Any], turn: int, step: int,
                  **extra: Any) -> ChatResult:
        """Send one chat call, record it (scheduled at the end of the previous step)."""
        body = {"model": self.ctx.options.model, **body, **self.ctx.options.overrides}
        scheduled = self.cursor_ns
        self.requests += 1
        self.turn_llm += 1
        result, rec = await timed_chat(
            self.ctx.transport, body, timeout_s=self.ctx.options.request_timeout_s,
            retries=self.ctx.options.retries, retry_rule=self.ctx.options.retry_rule,
            sink=self.ctx.sink, context=self.ticket.request_context,
            ids={**self._ids(turn, step), **extra}, t0_ns=self.ctx.t0_ns, scheduled_ns=scheduled)
        if result.ok:
            rec["tool_calls"] = result.tool_calls
            rec["content_chars"] = len(result.content)
        else:
            self.errors += 1
            self.turn_ok = False
        self.ctx.sink(rec)
        self.cursor_ns = result.t_end_ns
        return result

    def stage(self, kind: str, turn: int, step: int, start_ns: int, end_ns: int,
              status: str = "ok", **extra: Any) -> None:
        """Record a non-LLM step that really ran (embed, retrieve, tool, ...)."""
        self.ctx.sink({**self._ids(turn, step), "kind": kind, "status": status,
                       "executed": "real", "t_sent_ns": start_ns - self.ctx.t0_ns,
                       "t_end_ns": end_ns - self.ctx.t0_ns,
                       "duration_ms": (end_ns - start_ns) / NS_PER_MS, **extra})
        if status != "ok":
            self.turn_ok = False
        self.cursor_ns = end_ns

    def start_turn(self) -> None:
        self.turn_start_ns = perf_counter_ns() if self.requests else self.ticket.scheduled_ns
        self.cursor_ns = max(self.cursor_ns, self.turn_start_ns)
        self.turn_ok = True
        self.turn_llm = 0

    def end_turn(self, turn: int, status: str | None = None, **extra: Any) -> None:
        end = perf_counter_ns()
        status = status or ("ok" if self.turn_ok else "error")
        self.turns_ok += status == "ok"
        t = self.ticket
        self.ctx.sink(turn_record(
            session_id=t.session_id, session_index=t.index, worker=t.worker, turn=turn,
            status=status, start_ns=self.turn_start_ns, end_ns=end, t0_ns=self.ctx.t0_ns,
            llm_calls=self.turn_llm, **extra))

    def end_session(self, turns: int, status: str | None = None, **extra: Any) -> str:
        end = perf_counter_ns()
        t = self.ticket
        status = status or ("ok" if self.turns_ok == turns and not self.errors else "error")
        self.ctx.sink(session_record(
            session_id=t.session_id, source_session=t.session.session_id, session_index=t.index,
            worker=t.worker, category=t.session.category, status=status, turns=turns,
            turns_ok=self.turns_ok, requests=self.requests, errors=self.errors,
            scheduled_ns=t.scheduled_ns, start_ns=t.scheduled_ns, end_ns=end,
            t0_ns=self.ctx.t0_ns, **{**self.extra, **extra}))
        return status
