"""Replay one recorded session against an endpoint, writing a record for every step.

History policies:
- ``recorded``: every LLM step is sent with the recorded history; the reply is scored against
  the recorded output (tool-call match) but never fed back. Deterministic and comparable.
- ``live``: the model's replies are fed back. A tool call gets the recorded result when its
  name and arguments match a recorded tool step, otherwise an explicit "no recorded result"
  tool message (counted as ``unmatched_tool_calls``). A turn ends when the model answers
  without tool calls or after ``live_max_steps`` LLM calls.

This replayer knows nothing of agent trees: a session with spawn / join / wait steps, prompts
given as blocks or a lane's start is :class:`~agentic_bench.replay.tree_replayer.TreeReplayer`'s
(which builds on this one), and :class:`~agentic_bench.replay.trace_replayer.TraceReplayer`
hands each ticket to the one it needs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import RecordSink, ReplayClock, SessionOutcome, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.records.types import session_record, turn_record
from agentic_bench.replay.cursor import SessionTally, TurnCursor
from agentic_bench.replay.history import (
    assistant_message,
    branch_session,
    messages_before,
    recorded_assistant,
    request_body,
    with_salt,
)
from agentic_bench.replay.matching import calls_match, decode_arguments, recorded_tool_result
from agentic_bench.replay.step_records import (
    branch_record,
    fanout_record,
    simulated_step_record,
    step_ids,
)
from agentic_bench.replay.timed_call import timed_chat
from agentic_bench.trace.model import LlmStep, ParallelStep, ToolCall
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.result import ChatResult

NO_RECORDED_RESULT = "ERROR: no recorded result for this tool call"


async def sleep_until_ns(deadline_ns: int) -> int:
    """Sleep until ``deadline_ns`` (a ``perf_counter_ns`` reading); returns the deadline."""
    delay = (deadline_ns - perf_counter_ns()) / 1e9
    if delay > 0:
        await asyncio.sleep(delay)
    return deadline_ns


class SessionReplayer:
    """Replays one recorded session as timed requests (``run(ticket)``): history, think time,
    tool-call matching and a record per step, turn and session."""

    # exceptions that stop a conversation from outside (its turn is recorded ``stopped``)
    stops: tuple[type[Exception], ...] = ()

    def __init__(self, transport: ChatTransport, sink: RecordSink, options: ReplayOptions,
                 t0_ns: int) -> None:
        self.transport = transport
        self.sink = sink
        self.options = options
        self.t0_ns = t0_ns

    def salt(self, ticket: SessionTicket) -> str | None:
        return f"{self.options.salt}-{ticket.index}" if self.options.salt else None

    def think_ns(self, recorded_s: float) -> int:
        return int(self.options.think.wait_s(recorded_s) * 1e9)

    async def run(self, ticket: SessionTicket) -> SessionOutcome:
        session = ticket.session
        tally = SessionTally()
        salt = self.salt(ticket)
        conversation: list[dict[str, Any]] = []
        live = self.options.history == "live"
        if live and session.system:
            conversation.append({"role": "system", "content": session.system})
        status = "ok"
        failure: str | None = None  # an exception of the harness itself (never dropped)
        cursor_ns = ticket.scheduled_ns
        try:
            for ti, turn in enumerate(session.turns):
                if ti > 0:
                    cursor_ns = await sleep_until_ns(
                        perf_counter_ns() + self.think_ns(turn.think_time_s))
                cur = TurnCursor(ticket, ti, session, ti, "", salt, tally, cursor_ns, cursor_ns)
                if live:
                    conversation.append({"role": "user", "content": turn.user})
                    ok = await self.run_turn(cur, self._live_turn(cur, conversation))
                else:
                    ok = await self.run_turn(cur, self.walk(cur))
                cursor_ns = perf_counter_ns()
                if not ok:
                    status = "error"
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except Exception as exc:  # a bug, a lost input, memory: an error record, not silence
            status, failure = "error", f"{type(exc).__name__}: {exc}"
        finally:
            self.session_record(ticket, status, tally, failure, len(session.turns), {})
        return SessionOutcome(ticket.session_id, status, len(session.turns), tally.turns_ok,
                              tally.requests, tally.errors)

    def session_record(self, ticket: SessionTicket, status: str, tally: SessionTally,
                       failure: str | None, planned: int, extra: dict[str, Any]) -> None:
        """Write the session's record; a harness failure (``failure``) is an ``internal``
        error that counts as an error and a missing turn, so the run cannot read VALID."""
        session = ticket.session
        if failure is not None:
            tally.errors += 1
            planned = max(planned, tally.turns_ok + 1)
            extra.update(error_type="internal", error=failure[:500])
        self.sink(session_record(
            session_id=ticket.session_id, source_session=session.session_id,
            session_index=ticket.index, worker=ticket.worker, category=session.category,
            status=status, turns=planned, turns_ok=tally.turns_ok,
            requests=tally.requests, errors=tally.errors,
            scheduled_ns=ticket.scheduled_ns, start_ns=ticket.scheduled_ns,
            end_ns=perf_counter_ns(), t0_ns=self.t0_ns, **extra))

    async def run_turn(self, cur: TurnCursor, steps: Awaitable[None]) -> bool:
        """Run a turn's ``steps`` under the turn timeout and write its record; True when
        every request of it went well."""
        status = "ok"
        try:
            if self.options.turn_timeout_s:
                await asyncio.wait_for(steps, self.options.turn_timeout_s)
            else:
                await steps
        except TimeoutError:
            cur.ok = False
            status = "timeout"
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except self.stops:
            status = "stopped"
            raise
        finally:
            if status == "ok" and not cur.ok:
                status = "error"
            self.end_turn(cur, status)
        return cur.ok

    def end_turn(self, cur: TurnCursor, status: str, start_ns: int | None = None,
                 partial: bool = False) -> None:
        """The turn's record (from ``start_ns``, else its start); a whole turn, neither
        stopped nor cancelled, counts on the session."""
        ticket = cur.ticket
        self.sink(turn_record(
            session_id=ticket.session_id, session_index=ticket.index, worker=ticket.worker,
            turn=cur.turn, status=status,
            start_ns=cur.start_ns if start_ns is None else start_ns, end_ns=perf_counter_ns(),
            t0_ns=self.t0_ns, llm_calls=cur.llm, tool_calls_scored=cur.scored,
            tool_calls_matched=cur.matched, unmatched_tool_calls=cur.unmatched_tool_calls,
            **({"partial": True} if partial else {})))
        if not partial and status not in ("stopped", "cancelled"):
            cur.tally.turns += 1
            cur.tally.turns_ok += status == "ok"

    async def walk(self, cur: TurnCursor) -> None:
        """The steps of the cursor's turn, one after the other."""
        for si, step in enumerate(cur.view.turns[cur.view_turn].steps):
            if isinstance(step, LlmStep):
                msgs = with_salt(messages_before(cur.view, cur.view_turn, si), cur.salt)
                result, rec = await self.request(cur, si, step, msgs, step.output.tool_calls)
                self.commit(cur, result, rec)
            elif isinstance(step, ParallelStep):
                await self.fanout(cur, si, step)
            else:
                await self.stage(cur, si, step.kind, getattr(step, "duration_ms", 0.0))

    async def fanout(self, cur: TurnCursor, si: int, step: ParallelStep) -> None:
        """Every branch at once, each with its own history and schedule cursor; the turn
        goes on at the join. One ``branch`` record per branch, one ``fanout`` per group. A
        branch is walked as a plain session's steps (in a tree too)."""
        group = f"{cur.branch}/{si}" if cur.branch else str(si)
        start = perf_counter_ns()
        ticket = cur.ticket

        async def run_branch(bi: int) -> TurnCursor:
            member = step.branches[bi]
            path = f"{group}.{bi}"
            child = cur.branch_cursor(branch_session(cur.view, member), path)
            began, status = perf_counter_ns(), "ok"
            try:
                await SessionReplayer.walk(self, child)
            except asyncio.CancelledError:
                status = "cancelled"
                raise
            finally:
                end = perf_counter_ns()
                status = "error" if status == "ok" and not child.ok else status
                self.sink(branch_record(ticket, cur.turn, path, member.name, status, began,
                                        end, self.t0_ns, child.llm))
            return child

        children = await asyncio.gather(*(run_branch(bi) for bi in range(len(step.branches))))
        end = perf_counter_ns()
        for child in children:
            cur.add(child)
        ok = all(c.ok for c in children)
        cur.ok = cur.ok and ok
        cur.cursor_ns = end
        self.sink(fanout_record(ticket, cur.turn, group, len(step.branches), ok, start, end,
                                self.t0_ns))

    async def _live_turn(self, cur: TurnCursor, conversation: list[dict[str, Any]]) -> None:
        session, ti = cur.ticket.session, cur.turn
        recorded = [s for s in session.turns[ti].steps if isinstance(s, LlmStep)]
        template = recorded[0] if recorded else LlmStep()
        for si in range(self.options.live_max_steps):
            expected = recorded[si].output.tool_calls if si < len(recorded) else None
            result, rec = await self.request(cur, si, template,
                                             with_salt(conversation, cur.salt), expected)
            self.commit(cur, result, rec)
            if not result.ok:
                if si < len(recorded):  # keep the conversation going with the recorded reply
                    conversation.append(recorded_assistant(recorded[si], ti, si))
                return
            calls = [{**c, "id": c.get("id") or f"call_{ti}_{si}_{i}"}
                     for i, c in enumerate(result.tool_calls)]
            conversation.append(assistant_message(result.content, calls))
            if not calls:
                return
            for call in calls:
                args = decode_arguments(call.get("arguments", ""))
                found = recorded_tool_result(session, ti, call["name"], args)
                if found is None:
                    cur.unmatched_tool_calls += 1
                conversation.append({"role": "tool", "tool_call_id": call["id"],
                                     "content": found if found is not None else NO_RECORDED_RESULT})

    async def request(
        self, cur: TurnCursor, si: int, step: LlmStep, messages: list[dict[str, Any]],
        expected: list[ToolCall] | None, *, fields: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None, clock: ReplayClock | None = None,
        counted: bool = True, body: dict[str, Any] | None = None,
    ) -> tuple[ChatResult, dict[str, Any]]:
        """One LLM step's request, scheduled at the cursor, and its record (not yet written:
        :meth:`commit`). ``fields``: added to the record; ``params``: derived request
        parameters; ``clock``: told when the request starts and ends; ``counted`` False: a
        warm-up request, never a request or an error of the session; ``body``: the request
        body already written (then ``messages`` and ``params`` are not read)."""
        ticket = cur.ticket
        if body is None:
            body = request_body(ticket.session, step, messages, self.options.model,
                                self.options.overrides, params)
        if counted:
            cur.tally.requests += 1
            cur.llm += 1
        else:
            cur.tally.uncounted += 1
        if clock is not None:
            clock.request_started()
        try:
            result, rec = await timed_chat(
                self.transport, body, timeout_s=self.options.request_timeout_s,
                retries=self.options.retries, retry_rule=self.options.retry_rule,
                sink=self.sink, context=ticket.request_context,
                ids=step_ids(ticket, cur.turn, si, cur.branch), t0_ns=self.t0_ns,
                scheduled_ns=cur.cursor_ns)
        finally:
            if clock is not None:
                clock.request_done()
        if fields:
            rec.update(fields)
        if result.ok:
            rec["tool_calls"] = result.tool_calls
            rec["content_chars"] = len(result.content)
            if expected is not None:
                match = calls_match(result.tool_calls, expected)
                rec["tool_call_match"] = match
                cur.score(match)
        elif counted:
            cur.tally.errors += 1
            cur.ok = False
        return result, rec

    def commit(self, cur: TurnCursor, result: ChatResult, rec: dict[str, Any]) -> None:
        """Write a request's record; the conversation's next step is scheduled at its end."""
        self.sink(rec)
        cur.cursor_ns = result.t_end_ns

    async def stage(self, cur: TurnCursor, si: int, kind: str, recorded_ms: float) -> None:
        """A step the harness waits out (its recorded duration under the think policy)."""
        start = perf_counter_ns()
        await sleep_until_ns(start + self.think_ns(recorded_ms / 1000.0))
        end = perf_counter_ns()
        cur.cursor_ns = end
        self.sink(simulated_step_record(step_ids(cur.ticket, cur.turn, si, cur.branch), kind,
                                        recorded_ms, start, end, self.t0_ns))


__all__ = ["NO_RECORDED_RESULT", "SessionReplayer", "sleep_until_ns"]
