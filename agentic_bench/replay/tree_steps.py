"""The steps of agent trees, for :class:`~agentic_bench.replay.session.SessionReplayer`:
``wait`` (recorded client time), ``spawn`` (a branch that runs on while its parent goes on),
``join`` (wait for named branches) and llm steps whose prompts are given as blocks, with a
lane's mid-trajectory start (history, warm-up, the first measured requests' offsets), the
measured phase's stop and context overflows.

A spawned branch is its own conversation: its requests carry its id (``branch``) and, with
``--session-header``, its own session id ``<session>/<branch>`` (with the parent's in
``--parent-session-header`` headers). A ``branch`` record per branch, a ``join`` record per
join (``wait_ms``: how long the parent waited for its branches there).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

from agentic_bench.replay.tree import ConversationEnded, TreeRun, TreeStopped
from agentic_bench.trace.conversations import ROOT
from agentic_bench.trace.history import branch_session
from agentic_bench.trace.model import JoinStep, Session, SpawnStep, WaitStep
from agentic_bench.transport.session_headers import render
from agentic_bench.units import NS_PER_MS

if TYPE_CHECKING:
    from agentic_bench.contracts import SessionTicket
    from agentic_bench.replay.session import SessionReplayer


class WarmupDone(Exception):
    """A conversation reached its first measured request during the warm-up: it stops."""


async def sleep_until(replayer: SessionReplayer, tree: TreeRun | None, deadline_ns: int) -> int:
    """The replayer's one wait: until ``deadline_ns`` (through the lane's clock when the
    session runs in a lane: the idle-gap cap and the stop of the measured phase; a plain
    sleep otherwise, ``tree`` None included); TreeStopped when the measured phase ended
    meanwhile. Returns the deadline as it was kept — earlier by what the idle-gap cap moved
    it meanwhile — so what is scheduled from it and the latencies measured from it are
    instants on one clock. (The scheduler's own wait is
    :func:`agentic_bench.load.clock.sleep_until`; the replayer sits below ``load/`` on the
    layer map and cannot import it.)"""
    lane = tree.lane if tree is not None else None
    if lane is not None and lane.clock is not None:
        stop = lane.stop if lane.cut else None
        shift_before = lane.clock.shift_ns
        if await lane.clock.sleep_until(deadline_ns, stop):
            raise TreeStopped
        return deadline_ns - (lane.clock.shift_ns - shift_before)
    delay = (deadline_ns - perf_counter_ns()) / 1e9
    if delay > 0:
        await asyncio.sleep(delay)
    if tree is not None and tree.stopping():
        raise TreeStopped
    return deadline_ns


async def run_wait(replayer: SessionReplayer, ticket: SessionTicket, ti: int, si: int,
                   step: WaitStep, tstate: dict[str, Any], branch: str, tree: TreeRun) -> None:
    key = branch or ROOT
    if tree.warmup or (tree.plan is not None and key not in tree.live):
        return  # history: the first measured request keeps its own offset
    start = perf_counter_ns()
    wait_ns = int(replayer.options.think.wait_s(step.duration_ms / 1000.0) * 1e9)
    await sleep_until(replayer, tree, start + wait_ns)
    end = perf_counter_ns()
    tstate["cursor"] = end
    replayer.sink({**replayer._ids(ticket, ti, si, branch), "kind": "wait", "status": "ok",
                   "executed": "simulated", "recorded_ms": step.duration_ms,
                   **({"reason": step.reason} if step.reason else {}),
                   "t_sent_ns": start - replayer.t0_ns, "t_end_ns": end - replayer.t0_ns,
                   "duration_ms": (end - start) / NS_PER_MS})


def spawn(replayer: SessionReplayer, ticket: SessionTicket, ti: int, step: SpawnStep,
          view: Session, salt: str | None, state: dict[str, int], tree: TreeRun,
          parent: str) -> None:
    member = step.branch
    bid = member.id or f"{parent}/{ti}"
    if tree.warmup and (tree.plan is None or not tree.plan.warmed(bid)):
        return  # nothing of it to warm
    task = asyncio.ensure_future(
        run_branch(replayer, ticket, ti, step, view, salt, state, tree, parent, bid))
    tree.spawned[bid] = task


async def run_branch(replayer: SessionReplayer, ticket: SessionTicket, ti: int,
                     step: SpawnStep, view: Session, salt: str | None, state: dict[str, int],
                     tree: TreeRun, parent: str, bid: str) -> None:
    options = replayer.options
    if options.session_headers or options.parent_session_headers:
        # the branch's own requests name the branch (and its parent); the records keep the
        # ticket's session id
        parent_id = ticket.session_id if parent == ROOT else f"{ticket.session_id}/{parent}"
        ticket = replace(ticket, request_context=render(
            options.session_headers, f"{ticket.session_id}/{bid}", options.session_user,
            options.parent_session_headers, parent_id, base=ticket.request_context))
    child: dict[str, Any] = {"ok": True, "llm": 0, "matched": 0, "scored": 0,
                             "unmatched_tool_calls": 0, "cursor": perf_counter_ns(),
                             "history": 0, "live": 0}
    began, status = perf_counter_ns(), "ok"
    try:
        await replayer._walk(ticket, ti, branch_session(view, step.branch), 0, salt, state,
                             child, bid, tree)
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
        if not tree.warmup and (child["live"] or not child["history"]):
            # (a branch that ended before the lane's start is history: no record)
            end = perf_counter_ns()
            status = "error" if status == "ok" and not child["ok"] else status
            replayer.sink({
                "type": "branch", "session_id": ticket.session_id,
                "session_index": ticket.index, "worker": ticket.worker, "turn": ti,
                "branch": bid, "name": step.branch.name, "spawned": True, "parent": parent,
                "status": status, "t_start_ns": began - replayer.t0_ns,
                "t_end_ns": end - replayer.t0_ns, "latency_ms": (end - began) / NS_PER_MS,
                "llm_calls": child["llm"], **({"partial": True} if child["history"] else {})})


async def join(replayer: SessionReplayer, ticket: SessionTicket, ti: int, si: int,
               step: JoinStep, tstate: dict[str, Any], branch: str, tree: TreeRun) -> None:
    if tree.warmup:
        return
    start = perf_counter_ns()
    tasks = [tree.spawned[b] for b in step.branches if b in tree.spawned]
    if tasks:
        await asyncio.wait(tasks)
    end = perf_counter_ns()
    tstate["cursor"] = end
    replayer.sink({"type": "join", "session_id": ticket.session_id,
                   "session_index": ticket.index, "worker": ticket.worker, "turn": ti,
                   "step": si, "conversation": branch or ROOT, "branches": list(step.branches),
                   "t_start_ns": start - replayer.t0_ns, "t_end_ns": end - replayer.t0_ns,
                   "wait_ms": (end - start) / NS_PER_MS})
    if tree.stopping():
        raise TreeStopped


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


def is_tree(session: Session) -> bool:
    """Does replaying ``session`` need a :class:`TreeRun` (agent-tree steps or blocks)?"""
    if session.token_blocks is not None:
        return True
    return any(s.kind in ("spawn", "join", "wait") for t in session.turns for s in t.steps)


__all__ = ["WarmupDone", "cancel_branches", "drain", "is_tree", "join", "run_branch",
           "run_wait", "sleep_until", "spawn"]
