"""Text for prompt blocks: each hash id becomes one ``block_size``-token block of words,
deterministic for (seed, scope, id) — equal ids give byte-identical blocks, in any process —
and filler of any length, deterministic for its own key.

Every word is one token with its leading space (:mod:`agentic_bench.synthesis.vocabulary`),
so a block is exactly ``block_size`` tokens and a text of blocks and filler is exactly the sum
of its parts. The words are drawn with a ``random.Random`` seeded from
``sha256("<seed>:<scope>:<id>")``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence


def _rng(key: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


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
            rng = _rng(f"{self.seed}:{self.scope}:{hash_id}")
            text = "".join(" " + w for w in rng.choices(self.words, k=self.block_size))
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
        if tokens <= 0:
            return ""
        rng = _rng(f"{self.seed}:{self.scope}:filler:{key}")
        return "".join(" " + w for w in rng.choices(self.words, k=tokens))


__all__ = ["BlockWriter"]
