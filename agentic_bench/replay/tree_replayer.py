"""The replay of agent trees: sessions with ``wait`` (recorded client time), ``spawn`` (a
branch that runs on while its parent goes on) and ``join`` (wait for named branches) steps,
prompts given as blocks, and sessions a lane runs — with its mid-trajectory start (history,
the warm-up, the first measured requests' offsets), the measured phase's stop, the lane's clock
(the idle-gap cap) and context overflows that end a conversation.

:class:`TreeReplayer` builds on the plain
:class:`~agentic_bench.replay.session.SessionReplayer` (requests, scoring, fan-outs, stages,
turn records); what a tree keeps while it runs is a :class:`~agentic_bench.replay.tree.TreeRun`
(no I/O), and each conversation's walk of a turn a :class:`TreeCursor`.

A spawned branch is its own conversation: its requests carry its id (``branch``) and, with
``--session-header``, its own session id ``<session>/<branch>`` (with the parent's in
``--parent-session-header`` headers). A ``branch`` record per branch, a ``join`` record per
join (``wait_ms``: how long the parent waited for its branches there).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import RecordSink, SessionOutcome, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.replay.cursor import SessionTally, TurnCursor
from agentic_bench.replay.history import branch_session, messages_before, with_salt
from agentic_bench.replay.prompt_ahead import (
    BuiltPrompt,
    WrittenFirst,
    build_prompt,
    write_first,
)
from agentic_bench.replay.prompt_desk import PromptDesk
from agentic_bench.replay.session import SessionReplayer
from agentic_bench.replay.step_records import (
    branch_record,
    join_record,
    simulated_step_record,
    step_ids,
)
from agentic_bench.replay.tree import (
    ConversationEnded,
    Synthesis,
    TreeRun,
    TreeStopped,
    WarmupDone,
)
from agentic_bench.trace.conversations import ROOT
from agentic_bench.trace.model import (
    JoinStep,
    LlmStep,
    ParallelStep,
    SpawnStep,
    WaitStep,
)
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.context_overflow import is_context_overflow
from agentic_bench.transport.prepared import PreparedBody
from agentic_bench.transport.session_headers import render


@dataclass(slots=True)
class TreeCursor(TurnCursor):
    """A conversation's walk of a turn in a tree: the tree it belongs to, and how many of its
    requests were history before the lane's start (``history``) or measured (``live``, the
    first one due at ``live_start_ns``)."""

    tree: TreeRun = field(kw_only=True)
    history: int = 0
    live: int = 0
    live_start_ns: int | None = None
    ahead: BuiltPrompt | None = None  # the next request, written during the wait before it
    due_ns: int | None = None  # when the next request is due (the wait's deadline)

    @property
    def key(self) -> str:
        """The conversation's key in the tree (the root's: ``ROOT``)."""
        return self.branch or ROOT


class TreeReplayer(SessionReplayer):
    """Replays one session as a tree (``run(ticket)``); see the module's text."""

    stops = (TreeStopped,)

    def __init__(self, transport: ChatTransport, sink: RecordSink, options: ReplayOptions,
                 t0_ns: int, synthesis: Synthesis | None = None) -> None:
        super().__init__(transport, sink, options, t0_ns)
        self.synthesis = synthesis  # prompts given as blocks: the run's vocabulary
        self.desk = PromptDesk()  # prompts are written one at a time, the earliest due first

    async def run(self, ticket: SessionTicket) -> SessionOutcome:
        session = ticket.session
        tally = SessionTally()
        salt = self.salt(ticket)
        status = "ok"
        failure: str | None = None  # an exception of the harness itself (never dropped)
        cursor_ns = ticket.scheduled_ns
        tree: TreeRun | None = None
        first: BuiltPrompt | None = None
        lane = ticket.lane
        if lane is not None and lane.ahead:  # only the first request, written ahead
            lane.written = await write_first(ticket, self.synthesis, self.options,
                                             self.transport, self.desk)
            return SessionOutcome(ticket.session_id, "ok", 0, 0, 0, 0)
        try:
            written = lane.written if lane is not None else None
            if isinstance(written, WrittenFirst) and lane is not None and not lane.warmup:
                lane.written = None  # taken: the tree goes on from its written state
                tree, first = written.tree, written.built
                tree.lane, tree.anchor_ns = lane, ticket.scheduled_ns
                if first is not None and written.placeholder is not None:
                    first = first.with_marker(written.placeholder, lane.marker)
                body = first.body if first is not None else None
                if isinstance(body, PreparedBody) and body.context == ticket.request_context:
                    body.context = ticket.request_context  # (the ahead ticket's equal copy)
            else:
                tree = TreeRun.start(session, lane, self.synthesis, ticket.scheduled_ns)
            if tree.warmup:
                return await self._warm(ticket, tree, salt, tally)
            for ti, turn in enumerate(session.turns):
                if ti > 0 and (tree.plan is None or ROOT in tree.live):
                    cursor_ns = await self.sleep_until(
                        tree, perf_counter_ns() + self.think_ns(turn.think_time_s))
                cur = TreeCursor(ticket, ti, session, ti, "", salt, tally, cursor_ns,
                                 cursor_ns, tree=tree, ahead=first if ti == 0 else None)
                ok = await self.run_turn(cur, self.walk(cur))
                cursor_ns = perf_counter_ns()
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
            if tree is None or not tree.warmup:  # (a warm-up writes no session record)
                if tree is not None and status == "cancelled":
                    await cancel_branches(tree)  # recorded as cancelled before the session
                elif tree is not None:
                    await drain(tree)
                    if tree.failures and failure is None:  # a subagent's own exception
                        status, failure = "error", tree.failures[0]
                if tree is None:  # it could not start: as any session
                    self.session_record(ticket, status, tally, failure, len(session.turns), {})
                else:
                    self.session_record(ticket, status, tally, failure, tally.turns,
                                        tree_fields(tree))
        return SessionOutcome(ticket.session_id, status, len(session.turns), tally.turns_ok,
                              tally.requests, tally.errors)

    async def _warm(self, ticket: SessionTicket, tree: TreeRun, salt: str | None,
                    tally: SessionTally) -> SessionOutcome:
        """The warm-up of a lane's tree: only each live conversation's last requests before
        t*, back to back (recorded ``warmup``, never counted)."""
        cursor_ns = ticket.scheduled_ns
        try:
            for ti in range(len(ticket.session.turns)):
                cur = TreeCursor(ticket, ti, ticket.session, ti, "", salt, tally, cursor_ns,
                                 cursor_ns, tree=tree)
                try:
                    await self.walk(cur)
                finally:
                    cursor_ns = cur.cursor_ns
        except (WarmupDone, ConversationEnded):
            pass
        finally:
            await drain(tree)
        if tree.failures:  # a subagent's exception in the warm-up fails the run (load/lanes.py)
            raise RuntimeError(f"warm-up of {ticket.session_id}: {tree.failures[0]}")
        return SessionOutcome(ticket.session_id, "ok", 0, 0, tally.uncounted, 0)

    def end_turn(self, cur: TurnCursor, status: str, start_ns: int | None = None,
                 partial: bool = False) -> None:
        """As a session's turn, but a turn all of whose requests were history before the
        lane's start has no record (nothing of it was measured), one with some is
        ``partial`` (not counted as a turn) and it is timed from its first measured
        request."""
        assert isinstance(cur, TreeCursor)
        if cur.history and not cur.live:
            return
        super().end_turn(cur, status, cur.live_start_ns, bool(cur.history))

    async def walk(self, cur: TurnCursor) -> None:
        assert isinstance(cur, TreeCursor)
        for si, step in enumerate(cur.view.turns[cur.view_turn].steps):
            if isinstance(step, LlmStep):
                await self._llm(cur, si, step)
            elif isinstance(step, ParallelStep):
                await self.fanout(cur, si, step)
            elif isinstance(step, WaitStep):
                await self._wait(cur, si, step)
            elif isinstance(step, SpawnStep):
                self._spawn(cur, step)
            elif isinstance(step, JoinStep):
                await self._join(cur, si, step)
            else:
                await self.stage(cur, si, step.kind, getattr(step, "duration_ms", 0.0))

    async def _llm(self, cur: TreeCursor, si: int, step: LlmStep) -> None:
        """An llm step of a tree: history before the lane's start (sent only as the warm-up),
        the first measured request at its recorded offset, prompts given as blocks written
        out, replies held to their recorded length; a context overflow ends the
        conversation."""
        tree, key = cur.tree, cur.key
        fields: dict[str, Any] = {}
        live_history = self.options.history == "live"
        built, cur.ahead = cur.ahead, None
        due, cur.due_ns = cur.due_ns, None
        msgs: list[dict[str, Any]] = []
        if step.prompt is not None:  # written off the send path (replay/prompt_ahead.py)
            if built is None or built.step_index != si:
                built = await self._build(cur, si, step, cur.cursor_ns, ahead=False)
            index = built.index
        else:
            built = None
            index = tree.next_index(key)
            msgs = with_salt(messages_before(cur.view, cur.view_turn, si), cur.salt)
        counted = not tree.is_history(step)
        deadline: int | None = None
        if not counted:
            cur.history += 1
            if not (tree.warmup and tree.is_warmup_request(key, index)):
                return
            fields = {"warmup": True}
            expected = None
        else:
            if tree.warmup:
                raise WarmupDone
            deadline = tree.first_live_deadline(key, step)
            if deadline is not None:
                cur.cursor_ns = await self.sleep_until(tree, deadline)
            elif tree.stopping():
                raise TreeStopped
            if not cur.live:
                cur.live_start_ns = cur.cursor_ns
            cur.live += 1
            expected = None if step.prompt is not None else step.output.tool_calls
        if deadline is not None or due is None:
            due = cur.cursor_ns  # (no wait before it, or the first measured request's offset)
        if built is not None:
            fields = {**built.record_fields(due), **fields}
        lane = tree.lane
        result, rec = await self.request(
            cur, si, step, msgs, expected, fields=fields,
            clock=lane.clock if lane is not None else None, counted=counted,
            body=None if built is None else built.body)
        if counted:
            rec["send_late_ms"] = (result.t_sent_ns - due) / 1e6
        overflow = is_context_overflow(result)
        if overflow:
            rec["context_overflow"] = True
        self.commit(cur, result, rec)
        if counted and lane is not None and lane.answered is not None:
            answered, lane.answered = lane.answered, None
            answered()  # (the lane draws its next tree ahead: load/next_trees.py)
        if overflow:
            raise ConversationEnded
        if counted and result.ok and live_history:
            tree.last_reply[key] = result.content  # the next request sends it as the reply

    async def _build(self, cur: TreeCursor, si: int, step: LlmStep, due_ns: int, *,
                     ahead: bool) -> BuiltPrompt:
        """Write the request of ``step`` (a prompt given as blocks), due at ``due_ns``:
        replay/prompt_ahead.py."""
        layout = cur.view.token_blocks or cur.ticket.session.token_blocks
        assert layout is not None
        return await build_prompt(cur.tree, cur.key, si, step, layout, cur.ticket,
                                  self.options, self.transport, self.desk, due_ns,
                                  ahead=ahead)

    async def sleep_until(self, tree: TreeRun, deadline_ns: int) -> int:
        """A tree's one wait: until ``deadline_ns`` (through the lane's clock when the
        session runs in a lane: the idle-gap cap and the stop of the measured phase; a plain
        sleep otherwise); TreeStopped when the measured phase ended meanwhile. Returns the
        deadline as it was kept — earlier by what the idle-gap cap moved it meanwhile — so
        what is scheduled from it and the latencies measured from it are instants on one
        clock. (The scheduler's own wait is :func:`agentic_bench.load.clock.sleep_until`; the
        replayer sits below ``load/`` on the layer map and cannot import it.)"""
        lane = tree.lane
        if lane is not None and lane.clock is not None:
            stop = lane.stop if lane.cut else None
            shift_before = lane.clock.shift_ns
            if await lane.clock.sleep_until(deadline_ns, stop):
                raise TreeStopped
            return deadline_ns - (lane.clock.shift_ns - shift_before)
        delay = (deadline_ns - perf_counter_ns()) / 1e9
        if delay > 0:
            await asyncio.sleep(delay)
        if tree.stopping():
            raise TreeStopped
        return deadline_ns

    async def _wait(self, cur: TreeCursor, si: int, step: WaitStep) -> None:
        tree = cur.tree
        if tree.warmup or (tree.plan is not None and cur.key not in tree.live):
            return  # history: the first measured request keeps its own offset
        start = perf_counter_ns()
        deadline = start + self.think_ns(step.duration_ms / 1000.0)
        steps = cur.view.turns[cur.view_turn].steps
        after = steps[si + 1] if si + 1 < len(steps) else None
        if isinstance(after, LlmStep) and after.prompt is not None \
                and not tree.is_history(after):  # the next request, written meanwhile
            cur.ahead = await self._build(cur, si + 1, after, deadline, ahead=True)
        cur.due_ns = await self.sleep_until(tree, deadline)
        end = perf_counter_ns()
        cur.cursor_ns = end
        self.sink(simulated_step_record(step_ids(cur.ticket, cur.turn, si, cur.branch), "wait",
                                        step.duration_ms, start, end, self.t0_ns, step.reason))

    def _spawn(self, cur: TreeCursor, step: SpawnStep) -> None:
        tree = cur.tree
        bid = step.branch.id or f"{cur.key}/{cur.turn}"
        if tree.warmup and (tree.plan is None or not tree.plan.warmed(bid)):
            return  # nothing of it to warm
        tree.spawned[bid] = asyncio.ensure_future(self._run_spawned(cur, step, bid))

    async def _run_spawned(self, parent: TreeCursor, step: SpawnStep, bid: str) -> None:
        """A spawned branch, to its end: its own conversation, with its ``branch`` record
        (none when all of it was history before the lane's start)."""
        tree, ticket, options = parent.tree, parent.ticket, self.options
        parent_key = parent.key
        if options.session_headers or options.parent_session_headers:
            # the branch's own requests name the branch (and its parent); the records keep the
            # ticket's session id
            parent_id = (ticket.session_id if parent_key == ROOT
                         else f"{ticket.session_id}/{parent_key}")
            ticket = replace(ticket, request_context=render(
                options.session_headers, f"{ticket.session_id}/{bid}", options.session_user,
                options.parent_session_headers, parent_id, base=ticket.request_context))
        now = perf_counter_ns()
        child = TreeCursor(ticket, parent.turn, branch_session(parent.view, step.branch), 0,
                           bid, parent.salt, parent.tally, now, now, tree=tree)
        began, status = perf_counter_ns(), "ok"
        try:
            await self.walk(child)
        except TreeStopped:
            status = "stopped"
        except ConversationEnded:
            status = "error"
        except WarmupDone:
            pass
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except Exception as exc:  # kept on the tree: the session becomes an error (never dropped)
            status = "error"
            tree.failures.append(f"{type(exc).__name__}: {exc} (subagent {bid})")
        finally:
            if not tree.warmup and (child.live or not child.history):
                # (a branch that ended before the lane's start is history: no record)
                end = perf_counter_ns()
                status = "error" if status == "ok" and not child.ok else status
                self.sink(branch_record(ticket, parent.turn, bid, step.branch.name, status,
                                        began, end, self.t0_ns, child.llm, parent=parent_key,
                                        partial=bool(child.history)))

    async def _join(self, cur: TreeCursor, si: int, step: JoinStep) -> None:
        tree = cur.tree
        if tree.warmup:
            return
        start = perf_counter_ns()
        tasks = [tree.spawned[b] for b in step.branches if b in tree.spawned]
        if tasks:
            await asyncio.wait(tasks)
        end = perf_counter_ns()
        cur.cursor_ns = end
        self.sink(join_record(cur.ticket, cur.turn, si, cur.key, list(step.branches), start,
                              end, self.t0_ns))
        if tree.stopping():
            raise TreeStopped


def tree_fields(tree: TreeRun) -> dict[str, Any]:
    """What a tree's session record adds: its branches, and its lane's."""
    lane = tree.lane
    out: dict[str, Any] = {"branches": len(tree.spawned)}
    if lane is not None:
        out.update(lane=lane.lane, recycle_pass=lane.recycle_pass,
                   trajectory_start_s=lane.start_s)
        if lane.start_s > 0:
            out["partial"] = True  # began mid-trajectory: not a whole tree
    return out


async def drain(tree: TreeRun) -> None:
    """Wait for every branch the session spawned (the background ones too)."""
    while True:
        pending = [t for t in tree.spawned.values() if not t.done()]
        if not pending:
            return
        try:
            await asyncio.wait(pending)
        except asyncio.CancelledError:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            raise


async def cancel_branches(tree: TreeRun) -> None:
    """Cancel every branch still running (a stopped or interrupted session) and wait until
    each has written its records — its request in flight as ``cancelled`` — so nothing a
    subagent sent outlives the run's records writer."""
    while True:
        pending = [t for t in tree.spawned.values() if not t.done()]
        if not pending:
            return
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


__all__ = ["TreeCursor", "TreeReplayer", "cancel_branches", "drain", "tree_fields"]
