"""Mid-trajectory starts (AIPerf 0.13 src/aiperf/timing/trajectory_source.py and
timing/strategies/agentic_replay.py) and the theoretical prefix hit
(src/aiperf/dataset/loader/weka_metric_prepass.py), transcribed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_bench.trace.conversations import ROOT, conversation_steps, prefix_hits, span_s
from agentic_bench.trace.trajectory import draw_start_s, plan
from agentic_bench.trace.weka import WekaCorpus, weka_session
from agentic_bench.trace.weka.stats import trace_prefix_hit

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"


def tree_a():
    return weka_session(WekaCorpus(DATA / "corpus.jsonl").trace(0))


def test_start_is_drawn_in_the_range_per_tree_and_lane() -> None:
    """_build_timestamped_trajectory: t* uniform in [start + min × duration, start + max ×
    duration] of the tree's request starts (subagents' included), seeded per (seed, trace,
    lane) (_seed_for_trace_lane)."""
    session = tree_a()
    first, last = span_s(session)
    assert (first, last) == (0.0, 1.5)
    starts = {lane: draw_start_s(session, 0.25, 0.75, 42, lane) for lane in range(20)}
    assert all(0.375 <= t <= 1.125 for t in starts.values())
    assert len(set(starts.values())) == 20  # lanes of the same tree start apart
    assert draw_start_s(session, 0.25, 0.75, 42, 3) == starts[3]  # reproducible
    assert draw_start_s(session, 0.25, 0.75, 43, 3) != starts[3]
    assert draw_start_s(session, 0.0, 0.0, 42, 0) == 0.0
    assert draw_start_s(session, 0.5, 0.5, 42, 0) == 0.75


def test_history_warm_up_and_first_offsets() -> None:
    """_snapshot_for: each conversation alive at t* (a request before it and one at or after
    it) warms its last request before t*; the first request at or after t* goes at its offset
    from t*; warmup_turn_index is None for a stream with nothing before t*."""
    session = tree_a()
    at = plan(session, 0.6)
    assert at.streams[ROOT].history == 2 and at.streams[ROOT].next_s == 0.8
    assert at.warmed(ROOT)
    assert at.streams["agent_B"].history == 2 and at.streams["agent_B"].next_s is None
    assert not at.warmed("agent_B")  # done by t*: nothing to warm, nothing to send
    assert at.warmed("agent_A") and at.warmed("agent_C")
    assert at.warmup_requests(1) == 3 and at.warmup_requests(10) == 2 + 1 + 1
    # _leading_idle_shift_ms: one shift for the lane so its earliest offset is at most the cap
    assert at.shift_s(None) == 0.0
    assert at.shift_s(0.05) == pytest.approx(0.8 - 0.6 - 0.05)


def test_theoretical_prefix_hit_one_cache_per_tree() -> None:
    """compute_shared_prefix_cache_metrics: one seen-set per trace, requests in recorded time
    order; a request's hits are its leading ids already seen (stop at the first miss)."""
    session = tree_a()
    hits = prefix_hits(session)
    order = sorted(conversation_steps(session), key=lambda cs: cs.step.start_s or 0.0)
    seen: set[int] = set()
    for cs in order:
        ids = cs.step.prompt.hash_ids
        n = next((i for i, h in enumerate(ids) if h not in seen), len(ids))
        assert hits[(cs.key, cs.index)] == (n, len(ids))
        seen.update(ids)
    assert hits[(ROOT, 1)] == (4, 6) and hits[("agent_B", 1)] == (2, 3)
    total = sum(h for h, _ in hits.values()), sum(b for _, b in hits.values())
    assert trace_prefix_hit(WekaCorpus(DATA / "corpus.jsonl").trace(0)) == total
