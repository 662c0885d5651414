"""Replay one recorded session against an endpoint, writing a record for every step.

History policies:
- ``recorded``: every LLM step is sent with the recorded history; the reply is scored against
  the recorded output (tool-call match) but never fed back. Deterministic and comparable.
- ``live``: the model's replies are fed back. A tool call gets the recorded result when its
  name and arguments match a recorded tool step, otherwise an explicit "no recorded result"
  tool message (counted as ``unmatched_tool_calls``). A turn ends when the model answers
  without tool calls or after ``live_max_steps`` LLM calls.
"""

from __future__ import annotations

import asyncio
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import RecordSink, SessionOutcome, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.records.types import session_record, turn_record
from agentic_bench.replay.history import (
    assistant_message,
    branch_session,
    messages_before,
    recorded_assistant,
    request_body,
    with_salt,
)
from agentic_bench.replay.matching import calls_match, decode_arguments, recorded_tool_result
from agentic_bench.replay.timed_call import timed_chat
from agentic_bench.replay.tree import (
    ConversationEnded,
    Synthesis,
    TreeRun,
    TreeStopped,
    is_context_overflow,
)
from agentic_bench.replay.tree_steps import (
    WarmupDone,
    cancel_branches,
    drain,
    is_tree,
    join,
    run_wait,
    spawn,
)
from agentic_bench.replay.tree_steps import (
    sleep_until as tree_sleep_until,
)
from agentic_bench.trace.conversations import ROOT
from agentic_bench.trace.model import (
    JoinStep,
    LlmStep,
    ParallelStep,
    Session,
    SpawnStep,
    ToolCall,
    WaitStep,
)
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.result import ChatResult
from agentic_bench.units import NS_PER_MS

NO_RECORDED_RESULT = "ERROR: no recorded result for this tool call"


