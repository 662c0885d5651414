"""MLPerf v6.1 Edge Agentic's performance phase: the recorded coding conversations, replayed.

One session per conversation of MLCommons' agentic JSONL (``agentic_coding_2.5h.jsonl``):
every client row (user or tool) is one request — the reference's pre-built, teacher-forced
history (:mod:`~agentic_bench.trace.mlcommons_agentic`) — issued after the previous
one completes, with no recorded tool delay injected. Each reply is scored at once against the
recorded assistant row that follows (:mod:`~agentic_bench.tasks.agentic_edge.inline_iou`) and
an ``inline_score`` record written.

Turns, two meanings: MLPerf's "turn" is one client row, i.e. one request (``mlperf_turn`` on
each record; ``turns`` in ``scores.json``); ours is one *user* turn, the user row and every tool
round that follows it (``turn`` on each record; turn latency). Both are reported.

Failures (mlcommons/endpoints ea332753 ``load_generator/agentic_inference_strategy.py``):
**any** failed request — an HTTP status other than 200 (a context overflow included), a
connection that fails before the response headers, the 600 s turn timeout — fails that turn and
every remaining turn of its conversation (625-629, 640-657; ``_handle_timeout`` 477-522), which
count as issued with no output and score 0 (``_abort_remaining_turns`` 572-597). A stream cut
after the server answered 200 (no ``[DONE]``, no ``finish_reason``, a malformed frame) is no
error there: the reply is what arrived (``endpoint_client/worker.py`` 405-407 and the stream
reader), so here such a reply is scored from what arrived and the conversation goes on — our
request record still says how the stream ended. An error event inside the 200 stream (a context
overflow the server could only send there) is dropped like any frame without choices
(``adapter_protocol.py`` 47, ``openai_msgspec_adapter.py`` 125-130): the request completes with
what arrived (its step record ``ok``, with ``stream_error``), the turn is observed and scored
from it (IoU 0 when nothing arrived), and the conversation goes on. A run stopped (interrupted)
records nothing for the turns it did not issue (``session.py`` 319-342, 336-340; 587-588).
The phase stops at MLPerf's 4-h cap (:mod:`.phase_cap`): the turn in flight then is recorded
issued and missing, the turns after it nothing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import ExecContext, SessionOutcome, SessionTicket
from agentic_bench.tasks.agentic_edge.inline_iou import has_ground_truth, score_turn, summarize
from agentic_bench.tasks.agentic_edge.phase_cap import CAP_IN_FLIGHT, PhaseCap, until_cap
from agentic_bench.tasks.agentic_edge.stream_errors import noting_stream_errors
from agentic_bench.tasks.recorder import SessionRecorder
from agentic_bench.trace.mlcommons_agentic import ClientRow, Conversation, request_body
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn
from agentic_bench.transport.sse import dropped_stream_error

TURN_TIMEOUT_S = 600.0
CATEGORY = "mlcommons-coding"
# our transport's names for a stream cut after a 200: a success with what arrived in MLPerf
STREAM_CUT = frozenset({"disconnect", "malformed", "incomplete"})


@dataclass
class CodingPhase:
    """The conversations of the run, by session id, and the per-turn timeout."""

    conversations: dict[str, Conversation] = field(default_factory=dict)
    turn_timeout_s: float = TURN_TIMEOUT_S
    tool_delays: bool = False  # wait each tool row's recorded delay (MLPerf: off)
    cap: PhaseCap = field(default_factory=PhaseCap)  # MLPerf's 4-h performance-phase cap


def as_session(conversation: Conversation) -> Session:
    """A runner session standing for one conversation (one turn per user row)."""
    users = sum(1 for row in conversation.rows if row.role == "user")
    return Session(schema_version=SCHEMA_VERSION, session_id=conversation.id, category=CATEGORY,
                   turns=[Turn(user="(recorded)") for _ in range(max(1, users))])


def recorded_row(row: ClientRow) -> dict[str, Any] | None:
    """The recorded assistant row that answers ``row`` (what the scorer compares against)."""
    if row.reply is None:
        return None
    return {"role": "assistant", "content": row.reply.content,
            "tool_calls": row.reply.tool_calls, "reasoning_content": row.reply.reasoning_content}


def _score_record(ticket: SessionTicket, row: ClientRow, *, issued: bool, answered: bool,
                  score: float | None, reason: str | None = None,
                  stream_error: str | None = None) -> dict[str, Any]:
    recorded = recorded_row(row)
    return {"type": "inline_score", "phase": "performance", "session_id": ticket.session_id,
            "conversation_id": row.conversation_id, "mlperf_turn": row.turn,
            "row_role": row.role, "issued": issued, "answered": answered,
            "scorable": recorded is not None and has_ground_truth(recorded, row.conversation_id),
            "paired": recorded is not None, "score": score,
            **({"reason": reason} if reason else {}),
            **({"stream_error": stream_error} if stream_error else {})}


async def run_conversation(ctx: ExecContext, ticket: SessionTicket, conversation: Conversation,
                           turn_timeout_s: float = TURN_TIMEOUT_S,
                           tool_delays: bool = False,
                           cap: PhaseCap | None = None) -> SessionOutcome:
    """Issue every client row of one conversation in order; score each reply inline.
    ``tool_delays``: wait a tool row's recorded ``delay_seconds`` before issuing it (MLPerf's
    ``inject_tool_delay``, ``agentic_inference_strategy.py`` 270-289), as a ``tool`` stage;
    ``cap``: the phase's duration cap (shared by its conversations; None: none)."""
    cap = cap if cap is not None else PhaseCap(limit_s=None)
    cap.start()
    turn_ctx = noting_stream_errors(ExecContext(
        ctx.transport, ctx.sink, ctx.t0_ns, replace(ctx.options, request_timeout_s=turn_timeout_s),
        transport_kind=ctx.transport_kind))
    # MLPerf's tool-call delta merge for every request of the conversation
    ticket = replace(ticket, request_context=replace(ticket.request_context,
                                                     tool_deltas="mlperf"))
    return await _conversation(ctx, turn_ctx, ticket, conversation, turn_timeout_s, tool_delays,
                               cap)


