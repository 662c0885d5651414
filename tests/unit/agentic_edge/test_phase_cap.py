"""#43 Edge item 2: the performance phase's 4-h cap, as mlcommons/endpoints ea332753 applies it.

Transcription of the reference rule (files under ``src/inference_endpoint/`` unless rooted):

* the cap is 4 h: ``examples/11_Edge_Agentic_Example/online_edge_full_run.yaml`` 95-97
  ``max_duration_ms: 14400000``; ``config/rulesets/mlcommons/rules.py`` 323 (the ruleset's
  ``max_duration_ms_valid``), a user value winning (195-197); 0 = none
  (``config/runtime_settings.py`` 191-194);
* armed when the performance phase starts, for that phase only (``commands/benchmark/
  execute.py`` 696-727, 918-926); at the cap ``stop_current_phase`` (906-916,
  ``load_generator/session.py`` 395-413) stops issuing and skips the drain (527-550);
* the request in flight then has an ISSUED and no COMPLETE in the phase; turns after it are
  neither issued nor registered skipped (session.py 238-239, 325-326, 705-718);
* the inline scorer (``evaluation/scoring.py`` 664-736) counts the scorable issued turns as
  expected, the ones with an output as observed, ``missing`` = the difference, each missing
  turn scored 0; the compliance check (``compliance/checker.py`` 246-270) fails on
  ``missing != 0``.

Before this change our phase had no cap: every row of every conversation was issued.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import ExecContext, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.tasks.agentic_edge.coding_phase import (
    as_session,
    inline_accuracy,
    perf_gate_rows,
    run_conversation,
)
from agentic_bench.tasks.agentic_edge.phase_cap import (
    CAP_IN_FLIGHT,
    PERF_MAX_DURATION_S,
    PhaseCap,
)
from agentic_bench.trace.mlcommons_agentic import Conversation, load_conversations
from agentic_bench.transport import ChatResult

CALL = {"id": "k", "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": "grep -rn x ."})}}


def _conversations(tmp_path: Path, ids: tuple[str, ...], tools: int) -> list[Conversation]:
    rows: list[dict[str, Any]] = []
    for cid in ids:
        turn = 1
        rows.append({"conversation_id": cid, "turn": turn, "role": "user", "content": "fix",
                     "system": "you code"})
        for _ in range(tools):
            rows.append({"conversation_id": cid, "turn": turn + 1, "role": "assistant",
                         "tool_calls": [CALL]})
            rows.append({"conversation_id": cid, "turn": turn + 2, "role": "tool",
                         "tool_results": [{"tool_call_id": "k", "content": "ok"}]})
            turn += 2
        rows.append({"conversation_id": cid, "turn": turn + 1, "role": "assistant",
                     "tool_calls": [CALL]})
    path = tmp_path / "convs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return load_conversations(path)


class Clocked:
    """Answers with the recorded call; each reply moves the fake clock by ``step_ns``; request
    ``hang_at`` (0-based) never answers."""

    def __init__(self, now: list[int], step_ns: int, hang_at: int | None = None) -> None:
        self.now, self.step_ns, self.hang_at = now, step_ns, hang_at
        self.bodies: list[dict[str, Any]] = []
        self.cancelled = False

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        index = len(self.bodies)
        self.bodies.append(body)
        if index == self.hang_at:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        self.now[0] += self.step_ns
        t = perf_counter_ns()
        result = ChatResult(t_sent_ns=t, t_first_token_ns=t + 10, t_end_ns=t + 20,
                            token_times_ns=[t + 10], output_tokens=1)
        result.tool_calls = [{"id": "x", "name": "bash",
                              "arguments": '{"command": "grep -rn y ."}'}]
        return result

    async def aclose(self) -> None:
        return None


def _phase(conversations: list[Conversation], transport: Clocked,
           cap: PhaseCap) -> list[dict[str, Any]]:
    """The conversations one after the other (single-stream), sharing the phase's cap."""
    records: list[dict[str, Any]] = []
    ctx = ExecContext(transport, records.append, perf_counter_ns(), ReplayOptions(model="m"))

    async def run() -> None:
        for i, conv in enumerate(conversations):
            ticket = SessionTicket(i, as_session(conv), perf_counter_ns())
            await run_conversation(ctx, ticket, conv, turn_timeout_s=600.0, cap=cap)

    asyncio.run(run())
    return records


def test_the_cap_is_the_references_4_hours_and_on_by_default() -> None:
    from agentic_bench.tasks.agentic_edge.coding_phase import CodingPhase
    from agentic_bench.tasks.agentic_edge.options import AgenticEdgeOptions

    assert PERF_MAX_DURATION_S == 14_400_000 / 1000  # max_duration_ms, yaml 97 / rules.py 323
    assert CodingPhase().cap.limit_s == PERF_MAX_DURATION_S
    assert AgenticEdgeOptions().perf_max_duration == PERF_MAX_DURATION_S


