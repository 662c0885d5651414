"""A tree's prompts written off the send path.

A prompt given as blocks costs the client real time to write (its new blocks' words; a
17k-101k-token agent prompt's blocks took ~10 ms per request before this module,
docs/performance.md). So when a conversation's next step after a ``wait`` is such a request,
:class:`~agentic_bench.replay.tree_replayer.TreeReplayer` writes it during the wait — the new
blocks a slice at a time with the event loop served between slices (other lanes' sends and
reads wait at most one slice), then the messages, the body, and the body's bytes encoded by the
client (:func:`~agentic_bench.transport.prepared.prepare_ahead`) — and sends the ready bytes
when it is due. A request with no wait before it (a tree's first, one after a join) is written
when it is due, the same way — except a tree's first request written before its lane takes it
(:func:`write_first`: the lane's ``ahead`` ticket; recorded ``prompt_ahead``): a lane's first
tree of the measured phase, written before the clock starts, and a later tree drawn ahead
(load/next_trees.py), written while earlier trees run. Which lane takes a tree drawn ahead is
known only when a tree ends, so its body is written with
:data:`~agentic_bench.synthesis.marker.MARKER_PLACEHOLDER` where the lane's cache-bust marker
goes, and the marker (as long) is put in its place in the messages and the encoded bytes when
the lane takes it (:meth:`BuiltPrompt.with_marker`: a copy, tens of microseconds, counted in
``prompt_build_ms``). Writers take turns at the replayer's
:class:`~agentic_bench.replay.prompt_desk.PromptDesk`, the earliest due first.

Each such request's record says what it cost and whether it was ready in time:
``prompt_build_ms`` (the writing and encoding itself, not the turns given to other lanes),
``prompt_ahead`` (written during the wait before it), ``prompt_late`` (true when it was
ready after the instant it was due: counted in the summary's ``harness.prompt_late``, never
hidden) and ``send_late_ms`` (its send − the instant it was due, the wait's deadline: unlike
``schedule_lag_ms``, which counts from the wait's actual end, it includes a late wake-up).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.replay.history import request_body
from agentic_bench.replay.prompt_desk import PromptDesk
from agentic_bench.replay.tree import Synthesis, TreeRun
from agentic_bench.trace.conversations import ROOT
from agentic_bench.trace.model import LlmStep, TokenBlocks
from agentic_bench.transport.prepared import PreparedBody, prepare_ahead
from agentic_bench.units import NS_PER_MS


@dataclass(slots=True)
class BuiltPrompt:
    """A request written before its send: its step, its conversation index, its body (a
    :class:`~agentic_bench.transport.prepared.PreparedBody` when the transport encodes
    ahead), its record fields, its writing time (ns) and when it was ready."""

    step_index: int
    index: int
    body: dict[str, Any]
    fields: dict[str, Any]
    build_ns: int
    ready_ns: int
    ahead: bool

    def record_fields(self, due_ns: int) -> dict[str, Any]:
        """What the request's record carries of it, for a request due at ``due_ns``."""
        out = {**self.fields, "prompt_build_ms": self.build_ns / NS_PER_MS,
               "prompt_ahead": self.ahead}
        if self.ready_ns > due_ns:
            out["prompt_late"] = True
        return out

    def with_marker(self, placeholder: str, marker: str | None) -> BuiltPrompt:
        """This request with ``marker`` where it was written with ``placeholder`` (a tree
        drawn ahead, now taken by a lane): the first message that starts with it, and the
        encoded bytes when the marker is as long (else the body is encoded at its send)."""
        began = perf_counter_ns()
        messages = self.body.get("messages")
        at = next((i for i, m in enumerate(messages or ())
                   if str(m.get("content", "")).startswith(placeholder)), None)
        if messages is None or at is None:  # a bug: never send the placeholder
            raise RuntimeError("a prompt written ahead lost its cache-bust placeholder")
        new = marker or ""
        msgs = list(messages)
        msgs[at] = {**msgs[at], "content": new + msgs[at]["content"][len(placeholder):]}
        body: dict[str, Any] = {**self.body, "messages": msgs}
        if isinstance(self.body, PreparedBody) and len(new) == len(placeholder):
            payload, old, fresh = self.body.payload, placeholder.encode(), new.encode()
            old, fresh = old.rstrip(b"\n"), fresh.rstrip(b"\n")  # (JSON writes "\n" apart)
            first = payload.find(old)
            if first >= 0 and payload.find(old, first + 1) < 0 and len(old) == len(fresh):
                body = PreparedBody(body, payload[:first] + fresh + payload[first + len(old):],
                                    self.body.owner, self.body.context)
        return replace(self, body=body, build_ns=self.build_ns + perf_counter_ns() - began)


