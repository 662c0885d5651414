"""What a replay of an agent tree keeps while it runs: the synthesized conversations, the
spawned branches, the lane's mid-trajectory start and the stop of the measured phase.

One :class:`TreeRun` per issued session (ticket), kept by
:class:`~agentic_bench.replay.tree_replayer.TreeReplayer` for the sessions that need one
(:func:`is_tree`, or a lane's); a plain session never creates one. It does no I/O: the
replayer sends, waits and writes records, and asks it what to do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import LaneStart
from agentic_bench.options.replay import SynthesisOptions
from agentic_bench.synthesis.blocks import BlockWriter
from agentic_bench.synthesis.conversation import SyntheticConversation
from agentic_bench.trace.conversations import ROOT, prefix_hits
from agentic_bench.trace.model import LlmStep, Session, TokenBlocks
from agentic_bench.trace.trajectory import TrajectoryPlan, plan

WARM_SLICE_BLOCKS = 16  # blocks written between two turns of the event loop (~0.4 ms)


class TreeStopped(Exception):
    """The measured phase ended (``--agentx``): this conversation sends nothing more."""


class ConversationEnded(Exception):
    """A context overflow ended this conversation (AIPerf ``agentic_replay.py``
    ``handle_credit_return``: later requests would only overflow again)."""


class WarmupDone(Exception):
    """A conversation reached its first measured request during the warm-up: it stops."""


def is_tree(session: Session) -> bool:
    """Does replaying ``session`` need a :class:`TreeRun` (agent-tree steps or blocks)?"""
    if session.token_blocks is not None:
        return True
    return any(s.kind in ("spawn", "join", "wait") for t in session.turns for s in t.steps)


@dataclass
class Synthesis:
    """The run's prompt-writing resources, set once the endpoint is open (``prepare``)."""

    options: SynthesisOptions
    words: tuple[str, ...] = ()
    tokenizer: str = ""


@dataclass
class TreeRun:
    session: Session
    lane: LaneStart | None
    synthesis: Synthesis | None
    plan: TrajectoryPlan | None = None
    writer: BlockWriter | None = None
    conversations: dict[str, SyntheticConversation] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    live: set[str] = field(default_factory=set)  # conversations past their history
    spawned: dict[str, asyncio.Task[Any]] = field(default_factory=dict)
    last_reply: dict[str, str] = field(default_factory=dict)  # --history live
    hits: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    anchor_ns: int = 0  # when the measured phase of this lane began (its ticket's schedule)
    failures: list[str] = field(default_factory=list)  # subagents' harness exceptions

    @classmethod
    def start(cls, session: Session, lane: LaneStart | None, synthesis: Synthesis | None,
              anchor_ns: int) -> TreeRun:
        run = cls(session, lane, synthesis, anchor_ns=anchor_ns)
        if lane is not None and lane.start_s > 0:
            run.plan = plan(session, lane.start_s)
        if session.token_blocks is not None:
            if synthesis is None or not synthesis.words:
                raise RuntimeError("prompts given as blocks need the run's synthesis "
                                   "vocabulary (Workload.prepare was not called)")
            run.writer = BlockWriter(synthesis.words, session.token_blocks.block_size,
                                     synthesis.options.seed, session.session_id)
            run.hits = prefix_hits(session)
        return run

    @property
    def warmup(self) -> bool:
        return self.lane is not None and self.lane.warmup

    def next_index(self, key: str) -> int:
        index = self.counters.get(key, 0)
        self.counters[key] = index + 1
        return index

    def is_history(self, step: LlmStep) -> bool:
        return (self.plan is not None and step.start_s is not None
                and step.start_s < self.plan.start_s)

    def is_warmup_request(self, key: str, index: int) -> bool:
        """One of the conversation's last ``warmup_requests`` before t* (and it goes on)."""
        if self.plan is None or self.lane is None or not self.plan.warmed(key):
            return False
        history = self.plan.streams[key].history
        return index >= history - self.lane.warmup_requests

    def first_live_deadline(self, key: str, step: LlmStep) -> int | None:
        """When a conversation that had history sends its first measured request: its
        recorded offset from t*, less the lane's shift, after the measured phase began."""
        if key in self.live:
            return None
        self.live.add(key)
        if self.plan is None or step.start_s is None:
            return None
        offset = step.start_s - self.plan.start_s - (self.lane.shift_s if self.lane else 0.0)
        return self.anchor_ns + int(max(0.0, offset) * 1e9)

    def stopping(self) -> bool:
        lane = self.lane
        return lane is not None and lane.cut and lane.stop is not None and lane.stop.is_set()

    def conversation(self, key: str, layout: TokenBlocks) -> SyntheticConversation:
        conv = self.conversations.get(key)
        if conv is None:
            assert self.writer is not None
            conv = SyntheticConversation(self.writer, layout.block_size,
                                         layout.tool_tokens + layout.system_tokens, key or "root")
            self.conversations[key] = conv
        return conv

    def prompt_body(self, key: str, index: int, step: LlmStep, layout: TokenBlocks,
                    live_reply: str | None) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """The messages of a prompt given as blocks, and the fields its record carries."""
        assert step.prompt is not None and step.usage is not None
        conv = self.conversation(key, layout)
        conv.advance(step.prompt.hash_ids, step.usage.input_tokens or 0,
                     step.usage.output_tokens or 0, live_reply)
        marker = self.lane.marker if self.lane is not None else None
        hit, blocks = self.hits.get((key, index), (0, len(step.prompt.hash_ids)))
        fields: dict[str, Any] = {
            "conversation": key or ROOT, "request_index": index,
            "prompt_tokens_target": step.usage.input_tokens,
            "prompt_tokens_synth": conv.content_tokens if conv.exact else None,
            "output_tokens_target": step.usage.output_tokens,
            "prefix_hit_blocks": hit, "prefix_blocks": blocks,
            "recorded_start_s": step.start_s}
        if conv.prefix_reset:
            fields["prefix_reset"] = True
        return conv.messages(marker), fields

    async def warm(self, step: LlmStep, between: Callable[[], Awaitable[None]],
                   slice_blocks: int = WARM_SLICE_BLOCKS) -> int:
        """Write the text of ``step``'s prompt blocks not written yet, ``slice_blocks`` at a
        time, awaiting ``between`` after each slice (a turn of the event loop, so other
        lanes' sends and reads wait at most one slice); returns the ns spent writing."""
        writer = self.writer
        if writer is None or step.prompt is None or step.usage is None:
            return 0
        ids = step.prompt.hash_ids
        covered = min(len(ids), (step.usage.input_tokens or 0) // writer.block_size)
        missing = writer.unwritten(ids[:covered])
        spent = 0
        for i in range(0, len(missing), slice_blocks):
            began = perf_counter_ns()
            for h in missing[i:i + slice_blocks]:
                writer.block(h)
            spent += perf_counter_ns() - began
            await between()
        return spent

    def output_params(self, step: LlmStep) -> dict[str, Any]:
        """``max_tokens`` = the recorded reply (0 → 1, as AIPerf's loader), with ``ignore_eos``
        (and ``min_tokens``) so replies keep their recorded length."""
        assert step.usage is not None
        out = max(1, step.usage.output_tokens or 0)
        params: dict[str, Any] = {"max_tokens": out}
        options = self.synthesis.options if self.synthesis else SynthesisOptions()
        if options.ignore_eos:
            params["ignore_eos"] = True
        if options.min_tokens:
            params["min_tokens"] = out
        return params


__all__ = ["ConversationEnded", "Synthesis", "TreeRun", "TreeStopped", "WarmupDone", "is_tree"]