class SessionReplayer:
    """Replays one recorded session as timed requests (``run(ticket)``): history, think time,
    tool-call matching and a record per step, turn and session."""
    def __init__(
        self, transport: ChatTransport, sink: RecordSink, options: ReplayOptions, t0_ns: int,
        synthesis: Synthesis | None = None,
    ) -> None:
        self.transport = transport
        self.sink = sink
        self.options = options
        self.t0_ns = t0_ns
        self.synthesis = synthesis  # prompts given as blocks: the run's vocabulary

    def _ids(self, ticket: SessionTicket, turn: int, step: int,
             branch: str = "") -> dict[str, Any]:
        ids = {"type": "step", "session_id": ticket.session_id,
               "source_session": ticket.session.session_id, "session_index": ticket.index,
               "worker": ticket.worker, "turn": turn, "step": step}
        return {**ids, "branch": branch} if branch else ids

    async def run(self, ticket: SessionTicket) -> SessionOutcome:
        session = ticket.session
        salt = f"{self.options.salt}-{ticket.index}" if self.options.salt else None
        state = {"requests": 0, "errors": 0, "turns_ok": 0, "turns": 0}
        conversation: list[dict[str, Any]] = []
        if self.options.history == "live" and session.system:
            conversation.append({"role": "system", "content": session.system})
        status = "ok"
        failure: str | None = None  # an exception of the harness itself (never dropped)
        cursor_ns = ticket.scheduled_ns
        start_ns = ticket.scheduled_ns
        tree: TreeRun | None = None
        try:
            tree = (TreeRun.start(session, ticket.lane, self.synthesis, ticket.scheduled_ns)
                    if ticket.lane is not None or is_tree(session) else None)
            if tree is not None and tree.warmup:
                return await self._warm(ticket, tree, salt, state)
            for ti, turn in enumerate(session.turns):
                if ti > 0 and (tree is None or tree.plan is None or ROOT in tree.live):
                    think_ns = int(self.options.think.wait_s(turn.think_time_s) * 1e9)
                    cursor_ns = await tree_sleep_until(self, tree, perf_counter_ns() + think_ns)
                ok, cursor_ns = await self._run_turn(
                    ticket, ti, cursor_ns, conversation, salt, state, tree)
                if not ok:
                    status = "error"
        except TreeStopped:
            status = "stopped" if status == "ok" else status
        except ConversationEnded:
            status = "error"
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except Exception as exc:  # a bug, a lost input, memory: an error record, not silence
            if tree is not None and tree.warmup:
                raise  # the lanes' warm-up fails the run (load/lanes.py)
            status, failure = "error", f"{type(exc).__name__}: {exc}"
        finally:
            if tree is not None and tree.warmup:
                pass  # _warm returned (or raised): a warm-up writes no session record
            else:
                if tree is not None and status == "cancelled":
                    await cancel_branches(tree)  # recorded as cancelled before the session
                elif tree is not None:
                    await drain(tree)
                    if tree.failures and failure is None:  # a subagent's own exception
                        status, failure = "error", tree.failures[0]
                self._session_record(ticket, tree, status, state, start_ns, failure)
        return SessionOutcome(ticket.session_id, status, len(session.turns), state["turns_ok"],
                              state["requests"], state["errors"])

    def _session_record(self, ticket: SessionTicket, tree: TreeRun | None, status: str,
                        state: dict[str, int], start_ns: int, failure: str | None) -> None:
        """Write the session's record; a harness failure (``failure``) is an ``internal``
        error that counts as an error and a missing turn, so the run cannot read VALID."""
        session = ticket.session
        extra = self._tree_fields(tree) if tree is not None else {}
        planned = state["turns"] if tree is not None else len(session.turns)
        if failure is not None:
            state["errors"] += 1
            planned = max(planned, state["turns_ok"] + 1)
            extra.update(error_type="internal", error=failure[:500])
        self.sink(session_record(
            session_id=ticket.session_id, source_session=session.session_id,
            session_index=ticket.index, worker=ticket.worker, category=session.category,
            status=status, turns=planned, turns_ok=state["turns_ok"],
            requests=state["requests"], errors=state["errors"],
            scheduled_ns=ticket.scheduled_ns, start_ns=start_ns, end_ns=perf_counter_ns(),
            t0_ns=self.t0_ns, **extra))

    def _tree_fields(self, tree: TreeRun) -> dict[str, Any]:
        lane = tree.lane
        out: dict[str, Any] = {"branches": len(tree.spawned)}
        if lane is not None:
            out.update(lane=lane.lane, recycle_pass=lane.recycle_pass,
                       trajectory_start_s=lane.start_s)
            if lane.start_s > 0:
                out["partial"] = True  # began mid-trajectory: not a whole tree
        return out

    async def _warm(self, ticket: SessionTicket, tree: TreeRun, salt: str | None,
                    state: dict[str, int]) -> SessionOutcome:
        """The warm-up of a lane's tree: only each live conversation's last requests before
        t*, back to back (recorded ``warmup``, never counted)."""
        tstate: dict[str, Any] = {"ok": True, "llm": 0, "matched": 0, "scored": 0,
                                  "unmatched_tool_calls": 0, "cursor": ticket.scheduled_ns,
                                  "history": 0, "live": 0}
        try:
            for ti in range(len(ticket.session.turns)):
                await self._walk(ticket, ti, ticket.session, ti, salt, state, tstate, "", tree)
        except (WarmupDone, ConversationEnded):
            pass
        finally:
            await drain(tree)
        if tree.failures:  # a subagent's exception in the warm-up fails the run (load/lanes.py)
            raise RuntimeError(f"warm-up of {ticket.session_id}: {tree.failures[0]}")
        return SessionOutcome(ticket.session_id, "ok", 0, 0, state.get("warmup", 0), 0)

    async def _run_turn(
        self, ticket: SessionTicket, ti: int, start_ns: int, conversation: list[dict[str, Any]],
        salt: str | None, state: dict[str, int], tree: TreeRun | None = None,
    ) -> tuple[bool, int]:
        tstate: dict[str, Any] = {"ok": True, "llm": 0, "matched": 0, "scored": 0,
                                  "unmatched_tool_calls": 0, "cursor": start_ns,
                                  "history": 0, "live": 0}
        turn_status = "ok"
        try:
            coro = self._turn_steps(ticket, ti, conversation, salt, state, tstate, tree)
            if self.options.turn_timeout_s:
                await asyncio.wait_for(coro, self.options.turn_timeout_s)
            else:
                await coro
        except TimeoutError:
            tstate["ok"] = False
            turn_status = "timeout"
        except TreeStopped:
            turn_status = "stopped"
            raise
        except ConversationEnded:
            tstate["ok"] = False
            raise
        except asyncio.CancelledError:
            turn_status = "cancelled"
            raise
        finally:
            if turn_status == "ok" and not tstate["ok"]:
                turn_status = "error"
            partial = bool(tstate["history"])
            if tree is not None and partial and not tstate["live"]:
                pass  # all of it before the lane's start: history, no turn to measure
            else:
                if tree is not None:
                    start_ns = tstate.get("live_start", start_ns)
                extra: dict[str, Any] = {"partial": True} if partial else {}
                self.sink(turn_record(
                    session_id=ticket.session_id, session_index=ticket.index,
                    worker=ticket.worker, turn=ti, status=turn_status, start_ns=start_ns,
                    end_ns=perf_counter_ns(), t0_ns=self.t0_ns, llm_calls=tstate["llm"],
                    tool_calls_scored=tstate["scored"], tool_calls_matched=tstate["matched"],
                    unmatched_tool_calls=tstate["unmatched_tool_calls"], **extra))
                if not partial and turn_status not in ("stopped", "cancelled"):
                    state["turns"] += 1
                    state["turns_ok"] += turn_status == "ok"
        return bool(tstate["ok"]), perf_counter_ns()

    async def _turn_steps(
        self, ticket: SessionTicket, ti: int, conversation: list[dict[str, Any]],
        salt: str | None, state: dict[str, int], tstate: dict[str, Any],
        tree: TreeRun | None = None,
    ) -> None:
        turn = ticket.session.turns[ti]
        if self.options.history == "live" and tree is None:
            conversation.append({"role": "user", "content": turn.user})
            await self._live_turn(ticket, ti, conversation, salt, state, tstate)
            return
        await self._walk(ticket, ti, ticket.session, ti, salt, state, tstate, "", tree)

    async def _walk(
        self, ticket: SessionTicket, ti: int, view: Session, vti: int, salt: str | None,
        state: dict[str, int], tstate: dict[str, Any], branch: str,
        tree: TreeRun | None = None,
    ) -> None:
        """The steps of turn ``vti`` of ``view`` (the session, or a fan-out or spawned branch
        as a session of its own), recorded as turn ``ti`` of the ticket's session."""
        for si, step in enumerate(view.turns[vti].steps):
            if isinstance(step, LlmStep):
                if tree is not None:
                    await self._tree_llm(ticket, ti, si, step, view, vti, salt, state, tstate,
                                         branch, tree)
                    continue
                msgs = with_salt(messages_before(view, vti, si), salt)
                await self._llm(ticket, ti, si, step, msgs, state, tstate,
                                step.output.tool_calls, branch)
            elif isinstance(step, ParallelStep):
                await self._fanout(ticket, ti, si, step, view, salt, state, tstate, branch)
            elif tree is not None and isinstance(step, WaitStep):
                await run_wait(self, ticket, ti, si, step, tstate, branch, tree)
            elif tree is not None and isinstance(step, SpawnStep):
                spawn(self, ticket, ti, step, view, salt, state, tree, branch or ROOT)
            elif tree is not None and isinstance(step, JoinStep):
                await join(self, ticket, ti, si, step, tstate, branch, tree)
            else:
                duration = getattr(step, "duration_ms", 0.0)
                await self._stage(ticket, ti, si, step.kind, duration, tstate, branch)

    async def _tree_llm(
        self, ticket: SessionTicket, ti: int, si: int, step: LlmStep, view: Session, vti: int,
        salt: str | None, state: dict[str, int], tstate: dict[str, Any], branch: str,
        tree: TreeRun,
    ) -> None:
        """An llm step of a tree: history before the lane's start (sent only as the warm-up),
        the first measured request at its recorded offset, prompts given as blocks written
        out, replies held to their recorded length."""
        key = branch or ROOT
        index = tree.next_index(key)
        fields: dict[str, Any] = {}
        params: dict[str, Any] = {}
        if step.prompt is not None:
            layout = view.token_blocks or ticket.session.token_blocks
            assert layout is not None
            live = tree.last_reply.pop(key, None) if self.options.history == "live" else None
            msgs, fields = tree.prompt_body(key, index, step, layout, live)
            params = tree.output_params(step)
        else:
            msgs = with_salt(messages_before(view, vti, si), salt)
        if tree.is_history(step):
            tstate["history"] += 1
            if tree.warmup and tree.is_warmup_request(key, index):
                await self._llm(ticket, ti, si, step, msgs, state, tstate, None, branch,
                                fields={**fields, "warmup": True}, params=params, tree=tree)
            return
        if tree.warmup:
            raise WarmupDone
        deadline = tree.first_live_deadline(key, step)
        if deadline is not None:
            tstate["cursor"] = await tree_sleep_until(self, tree, deadline)
        elif tree.stopping():
            raise TreeStopped
        if not tstate["live"]:
            tstate["live_start"] = tstate["cursor"]
        tstate["live"] += 1
        result = await self._llm(ticket, ti, si, step, msgs, state, tstate,
                                 None if step.prompt is not None else step.output.tool_calls,
                                 branch, fields=fields, params=params, tree=tree)
        if result.ok and self.options.history == "live":
            tree.last_reply[key] = result.content  # the next request sends it as the reply

    async def _fanout(
        self, ticket: SessionTicket, ti: int, si: int, step: ParallelStep, view: Session,
        salt: str | None, state: dict[str, int], tstate: dict[str, Any], branch: str,
    ) -> None:
        """Every branch at once, each with its own history and schedule cursor; the turn
        goes on at the join. One ``branch`` record per branch, one ``fanout`` per group."""
        group = f"{branch}/{si}" if branch else str(si)
        start = perf_counter_ns()

        async def run_branch(bi: int) -> dict[str, Any]:
            member = step.branches[bi]
            path = f"{group}.{bi}"
            child: dict[str, Any] = {"ok": True, "llm": 0, "matched": 0, "scored": 0,
                                     "unmatched_tool_calls": 0, "cursor": tstate["cursor"]}
            began, status = perf_counter_ns(), "ok"
            try:
                await self._walk(ticket, ti, branch_session(view, member), 0, salt, state,
                                 child, path)
            except asyncio.CancelledError:
                status = "cancelled"
                raise
            finally:
                end = perf_counter_ns()
                status = "error" if status == "ok" and not child["ok"] else status
                self.sink({"type": "branch", "session_id": ticket.session_id,
                           "session_index": ticket.index, "worker": ticket.worker,
                           "turn": ti, "branch": path, "name": member.name, "status": status,
                           "t_start_ns": began - self.t0_ns, "t_end_ns": end - self.t0_ns,
                           "latency_ms": (end - began) / NS_PER_MS, "llm_calls": child["llm"]})
            return child

        children = await asyncio.gather(*(run_branch(bi) for bi in range(len(step.branches))))
        end = perf_counter_ns()
        for key in ("llm", "matched", "scored", "unmatched_tool_calls"):
            tstate[key] += sum(c[key] for c in children)
        ok = all(c["ok"] for c in children)
        tstate["ok"] = tstate["ok"] and ok
        tstate["cursor"] = end
        self.sink({"type": "fanout", "session_id": ticket.session_id,
                   "session_index": ticket.index, "worker": ticket.worker, "turn": ti,
                   "group": group, "branches": len(step.branches),
                   "status": "ok" if ok else "error", "t_start_ns": start - self.t0_ns,
                   "t_end_ns": end - self.t0_ns, "latency_ms": (end - start) / NS_PER_MS})

    async def _live_turn(
        self, ticket: SessionTicket, ti: int, conversation: list[dict[str, Any]],
        salt: str | None, state: dict[str, int], tstate: dict[str, Any],
    ) -> None:
        session = ticket.session
        recorded = [s for s in session.turns[ti].steps if isinstance(s, LlmStep)]
        template = recorded[0] if recorded else LlmStep()
        for si in range(self.options.live_max_steps):
            expected = recorded[si].output.tool_calls if si < len(recorded) else None
            result = await self._llm(ticket, ti, si, template, with_salt(conversation, salt),
                                     state, tstate, expected)
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
                    tstate["unmatched_tool_calls"] += 1
                conversation.append({"role": "tool", "tool_call_id": call["id"],
                                     "content": found if found is not None else NO_RECORDED_RESULT})

    def _score(self, tstate: dict[str, Any], match: bool | None) -> None:
        if match is not None:
            tstate["scored"] += 1
            tstate["matched"] += int(match)

    async def _llm(
        self, ticket: SessionTicket, ti: int, si: int, step: LlmStep,
        messages: list[dict[str, Any]], state: dict[str, int], tstate: dict[str, Any],
        expected: list[ToolCall] | None, branch: str = "", *,
        fields: dict[str, Any] | None = None, params: dict[str, Any] | None = None,
        tree: TreeRun | None = None,
    ) -> ChatResult:
        body = request_body(ticket.session, step, messages, self.options.model,
                            self.options.overrides, params)
        scheduled = tstate["cursor"]
        warmup = bool(fields and fields.get("warmup"))
        if warmup:
            state["warmup"] = state.get("warmup", 0) + 1
        else:
            state["requests"] += 1
            tstate["llm"] += 1
        clock = tree.lane.clock if tree is not None and tree.lane is not None else None
        if clock is not None:
            clock.request_started()
        try:
            result, rec = await timed_chat(
                self.transport, body, timeout_s=self.options.request_timeout_s,
                retries=self.options.retries, retry_rule=self.options.retry_rule,
                sink=self.sink, context=ticket.request_context,
                ids=self._ids(ticket, ti, si, branch), t0_ns=self.t0_ns, scheduled_ns=scheduled)
        finally:
            if clock is not None:
                clock.request_done()
        if fields:
            rec.update(fields)
        overflow = False
        if result.ok:
            rec["tool_calls"] = result.tool_calls
            rec["content_chars"] = len(result.content)
            if expected is not None:
                match = calls_match(result.tool_calls, expected)
                rec["tool_call_match"] = match
                self._score(tstate, match)
        else:
            if not warmup:
                state["errors"] += 1
                tstate["ok"] = False
            overflow = tree is not None and is_context_overflow(result)
            if overflow:
                rec["context_overflow"] = True
        self.sink(rec)
        tstate["cursor"] = result.t_end_ns
        if overflow:
            raise ConversationEnded
        return result

    async def _stage(
        self, ticket: SessionTicket, ti: int, si: int, kind: str, recorded_ms: float,
        tstate: dict[str, Any], branch: str = "",
    ) -> None:
        start = perf_counter_ns()
        deadline = start + int(self.options.think.wait_s(recorded_ms / 1000.0) * 1e9)
        await tree_sleep_until(self, None, deadline)
        end = perf_counter_ns()
        tstate["cursor"] = end
        self.sink({**self._ids(ticket, ti, si, branch), "kind": kind, "status": "ok",
                   "executed": "simulated", "recorded_ms": recorded_ms,
                   "t_sent_ns": start - self.t0_ns, "t_end_ns": end - self.t0_ns,
                   "duration_ms": (end - start) / NS_PER_MS})