async def _conversation(ctx: ExecContext, turn_ctx: ExecContext, ticket: SessionTicket,
                        conversation: Conversation, turn_timeout_s: float,
                        tool_delays: bool, cap: PhaseCap) -> SessionOutcome:
    rec = SessionRecorder(turn_ctx, ticket)
    user_turn, step, aborted, capped = -1, 0, None, False
    for row in conversation.rows:
        if cap.reached():  # session.py 238-239, 325-326: nothing issued or skipped after it
            capped = True
            break
        if row.role == "user":
            if user_turn >= 0:
                rec.end_turn(user_turn)
            user_turn, step = user_turn + 1, 0
            rec.start_turn()
        if aborted is not None:
            ctx.sink(_score_record(ticket, row, issued=True, answered=False, score=None,
                                   reason=aborted))
            rec.turn_ok = False
            continue
        if tool_delays and row.role == "tool" and row.delay_s > 0:
            t0 = perf_counter_ns()
            await asyncio.sleep(row.delay_s)
            rec.stage("tool", max(user_turn, 0), step, t0, perf_counter_ns(),
                      executed="recorded delay", mlperf_turn=row.turn)
            step += 1
        body = request_body(row)
        result = await until_cap(cap, rec.llm(body, max(user_turn, 0), step,
                                              mlperf_turn=row.turn,
                                              conversation_id=row.conversation_id))
        step += 1
        if result is None:  # the cap came with this turn in flight: issued, never completed
            ctx.sink(_score_record(ticket, row, issued=True, answered=False, score=None,
                                   reason=CAP_IN_FLIGHT))
            rec.turn_ok, capped = False, True
            break
        recorded = recorded_row(row)
        if result.status == "cancelled":  # stopped: the turns not issued are not recorded
            ctx.sink(_score_record(ticket, row, issued=True, answered=False, score=None,
                                   reason=result.error_type))
            break
        arrived = result.ok or result.error_type in STREAM_CUT
        if not arrived:
            score = None
            aborted = (f"prior turn {row.turn} timed out after {turn_timeout_s:g} s"
                       if result.error_type == "timeout"
                       else f"prior turn {row.turn} errored: {result.error_type}")
        elif recorded is None:
            score = None
        else:
            score = score_turn(recorded, result.tool_calls, result.content, result.reasoning,
                               conversation_id=row.conversation_id)
        ctx.sink(_score_record(ticket, row, issued=True, answered=arrived, score=score,
                               reason=None if result.ok else result.error_type,
                               stream_error=dropped_stream_error(result)))
    if user_turn >= 0:
        rec.end_turn(user_turn)
    users = max(1, user_turn + 1)
    status = rec.end_session(users, "capped" if capped else None,
                             conversation_id=conversation.id,
                             **({"aborted": aborted} if aborted else {}),
                             **({"capped": CAP_IN_FLIGHT} if capped else {}))
    return SessionOutcome(ticket.session_id, status, users, rec.turns_ok, rec.requests,
                          rec.errors)


def inline_accuracy(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """MLPerf's ``scores.json`` body from the run's ``inline_score`` records, plus ours."""
    rows = [r for r in records if r.get("type") == "inline_score"]
    if not rows:
        return None
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for r in rows:  # a resumed, retried conversation replaces its earlier rows
        latest[(r["conversation_id"], int(r["mlperf_turn"]))] = r
    scores: dict[tuple[str, int, int], float | None] = {}
    issued = 0
    for (cid, turn), r in sorted(latest.items()):
        if not r["issued"] or not r["paired"]:
            continue
        issued += 1
        if r["scorable"]:
            scores[(cid, 1, turn)] = r["score"] if r["answered"] else None
    out = summarize(scores, issued)
    out["metric"] = "multiset IoU of normalized bash executables (MLPerf inline accuracy)"
    out["aborted_turns"] = sum(1 for r in latest.values() if r.get("reason", "").startswith(
        "prior turn"))
    out["errors_by_type"] = _count(  # the requests that failed (aborted turns sent none)
        r.get("reason") for r in latest.values() if r["issued"] and not r["answered"]
        and not str(r.get("reason", "")).startswith("prior turn")
        and r.get("reason") != CAP_IN_FLIGHT)
    # completed requests whose 200 stream carried an error event (dropped, as MLPerf does)
    out["stream_errors"] = sum(1 for r in latest.values() if r.get("stream_error"))
    # the turn in flight when the phase reached its cap (phase_cap.py): missing, scored 0
    out["capped_turns"] = sum(1 for r in latest.values() if r.get("reason") == CAP_IN_FLIGHT)
    return out


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        key = str(v or "error")
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))


def perf_gate_rows(inline: dict[str, Any]) -> list[dict[str, Any]]:
    """``compliance/checker.py`` 246-270: no dropped turn, every expected turn observed."""
    turns = inline["turns"]
    rule = "MLPerf v6.1 Edge Agentic: performance-run validity"
    return [
        {"name": "perf_missing_turns", "value": turns["missing"], "limit": 0, "op": "==",
         "ok": turns["missing"] == 0, "rule": rule},
        {"name": "perf_observed_turns", "value": turns["observed"], "limit": turns["expected"],
         "op": "==", "ok": turns["observed"] == turns["expected"], "rule": rule},
    ]
