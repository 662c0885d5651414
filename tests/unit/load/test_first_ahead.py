"""#46 item 2: each lane's first tree's first request is written before the measured phase's
clock starts (load/lanes.py ``write_ahead``, replay/prompt_ahead.py ``write_first``), and a
later tree is drawn ahead with its first request written meanwhile, a placeholder where the
taking lane's cache-bust marker goes (load/next_trees.py). The trees each lane gets and every
request's bytes are those of a run without it; a first request written ahead is recorded
``prompt_ahead`` and not late; the placeholder never goes out."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from agentic_bench.contracts import SessionOutcome, SessionSource, SessionTicket
from agentic_bench.load.lanes import LaneRunner
from agentic_bench.options.load import LaneSpec
from agentic_bench.options.replay import ReplayOptions, SynthesisOptions, ThinkPolicy
from agentic_bench.replay.prompt_ahead import BuiltPrompt, WrittenFirst
from agentic_bench.replay.trace_replayer import TraceReplayer
from agentic_bench.replay.tree import Synthesis
from agentic_bench.synthesis.marker import MARKER_PLACEHOLDER
from agentic_bench.synthesis.vocabulary import word_list
from agentic_bench.trace.model import LlmStep, Session
from agentic_bench.trace.weka.convert import weka_session
from agentic_bench.trace.weka.model import WekaTrace
from agentic_bench.transport.prepared import PreparedBody
from agentic_bench.transport.request import RequestContext
from tests.unit.replay.test_prompt_ahead import CapturingClient


def tree(name: str, requests: int, gap_s: float, base: int) -> Session:
    rows, t = [], 0.0
    for k in range(requests):
        size = base + 640 * k
        rows.append({"t": round(t, 6), "type": "s", "model": "m", "in": size, "out": 8,
                     "hash_ids": list(range(base, base + size // 64)), "api_time": 0.001})
        t += 0.001 + gap_s
    trace = {"id": name, "models": ["m"], "block_size": 64, "hash_id_scope": "local",
             "tool_tokens": 100, "system_tokens": 100, "requests": rows}
    return weka_session(WekaTrace.model_validate(trace))


# lane 0's first tree is short, lane 1's long: lane 0 draws the third tree, whatever the hook
TREES = [tree("short", 2, 0.05, 1000), tree("long", 4, 0.03, 2000), tree("next", 3, 0.01, 3000)]


def run_lanes(write_ahead: bool, client: CapturingClient | None = None
              ) -> tuple[list[dict[str, Any]], list[bytes]]:
    records: list[dict[str, Any]] = []
    client = client or CapturingClient()
    synthesis = Synthesis(SynthesisOptions(), words=word_list())
    options = ReplayOptions(model="m", think=ThinkPolicy.parse("recorded"))
    replayer = TraceReplayer(client, records.append, options, 0, synthesis)

    async def execute(ticket: SessionTicket) -> SessionOutcome:
        # as session_executor with --session-header: each call renders an equal new context
        context = RequestContext(headers=(("X-Session-ID", ticket.session_id),))
        return await replayer.run(replace(ticket, request_context=context))

    runner = LaneRunner(LaneSpec(lanes=2), SessionSource(len(TREES), TREES.__getitem__),
                        execute, records.append, run_id="fixed", write_ahead=write_ahead)
    asyncio.run(runner.run())
    return records, [payload for payload, _ in client.sent]


def requests(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("kind") == "llm"]


def test_the_hook_changes_neither_the_trees_each_lane_gets_nor_the_bodies() -> None:
    on, sent_on = run_lanes(True)
    off, sent_off = run_lanes(False)

    def lanes(records: list[dict[str, Any]]) -> list[tuple[int, int]]:
        return sorted((r["lane"], r["session_index"]) for r in records
                      if r.get("type") == "session")

    assert lanes(on) == lanes(off) == [(0, 0), (0, 2), (1, 1)]
    assert sorted(sent_on) == sorted(sent_off) and len(sent_on) == 9
    assert all(r["status"] == "ok" for r in requests(on))


def test_every_trees_first_request_is_written_ahead_and_not_late() -> None:
    records, sent = run_lanes(True)
    firsts = {r["session_id"]: r for r in requests(records) if r["request_index"] == 0}
    assert len(firsts) == 3  # trees 0 and 1 are the lanes' first trees, tree 2 drawn ahead
    for rec in firsts.values():
        assert rec["prompt_ahead"] is True
        assert "prompt_late" not in rec and rec["prompt_build_ms"] > 0
    assert not any(MARKER_PLACEHOLDER.rstrip("\n").encode() in payload for payload in sent)
    assert sum(b"[rid:" in payload for payload in sent) == 9  # every request bears a marker


def test_without_the_hook_every_first_request_is_written_when_due() -> None:
    records, _ = run_lanes(False)
    assert [r["prompt_ahead"] for r in requests(records) if r["request_index"] == 0] \
        == [False] * 3


def test_a_first_request_written_ahead_goes_as_its_ready_bytes() -> None:
    client = CapturingClient()
    run_lanes(True, client)
    assert len(client.sent) == 9 and all(pre for _, pre in client.sent)


def test_a_later_trees_blocks_are_written_ahead_and_its_body_when_due() -> None:
    records: list[dict[str, Any]] = []
    synthesis = Synthesis(SynthesisOptions(), words=word_list())
    options = ReplayOptions(model="m", think=ThinkPolicy.parse("recorded"))
    replayer = TraceReplayer(CapturingClient(), records.append, options, 0, synthesis)
    left: list[tuple[int, int]] = []  # (tree, its first request's blocks not yet written)

    async def execute(ticket: SessionTicket) -> SessionOutcome:
        outcome = await replayer.run(ticket)
        lane = ticket.lane
        if lane is not None and lane.ahead_blocks:  # (a writing stopped mid-way never gets here)
            written = lane.written
            assert isinstance(written, WrittenFirst) and written.tree.writer is not None
            step = ticket.session.turns[0].steps[0]
            assert isinstance(step, LlmStep) and step.prompt is not None
            left.append((ticket.index, len(written.tree.writer.unwritten(step.prompt.hash_ids))))
        return outcome

    runner = LaneRunner(LaneSpec(lanes=2), SessionSource(len(TREES), TREES.__getitem__),
                        execute, records.append, run_id="fixed", write_ahead=True)
    asyncio.run(runner.run())
    # tree 2 was drawn while lane 0's tree ran, and its blocks all written during its wait
    assert left == [(2, 0)]
    later = [r for r in requests(records)
             if r["session_id"].endswith("#2") and r["request_index"] == 0]
    assert len(later) == 1 and later[0]["prompt_ahead"] is True  # its body too
    assert "prompt_late" not in later[0]


def test_without_cache_bust_a_later_tree_goes_as_written_with_no_marker() -> None:
    """No marker to put in: the body written ahead is the body sent, byte for byte as a run
    without the hook sends it."""
    def run(write_ahead: bool) -> tuple[list[dict[str, Any]], list[tuple[bytes, bool]]]:
        records: list[dict[str, Any]] = []
        client = CapturingClient()
        synthesis = Synthesis(SynthesisOptions(), words=word_list())
        options = ReplayOptions(model="m", think=ThinkPolicy.parse("recorded"))
        replayer = TraceReplayer(client, records.append, options, 0, synthesis)
        runner = LaneRunner(LaneSpec(lanes=2, cache_bust=False),
                            SessionSource(len(TREES), TREES.__getitem__), replayer.run,
                            records.append, run_id="fixed", write_ahead=write_ahead)
        asyncio.run(runner.run())
        return records, client.sent

    on, sent_on = run(True)
    _, sent_off = run(False)
    assert sorted(p for p, _ in sent_on) == sorted(p for p, _ in sent_off)
    assert not any(b"[rid:" in p for p, _ in sent_on) and all(pre for _, pre in sent_on)
    assert all(r["prompt_ahead"] for r in requests(on) if r["request_index"] == 0)


def test_a_marker_of_another_length_is_put_in_the_messages_and_encoded_at_the_send() -> None:
    built = BuiltPrompt(0, 0, PreparedBody(
        {"model": "m", "messages": [{"role": "system", "content": "tools"},
                                    {"role": "user", "content": MARKER_PLACEHOLDER + "hello"}]},
        b"(stale bytes)", object(), RequestContext()), {}, 5, 10, True)
    swapped = built.with_marker(MARKER_PLACEHOLDER, None)  # (no marker: cache bust off)
    assert not isinstance(swapped.body, PreparedBody)  # its bytes: encoded at the send
    assert swapped.body["messages"][1]["content"] == "hello"
    assert built.body["messages"][1]["content"] == MARKER_PLACEHOLDER + "hello"  # a copy
    assert swapped.build_ns >= built.build_ns


def test_trees_drawn_ahead_and_never_run_are_not_counted() -> None:
    synthesis = Synthesis(SynthesisOptions(), words=word_list())
    options = ReplayOptions(model="m", think=ThinkPolicy.parse("recorded"))
    replayer = TraceReplayer(CapturingClient(), [].append, options, 0, synthesis)
    # one lane: the measured phase is over before its first tree (0.05 s of waits) ends
    spec = LaneSpec(lanes=1, duration_s=0.01, cut=True, grace_s=0.0)
    runner = LaneRunner(spec, SessionSource(len(TREES), TREES.__getitem__),
                        replayer.run, None, run_id="fixed", write_ahead=True)
    stats = asyncio.run(runner.run())
    assert stats.issued == 1 and sum(stats.passes.values()) == 1
    assert runner.lanes_record()["wrapped"] == 0


def test_a_lane_draws_ahead_only_once_its_trees_first_request_has_its_reply(monkeypatch) -> None:
    """Not at the tree's start: at the measured phase's first instant every lane sends, and
    drawing then took CPU the server on the same host needed (load/next_trees.py)."""
    from agentic_bench.load.next_trees import NextTrees

    records: list[dict[str, Any]] = []
    seen: list[tuple[int, list[str]]] = []  # (lane, the sessions answered so far)
    real = NextTrees.draw_ahead

    def draw_ahead(self: NextTrees, lane: int) -> None:
        seen.append((lane, sorted({r["session_id"] for r in requests(records)})))
        real(self, lane)

    monkeypatch.setattr(NextTrees, "draw_ahead", draw_ahead)
    synthesis = Synthesis(SynthesisOptions(), words=word_list())
    options = ReplayOptions(model="m", think=ThinkPolicy.parse("recorded"))
    replayer = TraceReplayer(CapturingClient(), records.append, options, 0, synthesis)
    runner = LaneRunner(LaneSpec(lanes=2), SessionSource(len(TREES), TREES.__getitem__),
                        replayer.run, records.append, run_id="fixed", write_ahead=True)
    asyncio.run(runner.run())
    assert len(seen) == 3  # one per tree started
    for k, (_, answered) in enumerate(seen, 1):  # the k-th draw: after k trees' first replies
        assert len(answered) >= k, f"draw {k} ahead with only {answered} answered"
