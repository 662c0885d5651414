"""The theoretical prefix-cache hit of a **finite** KV cache: block-level LRU, one cache shared by
every request (every lane, every tree), requests in time order.

Beside the unbounded per-tree figure (trace/conversations.py ``prefix_hits``: AIPerf 0.13
``weka_metric_prepass.py``, InferenceX ``compute_cache_stats``), which no server of finite memory
reaches, this says what a cache of ``capacity`` tokens would have served. The model:

* the cache holds ``capacity // block_size`` blocks; a request's blocks are its hash ids, scoped
  by its tree (``namespace``: two trees, or two passes of one tree, never share a block);
* a request hits the run of its leading blocks already cached, and stops at the first one that
  is not (a prefix cache: a block is reusable only after all blocks before it);
* then every block of the request is used and becomes the most recent, the first block last —
  so among one request's blocks the tail is evicted first — vLLM returns a finished request's
  blocks to its free queue in reverse order for that reason (``vllm/v1/core/
  single_type_kv_cache_manager.py``, ``SingleTypeKVCacheManager.free``);
* the least recently used blocks are evicted down to the capacity.

Requests are taken whole and in order: blocks in use by running requests are not pinned, the
cache holds only what requests left behind (an ideal LRU, not one server's allocator).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence


class LruPrefixCache:
    """A block-level LRU prefix cache of ``capacity_blocks`` blocks (module doc)."""

    def __init__(self, capacity_blocks: int) -> None:
        if capacity_blocks < 0:
            raise ValueError("capacity_blocks must be >= 0")
        self.capacity = capacity_blocks
        self._blocks: OrderedDict[Hashable, None] = OrderedDict()  # least recent first
        self.hit = self.total = 0

    def request(self, blocks: Sequence[Hashable]) -> int:
        """Serve one request: its hit blocks (the cached run of its leading blocks)."""
        hits = 0
        for block in blocks:
            if block not in self._blocks:
                break
            hits += 1
        for block in reversed(blocks):  # the first block ends the most recent
            self._blocks[block] = None
            self._blocks.move_to_end(block)
        while len(self._blocks) > self.capacity:
            self._blocks.popitem(last=False)
        self.hit += hits
        self.total += len(blocks)
        return hits

    def __len__(self) -> int:
        return len(self._blocks)


def finite_prefix_hit(requests: Iterable[Sequence[Hashable]], capacity_blocks: int
                      ) -> tuple[int, int]:
    """(hit blocks, blocks) of ``requests`` (each its blocks, in time order) through one LRU
    cache of ``capacity_blocks`` blocks."""
    cache = LruPrefixCache(capacity_blocks)
    for blocks in requests:
        cache.request(blocks)
    return cache.hit, cache.total


def capacity_entry(capacity_tokens: int, block_size: int, hit: int, total: int
                   ) -> dict[str, object]:
    """One capacity's figures, as the summaries show them."""
    return {"capacity_tokens": capacity_tokens, "capacity_blocks": capacity_tokens // block_size,
            "ratio": hit / total if total else None, "hit_blocks": hit, "blocks": total}


__all__ = ["LruPrefixCache", "capacity_entry", "finite_prefix_hit"]
