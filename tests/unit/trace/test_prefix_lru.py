"""The finite-capacity theoretical prefix hit (trace/prefix_lru.py, #46 item 5): a block-level
LRU shared by every request, equal to a brute-force LRU on random traces; the corpus sweep of
``traces stats --cache-capacity``; the run's figure from records (trace/prefix_lru_run.py)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_bench.errors import ConfigError
from agentic_bench.options.capacity import parse_capacities
from agentic_bench.trace.prefix_lru import LruPrefixCache, finite_prefix_hit
from agentic_bench.trace.weka import WekaCorpus
from agentic_bench.trace.weka.stats import CorpusStats, render_corpus_stats

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"


def brute_force(requests: Sequence[Sequence[Hashable]], capacity: int) -> tuple[int, int]:
    """The definition, recomputed from the whole history at every request: the cache holds the
    ``capacity`` distinct blocks used most recently, where a request uses its blocks last to
    first (its first block the most recent of all); a request hits its leading cached run."""
    uses: list[Hashable] = []  # every use so far, oldest first
    hit = total = 0
    for blocks in requests:
        recent: list[Hashable] = []
        for block in reversed(uses):
            if block not in recent:
                recent.append(block)
            if len(recent) == capacity:
                break
        cached = set(recent[:capacity])
        n = 0
        while n < len(blocks) and blocks[n] in cached:
            n += 1
        hit += n
        total += len(blocks)
        uses.extend(reversed(blocks))
    return hit, total


requests_strategy = st.lists(st.lists(st.integers(0, 12), max_size=8), max_size=25)


@settings(max_examples=300, deadline=None)
@given(requests_strategy, st.integers(0, 15))
def test_equals_a_brute_force_lru(requests: list[list[int]], capacity: int) -> None:
    assert finite_prefix_hit(requests, capacity) == brute_force(requests, capacity)


@settings(max_examples=100, deadline=None)
@given(requests_strategy)
def test_a_cache_holding_everything_is_the_unbounded_one(requests: list[list[int]]) -> None:
    seen: set[int] = set()
    hit = 0
    for blocks in requests:
        n = 0
        while n < len(blocks) and blocks[n] in seen:
            n += 1
        hit += n
        seen.update(blocks)
    assert finite_prefix_hit(requests, 10_000)[0] == hit


def test_tail_blocks_go_first_and_a_miss_stops_the_prefix() -> None:
    cache = LruPrefixCache(3)
    assert cache.request(["a", "b", "c", "d"]) == 0  # 4 blocks, room for 3: d (the tail) goes
    assert len(cache) == 3
    assert cache.request(["a", "b", "c", "d"]) == 3
    assert cache.request(["x", "b"]) == 0  # x missing: b is not reachable as a prefix
    assert LruPrefixCache(0).request(["a"]) == 0 and LruPrefixCache(0).request(["a"]) == 0
    assert (cache.hit, cache.total) == (3, 10)


def test_capacities_parse_lists_and_refuse_nonsense() -> None:
    assert parse_capacities(["1000,2_000", "4000"]) == (1000, 2000, 4000)
    for bad in ("0", "-5", "lots"):
        with pytest.raises(ConfigError, match="--cache-capacity"):
            parse_capacities([bad])


def test_corpus_sweep_beside_the_unbounded_figure() -> None:
    stats = CorpusStats(capacities=(64, 6400, 10**9))
    WekaCorpus(DATA / "corpus.jsonl", on_trace=lambda _spot, trace: stats.add(trace))
    out = stats.summary()
    unbounded = out["theoretical_prefix_hit"]
    entries = out["finite_capacity_prefix_hit"]["capacities"]
    assert [e["capacity_tokens"] for e in entries] == [64, 6400, 10**9]
    assert all(e["blocks"] == unbounded["blocks"] for e in entries)
    ratios = [e["hit_blocks"] for e in entries]
    assert ratios == sorted(ratios)  # more room never hits less (LRU is a stack algorithm)
    assert entries[-1]["hit_blocks"] == unbounded["hit_blocks"]  # room for all: per-tree one
    assert entries[0]["hit_blocks"] < unbounded["hit_blocks"]  # one block of room: less
    text = render_corpus_stats(out, "t")
    assert "finite cache 64 tokens (1 blocks" in text


def test_a_run_walks_what_was_sent_in_send_order_all_lanes_one_cache() -> None:
    from agentic_bench.trace.conversations import conversation_steps
    from agentic_bench.trace.prefix_lru_run import finite_hits, sent_requests
    from agentic_bench.trace.weka.convert import weka_session

    traces: list[object] = []
    WekaCorpus(DATA / "corpus.jsonl", on_trace=lambda _spot, trace: traces.append(trace))
    sessions = [weka_session(t) for t in traces]  # type: ignore[arg-type]
    steps = [cs for cs in conversation_steps(sessions[0]) if cs.step.prompt is not None]
    assert len(steps) >= 2
    records = []
    # two passes of tree 0 on two lanes, interleaved in time; a failed and a non-tree record
    for lane, (sid, offset) in enumerate((("a#0", 0), ("a#1", 5))):
        for n, cs in enumerate(steps):
            records.append({"type": "step", "kind": "llm", "status": "ok",
                            "session_id": sid, "session_index": lane * len(sessions),
                            "conversation": cs.key, "request_index": cs.index,
                            "t_sent_ns": (offset + 10 * n) * 10**9, "prefix_blocks": 1,
                            **({"warmup": True} if n == 0 else {})})
    records.append({**records[-1], "status": "error", "t_sent_ns": 10**12})
    records.append({"type": "step", "kind": "llm", "status": "ok", "session_index": 0})
    sent = sent_requests(records)
    assert len(sent) == 2 * len(steps)
    assert [s.t_sent_ns for s in sent] == sorted(s.t_sent_ns for s in sent)

    def source(index: int) -> object:
        return sessions[index % len(sessions)]

    ids = [len(cs.step.prompt.hash_ids) for cs in steps]  # type: ignore[union-attr]
    measured = 2 * sum(ids[1:])  # each pass's warm-up request fills the cache, not counted
    big = finite_hits(sent, source, (10**9, 64))  # type: ignore[arg-type]
    roomy, tiny = big["capacities"]
    assert roomy["blocks"] == tiny["blocks"] == measured
    # the passes never share blocks (scoped by session id): room for all = each pass's own hits
    alone = finite_prefix_hit([cs.step.prompt.hash_ids for cs in steps], 10**9)  # type: ignore[union-attr]
    warm = finite_prefix_hit([steps[0].step.prompt.hash_ids], 10**9)  # type: ignore[union-attr]
    assert roomy["hit_blocks"] == 2 * (alone[0] - warm[0])
    assert tiny["hit_blocks"] < roomy["hit_blocks"]
