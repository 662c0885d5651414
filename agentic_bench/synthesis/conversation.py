"""One conversation's prompts rebuilt from its requests' blocks, request after request.

The rule (AIPerf 0.13 ``dataset/loader/weka_synth_buf.py``, ``ConversationReconstructor``,
rebuilt here): the conversation is a list of role segments, each a run of whole blocks (the
last may end in filler). For the first request, the first ``ceil((tool_tokens +
system_tokens) / block_size)`` blocks are the system message and the rest, with filler up to
``in`` tokens, the user message. For each later request:

1. keep the longest common prefix of its hash ids and the previous request's (never more
   blocks than the conversation holds); what follows is cut off, filler included — when that
   removes blocks the previous request sent, the history was rewritten (``prefix_reset``);
2. of the new blocks, the first ``ceil(previous out / block_size)`` are the previous reply (an
   assistant message) — none when no user message is left before them (the cut removed every
   one: the conversation resumes with a user message);
3. the rest, with filler up to ``in`` tokens, are the new user message (a tool result or the
   user's words); when nothing would be left for it, the last new block goes to it, so a
   request ends with a user message whenever it adds anything.

So every request holds exactly ``in`` content tokens and every block's text is the same
wherever it appears. Departures from AIPerf 0.13: its second planning pass that shrinks an
assistant message so a later block-aligned pull-back lands on a user block
(``compute_asst_block_caps``) is not done here, and the common prefix is capped at the blocks
the conversation holds (AIPerf cuts at the raw common prefix).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from agentic_bench.synthesis.blocks import BlockWriter


@dataclass
class Segment:
    role: str  # "system", "user" or "assistant"
    blocks: list[int]
    tail: int = 0  # filler tokens after the blocks (only the last segment has any)
    tail_key: str = ""
    live_text: str | None = None  # --history live: the model's own reply, sent instead
    _text: str | None = None

    def text(self, writer: BlockWriter) -> str:
        if self.live_text is not None:
            return self.live_text
        if self._text is None:
            self._text = writer.blocks(self.blocks) + writer.filler(self.tail, self.tail_key)
        return self._text

    def cut(self, keep_blocks: int) -> None:
        self.blocks = self.blocks[:keep_blocks]
        self.tail = 0
        self._text = None


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


class SyntheticConversation:
    """The segments of one conversation (a session's, or a subagent's) and how each request
    changes them."""

    def __init__(self, writer: BlockWriter, block_size: int, prefix_tokens: int, key: str
                 ) -> None:
        self.writer = writer
        self.bs = block_size
        self.prefix_tokens = prefix_tokens
        self.key = key
        self.segments: list[Segment] = []
        self.requests = 0
        self._previous: tuple[list[int], int] | None = None
        self.prefix_reset = False  # the latest request rewrote blocks an earlier one sent

    @property
    def held_blocks(self) -> int:
        return sum(len(s.blocks) for s in self.segments)

    @property
    def content_tokens(self) -> int:
        return sum(len(s.blocks) * self.bs + s.tail for s in self.segments)

    @property
    def exact(self) -> bool:
        """False once a live reply stands in for recorded blocks."""
        return all(s.live_text is None for s in self.segments)

    def _truncate(self, keep: int) -> None:
        """Keep the first ``keep`` blocks; filler and everything after them go."""
        cursor = 0
        for i, seg in enumerate(self.segments):
            end = cursor + len(seg.blocks)
            if end >= keep:
                inside = keep - cursor
                if inside < len(seg.blocks):
                    seg.live_text = None  # a reply cut in the middle goes back to its blocks
                seg.cut(inside)
                del self.segments[i + 1:]
                if not seg.blocks:
                    del self.segments[i]
                return
            cursor = end

    def advance(self, hash_ids: Sequence[int], input_tokens: int, output_tokens: int,
                live_reply: str | None = None) -> None:
        """Take the next request of the conversation (its blocks and sizes); ``live_reply``:
        the model's reply to the previous request, sent in place of the recorded one."""
        bs = self.bs
        ids = list(hash_ids)
        covered = min(len(ids), input_tokens // bs)
        tail = input_tokens - covered * bs
        tail_key = f"{self.key}:{self.requests}"
        self.prefix_reset = False
        if self._previous is None:
            system = min(math.ceil(self.prefix_tokens / bs), covered) if self.prefix_tokens else 0
            if system:
                self.segments.append(Segment("system", ids[:system]))
            if covered > system or tail or not self.segments:
                self.segments.append(Segment("user", ids[system:covered], tail, tail_key))
        else:
            before, previous_out = self._previous
            held = self.held_blocks
            keep = min(common_prefix(before, ids), held, covered)
            if keep < held:
                self.prefix_reset = True
            self._truncate(keep)
            new = ids[keep:covered]
            reply = math.ceil(previous_out / bs) if previous_out > 0 else 0
            if not any(s.role == "user" for s in self.segments):
                reply = 0  # the cut left no user message: resume with one
            reply = min(reply, len(new))
            if reply and reply == len(new) and not tail:
                reply -= 1  # end with the user's part when anything is added
            if reply:
                self.segments.append(Segment("assistant", new[:reply], live_text=live_reply))
            if len(new) > reply or tail:
                self.segments.append(Segment("user", new[reply:], tail, tail_key))
        self._previous = (ids, output_tokens)
        self.requests += 1

    def messages(self, marker: str | None = None) -> list[dict[str, str]]:
        """The request's messages; ``marker`` starts the first user message (else the first)."""
        out = [{"role": s.role, "content": s.text(self.writer)} for s in self.segments]
        if marker and out:
            first = next((m for m in out if m["role"] == "user"), out[0])
            first["content"] = marker + first["content"]
        return out


__all__ = ["Segment", "SyntheticConversation", "common_prefix"]
