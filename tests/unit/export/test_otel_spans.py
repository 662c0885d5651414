"""Records → spans (agentic_bench/export/otel_spans.py): one trace per session with the
traceparent's ids, the hierarchy (session/tree → turn → chat/tool/...; subagents as
invoke_agent under their parent; fan-out branches), the records' exact instants, the GenAI
attributes, failures, and runs cut short or resumed."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from agentic_bench.export.otel_spans import SpanSpec, run_spans
from agentic_bench.transport.traceparent import span_id, trace_id

STARTED = 1_700_000_000.25
BASE = round(STARTED * 1e9)


def run(key: str | None = "k1", started: float = STARTED) -> dict[str, Any]:
    rec: dict[str, Any] = {"type": "run", "benchmark": "replay", "started_at": started,
                           "endpoint": {"url": "http://gpu-box:8000/v1", "kind": "url",
                                        "model": "m1"}}
    return {**rec, "trace_key": key} if key else rec


def step(sid: str, turn: int, si: int, kind: str, sent: int, end: int, **extra: Any
         ) -> dict[str, Any]:
    return {"type": "step", "session_id": sid, "source_session": sid.split("#")[0],
            "session_index": 0, "worker": 0, "turn": turn, "step": si, "kind": kind,
            "status": "ok", "t_sent_ns": sent, "t_end_ns": end, **extra}


def llm(sid: str, turn: int, si: int, sent: int, end: int, **extra: Any) -> dict[str, Any]:
    return step(sid, turn, si, "llm", sent, end, t_scheduled_ns=sent - 100,
                t_first_token_ns=sent + 2_000_000, ttft_ms=2.0, tpot_ms=0.5,
                request_ms=(end - sent) / 1e6, input_tokens=10, output_tokens=5,
                cached_tokens=4, finish_reason="stop", http_status=200,
                itl_ms=[0.5, 0.5], **extra)


def turn(sid: str, n: int, start: int, end: int, status: str = "ok") -> dict[str, Any]:
    return {"type": "turn", "session_id": sid, "turn": n, "status": status,
            "t_start_ns": start, "t_end_ns": end, "latency_ms": (end - start) / 1e6}


def session(sid: str, start: int, end: int, status: str = "ok", **extra: Any
            ) -> dict[str, Any]:
    return {"type": "session", "session_id": sid, "source_session": sid.split("#")[0],
            "session_index": 0, "worker": 0, "category": None, "status": status,
            "t_scheduled_ns": start, "t_end_ns": end, "wall_time": STARTED + end / 1e9,
            **extra}


def plain_session(sid: str = "chat#0") -> list[dict[str, Any]]:
    return [
        llm(sid, 0, 0, 1_000_000, 9_000_000),
        step(sid, 0, 1, "tool", 9_100_000, 9_200_000, tool="get_weather",
             executed="simulated", recorded_ms=120.0),
        {**llm(sid, 0, 2, 9_300_000, 9_400_000), "status": "retried",
         "error_type": "http_500", "error": "HTTP 500: boom"},
        {**llm(sid, 0, 2, 9_500_000, 12_000_000), "attempt": 1},
        turn(sid, 0, 900_000, 12_100_000),
        # turn 1 fans out into two branches
        {**llm(sid, 1, 0, 13_000_000, 14_000_000), "branch": "3.0"},
        {**step(sid, 1, 0, "retrieve", 13_000_000, 13_500_000), "branch": "3.1"},
        {"type": "branch", "session_id": sid, "turn": 1, "branch": "3.0", "name": "a",
         "status": "ok", "t_start_ns": 12_900_000, "t_end_ns": 14_100_000},
        {"type": "branch", "session_id": sid, "turn": 1, "branch": "3.1", "name": "b",
         "status": "ok", "t_start_ns": 12_900_000, "t_end_ns": 13_600_000},
        {"type": "fanout", "session_id": sid, "turn": 1, "group": "3", "branches": 2,
         "status": "ok", "t_start_ns": 12_800_000, "t_end_ns": 14_200_000},
        turn(sid, 1, 12_500_000, 14_300_000),
        session(sid, 800_000, 14_400_000),
    ]


def tree_session(sid: str = "tree#1") -> list[dict[str, Any]]:
    spawned = {"type": "branch", "session_id": sid, "turn": 0, "spawned": True,
               "status": "ok", "llm_calls": 1}
    return [
        llm(sid, 0, 0, 1_000_000, 2_000_000, conversation=""),
        {**llm(sid, 0, 1, 3_000_000, 4_000_000), "branch": "agent_A"},
        {**llm(sid, 0, 0, 3_500_000, 4_500_000), "branch": "inner"},
        {**spawned, "branch": "inner", "name": "Explore", "parent": "agent_A",
         "t_start_ns": 3_400_000, "t_end_ns": 4_600_000},
        {**spawned, "branch": "agent_A", "name": "general-purpose", "parent": "",
         "t_start_ns": 2_500_000, "t_end_ns": 5_000_000},
        {"type": "join", "session_id": sid, "turn": 0, "step": 2, "conversation": "",
         "branches": ["agent_A"], "t_start_ns": 2_100_000, "t_end_ns": 5_000_000,
         "wait_ms": 2.9},
        turn(sid, 0, 900_000, 5_100_000),
        session(sid, 900_000, 5_200_000, branches=2, lane=0),
    ]


def by_name(spans: list[SpanSpec]) -> dict[str, list[SpanSpec]]:
    out: dict[str, list[SpanSpec]] = {}
    for s in spans:
        out.setdefault(s.name, []).append(s)
    return out


def test_one_trace_per_session_with_the_traceparent_ids() -> None:
    sessions = list(run_spans([run(), *plain_session(), *tree_session()]))
    assert [s[0].name for s in sessions] == ["session chat", "tree tree"]
    for spans, sid in zip(sessions, ("chat#0", "tree#1"), strict=True):
        root = spans[0]
        assert root.parent_id is None
        assert (root.trace_id, root.span_id) == (trace_id("k1", sid), span_id("k1", sid))
        assert {s.trace_id for s in spans} == {root.trace_id}
        assert len({s.span_id for s in spans}) == len(spans)
        ids = {s.span_id for s in spans}
        assert all(s.parent_id in ids for s in spans[1:])  # nothing hangs loose


def test_hierarchy_of_a_session_with_tools_retries_and_a_fanout() -> None:
    spans = next(run_spans([run(), *plain_session()]))
    n = by_name(spans)
    root, (t0, t1) = spans[0], n["turn 0"] + n["turn 1"]
    assert t0.parent_id == t1.parent_id == root.span_id
    chats = n["chat m1"]
    assert len(chats) == 4  # three calls, one of them tried twice: one span per attempt
    assert [c.parent_id for c in chats[:3]] == [t0.span_id] * 3
    tool = n["execute_tool get_weather"][0]
    assert tool.parent_id == t0.span_id and tool.kind == "internal"
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "get_weather"
    fanout, b0, b1 = n["fanout 3"][0], n["branch 3.0"][0], n["branch 3.1"][0]
    assert fanout.parent_id == t1.span_id and b0.parent_id == b1.parent_id == fanout.span_id
    assert chats[3].parent_id == b0.span_id
    assert n["retrieval"][0].parent_id == b1.span_id
    assert n["retrieval"][0].attributes["gen_ai.operation.name"] == "retrieval"


def test_subagents_are_invoke_agent_spans_under_their_parent() -> None:
    spans = next(run_spans([run(), *tree_session()]))
    n = by_name(spans)
    turn0 = n["turn 0"][0]
    outer, inner = n["invoke_agent general-purpose"][0], n["invoke_agent Explore"][0]
    assert outer.parent_id == turn0.span_id and inner.parent_id == outer.span_id
    assert outer.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert (outer.attributes["gen_ai.agent.name"], outer.attributes["gen_ai.agent.id"]) == \
        ("general-purpose", "agent_A")
    chats = sorted(n["chat m1"], key=lambda s: s.start_ns)
    assert [c.parent_id for c in chats] == [turn0.span_id, outer.span_id, inner.span_id]
    join = n["join"][0]
    assert join.parent_id == turn0.span_id
    assert join.attributes["agentic_bench.branches"] == ("agent_A",)
    assert spans[0].attributes["agentic_bench.branches"] == 2


def test_times_are_the_records_own_instants() -> None:
    spans = next(run_spans([run(), *plain_session()]))
    n = by_name(spans)
    first = n["chat m1"][0]
    assert (first.start_ns, first.end_ns) == (BASE + 1_000_000, BASE + 9_000_000)
    assert [(e.name, e.time_ns) for e in first.events] == \
        [("agentic_bench.first_token", BASE + 3_000_000)]
    assert (spans[0].start_ns, spans[0].end_ns) == (BASE + 800_000, BASE + 14_400_000)
    assert (n["turn 1"][0].start_ns, n["turn 1"][0].end_ns) == \
        (BASE + 12_500_000, BASE + 14_300_000)


def test_chat_span_attributes_follow_the_genai_conventions() -> None:
    chat = by_name(next(run_spans([run(), *plain_session()])))["chat m1"][0]
    a = chat.attributes
    assert chat.kind == "client" and chat.error is None
    assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.request.model"] == "m1"
    assert a["gen_ai.provider.name"] == "openai"
    assert (a["gen_ai.usage.input_tokens"], a["gen_ai.usage.output_tokens"]) == (10, 5)
    assert a["gen_ai.usage.cache_read.input_tokens"] == 4
    assert a["gen_ai.response.finish_reasons"] == ("stop",)
    assert a["gen_ai.response.time_to_first_chunk"] == pytest.approx(0.002)
    assert a["gen_ai.conversation.id"] == "chat#0"
    assert (a["server.address"], a["server.port"]) == ("gpu-box", 8000)
    assert a["http.response.status_code"] == 200
    assert a["agentic_bench.ttft_ms"] == 2.0 and a["agentic_bench.tpot_ms"] == 0.5
    assert "agentic_bench.itl_ms" not in a  # per-chunk lists stay in the records
    assert "agentic_bench.input_tokens" not in a  # not twice


def test_failed_calls_and_sessions_carry_error_status_and_type() -> None:
    recs = plain_session()
    recs[-1] = {**recs[-1], "status": "error"}
    spans = next(run_spans([run(), *recs]))
    retried = by_name(spans)["chat m1"][1]
    assert retried.error == "HTTP 500: boom"
    assert retried.attributes["error.type"] == "http_500"
    assert spans[0].error == "session error" and spans[0].attributes["error.type"] == "error"
    ok = by_name(spans)["chat m1"][2]
    assert ok.error is None and "error.type" not in ok.attributes


def test_the_same_records_give_the_same_spans_and_other_runs_other_traces() -> None:
    records = [run(), *plain_session(), *tree_session()]
    assert list(run_spans(records)) == list(run_spans(records))
    keyless = next(run_spans([run(key=None), *plain_session()]))
    again = next(run_spans([run(key=None), *plain_session()]))
    later = next(run_spans([run(key=None, started=STARTED + 60), *plain_session()]))
    assert keyless[0].trace_id == again[0].trace_id != later[0].trace_id
    assert keyless[0].trace_id != trace_id("k1", "chat#0")


def test_a_run_cut_short_and_resumed() -> None:
    cut = [llm("cut#2", 0, 0, 1_000_000, 2_000_000)]  # no turn, no session record
    resumed = [{**r, "t_sent_ns": r["t_sent_ns"] + 1} for r in cut]
    out = list(run_spans([run("k1"), *cut, run("k2", STARTED + 100), *resumed,
                          *plain_session()]))
    assert [s[0].name for s in out] == ["session cut", "session chat", "session cut"]
    first, _, second = out
    assert first[0].attributes["agentic_bench.complete"] is False
    assert first[1].parent_id == first[0].span_id  # no turn span: under the session
    assert (first[0].start_ns, first[0].end_ns) == (BASE + 1_000_000, BASE + 2_000_000)
    assert first[0].trace_id == trace_id("k1", "cut#2")
    assert second[0].trace_id == trace_id("k2", "cut#2")  # each segment its own key
    assert second[1].start_ns == round((STARTED + 100) * 1e9) + 1_000_001


def test_records_without_a_run_record_are_refused() -> None:
    with pytest.raises(ValueError, match="run"):
        list(run_spans(plain_session()))


def test_other_records_are_ignored() -> None:
    extra = [{"type": "sample", "session_id": "chat#0", "score": 1},
             {"type": "lanes", "lanes": 1}, {"type": "segment", "duration_s": 1.0}]
    assert list(run_spans([run(), *plain_session(), *extra])) == \
        list(run_spans([run(), *plain_session()]))


def test_every_convention_name_is_one_the_semantic_conventions_define() -> None:
    """The attribute names outside ``agentic_bench.*`` are the GenAI, server, HTTP and error
    attributes of opentelemetry-semantic-conventions (0.66b2), spelled as it spells them."""
    semconv = pytest.importorskip("opentelemetry.semconv._incubating.attributes.gen_ai_attributes")
    from opentelemetry.semconv.attributes import (
        error_attributes,
        http_attributes,
        server_attributes,
    )

    known = {value for module in (semconv, error_attributes, http_attributes, server_attributes)
             for name, value in vars(module).items() if name.isupper() and isinstance(value, str)}
    spans = [s for batch in run_spans([run(), *plain_session(), *tree_session()]) for s in batch]
    used = {k for s in spans for k in s.attributes if not k.startswith("agentic_bench.")}
    assert len(used) >= 15 and used <= known, used - known
    operations = {s.attributes.get("gen_ai.operation.name") for s in spans} - {None}
    assert operations == {"chat", "execute_tool", "retrieval", "invoke_agent"}
    with warnings.catch_warnings():  # the enum is marked moved to semantic-conventions-genai
        warnings.simplefilter("ignore")
        assert operations <= {m.value for m in semconv.GenAiOperationNameValues}
