"""Text for prompt blocks: each hash id becomes one ``block_size``-token block of words,
deterministic for (seed, scope, id) — equal ids give byte-identical blocks, in any process —
and filler of any length, deterministic for its own key.

Every word is one token with its leading space (:mod:`agentic_bench.synthesis.vocabulary`),
so a block is exactly ``block_size`` tokens and a text of blocks and filler is exactly the sum
of its parts. Word ``i`` of a block is ``words[v_i mod len(words)]``, ``v_i`` the ``i``-th
little-endian 32-bit integer of ``shake_128("<seed>:<scope>:<id>")`` (one hash call per
block: about 8x faster than seeding a ``random.Random`` per block, which took most of the
client's CPU per request on 17k-101k-token agent prompts; docs/performance.md).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from functools import lru_cache


@lru_cache(maxsize=64)
def _ints(count: int) -> struct.Struct:
    return struct.Struct(f"<{count}I")


def draw(words: Sequence[str], key: str, count: int) -> str:
    """``count`` words drawn for ``key`` (the module's text), each with its leading space."""
    if count <= 0:
        return ""
    n = len(words)
    values = _ints(count).unpack(hashlib.shake_128(key.encode()).digest(4 * count))
    return " " + " ".join([words[v % n] for v in values])


class BlockWriter:
    """Block and filler texts of one hash-id scope (a session tree)."""

    def __init__(self, words: Sequence[str], block_size: int, seed: int, scope: str) -> None:
        self.words = tuple(words)
        self.block_size = block_size
        self.seed = seed
        self.scope = scope
        self._blocks: dict[int, str] = {}

    def block(self, hash_id: int) -> str:
        text = self._blocks.get(hash_id)
        if text is None:
            text = draw(self.words, f"{self.seed}:{self.scope}:{hash_id}", self.block_size)
            self._blocks[hash_id] = text
        return text

    def unwritten(self, hash_ids: Sequence[int]) -> list[int]:
        """Those of ``hash_ids`` whose text is not written yet (in order, repeats kept)."""
        written = self._blocks
        return [h for h in hash_ids if h not in written]

    def blocks(self, hash_ids: Sequence[int]) -> str:
        return "".join(self.block(h) for h in hash_ids)

    def filler(self, tokens: int, key: str) -> str:
        """``tokens`` words unique to ``key`` (a request's position): the part of a prompt
        no recorded block covers."""
        return draw(self.words, f"{self.seed}:{self.scope}:filler:{key}", tokens)


__all__ = ["BlockWriter", "draw"]