def test_no_turn_is_issued_once_the_cap_is_reached(tmp_path: Path) -> None:
    """Fake clock: each reply takes 3,000 s, so the 5th completes at 15,000 s > 14,400 s;
    nothing is in flight then, the later turns and the next conversation are not issued and
    leave no record (session.py 238-239, 325-326), and nothing is missing."""
    now = [0]
    convs = _conversations(tmp_path, ("a", "b"), tools=6)  # 7 client rows each
    transport = Clocked(now, step_ns=3_000 * 10**9)
    records = _phase(convs, transport, PhaseCap(clock=lambda: now[0]))
    assert len(transport.bodies) == 5
    scores = [r for r in records if r["type"] == "inline_score"]
    assert [(r["conversation_id"], r["mlperf_turn"]) for r in scores] == [
        ("a", 1), ("a", 3), ("a", 5), ("a", 7), ("a", 9)]
    inline = inline_accuracy(records)
    assert inline is not None
    assert inline["turns"] == {"issued": 5, "expected": 5, "observed": 5, "missing": 0,
                               "scored": 5}
    sessions = [r for r in records if r["type"] == "session"]
    assert [s["status"] for s in sessions] == ["capped", "capped"]
    assert sessions[1]["requests"] == 0


def test_the_turn_in_flight_at_the_cap_is_counted_missing(tmp_path: Path) -> None:
    """The cap fires with request 3 in flight: it is issued, expected and missing, scored 0
    (scoring.py 694-736) — a shown record, not a dropped one — and the compliance row
    ``no_dropped_turns`` fails (checker.py 252-264); nothing after it is issued."""
    convs = _conversations(tmp_path, ("a", "b"), tools=6)
    transport = Clocked([0], step_ns=0, hang_at=2)
    records = _phase(convs, transport, PhaseCap(limit_s=0.3))
    assert len(transport.bodies) == 3 and transport.cancelled
    capped = [r for r in records if r["type"] == "inline_score" and r.get("reason")
              == CAP_IN_FLIGHT]
    assert [(r["conversation_id"], r["mlperf_turn"], r["issued"], r["answered"])
            for r in capped] == [("a", 5, True, False)]
    inline = inline_accuracy(records)
    assert inline is not None
    assert inline["turns"] == {"issued": 3, "expected": 3, "observed": 2, "missing": 1,
                               "scored": 3}
    assert inline["score"] == round(2 / 3, 4)  # the missing turn scores 0
    assert inline["capped_turns"] == 1 and inline["errors_by_type"] == {}
    rows = {r["name"]: r["ok"] for r in perf_gate_rows(inline)}
    assert rows == {"perf_missing_turns": False, "perf_observed_turns": False}
    step = [r for r in records if r["type"] == "step"][-1]
    assert step["status"] == "cancelled"  # the request in flight is cancelled here
    assert not [r for r in records if r.get("conversation_id") == "b"
                and r["type"] == "inline_score"]


def test_no_cap_issues_everything(tmp_path: Path) -> None:
    """``--perf-max-duration 0`` (runtime_settings.py 191-194: 0 = none)."""
    now = [0]
    convs = _conversations(tmp_path, ("a",), tools=6)
    transport = Clocked(now, step_ns=3_000 * 10**9)
    _phase(convs, transport, PhaseCap(limit_s=None, clock=lambda: now[0]))
    assert len(transport.bodies) == 7


def test_another_cap_is_a_departure_by_the_rule() -> None:
    from tests.unit.test_mlperf_departure_rule import _edge, _edge_departures

    gone = _edge_departures(_edge("--perf-max-duration", "0"))
    assert len(gone) == 1 and gone[0].startswith(
        "--perf-max-duration 0 (MLPerf configuration: 14400;")
    assert _edge_departures(_edge()) == []


def test_summary_txt_shows_the_capped_turn(tmp_path: Path) -> None:
    from agentic_bench.reporting.summary_text import _accuracy_lines

    convs = _conversations(tmp_path, ("a",), tools=6)
    records = _phase(convs, Clocked([0], step_ns=0, hang_at=1), PhaseCap(limit_s=0.2))
    inline = inline_accuracy(records)
    assert inline is not None
    line = next(x for x in _accuracy_lines({"inline": inline}) if x.startswith("Inline IoU"))
    assert "missing 1" in line and "1 in flight at the performance phase's duration cap" in line