LAST_PLACE_NS = 86_400 * 10**9  # a tree drawn ahead writes after every request due sooner


@dataclass(slots=True)
class WrittenFirst:
    """A tree's first request written before its lane's clock started
    (:func:`write_first`): the tree's state after writing it, and the request."""

    tree: TreeRun
    built: BuiltPrompt | None  # None: only (some of) its blocks were written
    placeholder: str | None = None  # written where the marker goes (``ahead_blocks``)


async def write_first(ticket: SessionTicket, synthesis: Synthesis | None,
                      options: ReplayOptions, transport: object,
                      desk: PromptDesk) -> WrittenFirst | None:
    """Write the first request of ``ticket``'s tree ahead (its lane's ``ahead`` ticket: the
    run's first trees, before the measured phase's clock starts, as the floor client builds
    every body before its clock). None when the tree does not open with a prompt given as
    blocks, or starts mid-trajectory (its first measured request then has its own offset).
    With ``ahead_blocks`` (a tree drawn ahead, its lane not known yet: load/next_trees.py) only
    the request is written at the desk's last place (due in a day), with the lane start's
    ``marker`` (:data:`~agentic_bench.synthesis.marker.MARKER_PLACEHOLDER` or None) in the
    marker's place; a writing stopped in its blocks keeps them (``built`` None)."""
    session, lane = ticket.session, ticket.lane
    layout = session.token_blocks
    if lane is None or lane.start_s > 0 or layout is None or not session.turns:
        return None
    steps = session.turns[0].steps
    step = steps[0] if steps else None
    if not isinstance(step, LlmStep) or step.prompt is None:
        return None
    tree = TreeRun.start(session, lane, synthesis, 0)
    if lane.ahead_blocks:  # kept from the start: a writing stopped mid-way keeps its blocks
        lane.written = written = WrittenFirst(tree, None, lane.marker)
        last = perf_counter_ns() + LAST_PLACE_NS
        async with desk.turn(last):
            spent = await tree.warm(step, lambda: desk.pause(last))
            # (no await from here on: a stop lands in the blocks, never between the request's
            # index being taken and its body kept)
            written.built = compose(tree, ROOT, 0, step, layout, ticket, options, transport,
                                    spent, ahead=True)
        return written
    built = await build_prompt(tree, ROOT, 0, step, layout, ticket, options, transport, desk,
                               perf_counter_ns(), ahead=True)
    return WrittenFirst(tree, built)


async def build_prompt(tree: TreeRun, key: str, si: int, step: LlmStep, layout: TokenBlocks,
                       ticket: SessionTicket, options: ReplayOptions, transport: object,
                       desk: PromptDesk, due_ns: int, *, ahead: bool) -> BuiltPrompt:
    """Write conversation ``key``'s request of ``step`` (step ``si`` of its turn), due at
    ``due_ns``: at its turn of the ``desk``, its blocks in slices (:meth:`TreeRun.warm`),
    then messages, body and encoded bytes."""
    index = tree.next_index(key)
    async with desk.turn(due_ns):
        spent = await tree.warm(step, lambda: desk.pause(due_ns))
        return compose(tree, key, si, step, layout, ticket, options, transport, spent,
                       ahead=ahead, index=index)


def compose(tree: TreeRun, key: str, si: int, step: LlmStep, layout: TokenBlocks,
            ticket: SessionTicket, options: ReplayOptions, transport: object, spent_ns: int,
            *, ahead: bool, index: int | None = None) -> BuiltPrompt:
    """The request of ``step`` once its blocks are written: its messages, body and encoded
    bytes, at once (nothing awaited); ``index``: the conversation's request index when the
    caller took it (else taken here)."""
    if index is None:
        index = tree.next_index(key)
    began = perf_counter_ns()
    reply = tree.last_reply.pop(key, None) if options.history == "live" else None
    msgs, fields = tree.prompt_body(key, index, step, layout, reply)
    body = request_body(ticket.session, step, msgs, options.model, options.overrides,
                        tree.output_params(step))
    if not tree.is_history(step):  # (history, sent only as the warm-up: encoded at send)
        body = prepare_ahead(transport, body, ticket.request_context)
    ready = perf_counter_ns()
    return BuiltPrompt(si, index, body, fields, spent_ns + ready - began, ready, ahead)


__all__ = ["BuiltPrompt", "WrittenFirst", "build_prompt", "compose", "write_first"]
