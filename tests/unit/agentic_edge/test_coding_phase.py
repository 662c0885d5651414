"""The performance phase's conversation loop with a scripted transport: what a timeout, another
error, a stream cut after a 200 and recorded tool delays do (rules of mlcommons/endpoints
ea332753 ``load_generator/agentic_inference_strategy.py``: any failed turn aborts the rest of
its conversation, 625-629, 640-657, 477-522 and 572-597; a stream cut after the server answered
is a success with what arrived)."""

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
from agentic_bench.trace.mlcommons_agentic import load_conversations
from agentic_bench.transport import ChatResult


def _call(i: int) -> dict[str, Any]:
    return {"id": f"k{i}", "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": f"grep -rn x {i}"})}}


def _conversation_file(tmp_path: Path, tools: int, delay: float = 0.0) -> Path:
    rows: list[dict[str, Any]] = [{"conversation_id": "c", "turn": 1, "role": "user",
                                   "content": "fix it", "system": "you code"}]
    for i in range(tools):
        call = _call(i)
        rows.append({"conversation_id": "c", "turn": len(rows) + 1, "role": "assistant",
                     "tool_calls": [call]})
        rows.append({"conversation_id": "c", "turn": len(rows) + 1, "role": "tool",
                     "delay_seconds": delay,
                     "tool_results": [{"tool_call_id": call["id"], "content": "ok"}]})
    rows.append({"conversation_id": "c", "turn": len(rows) + 1, "role": "assistant",
                 "content": "done"})
    path = tmp_path / "conv.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


class Scripted:
    """Answers request k with ``script[k]``: 'grep' (the recorded call), 'timeout', 'error'."""

    def __init__(self, script: list[str]) -> None:
        self.script = script
        self.bodies: list[dict[str, Any]] = []

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        kind = self.script[len(self.bodies)] if len(self.bodies) < len(self.script) else "grep"
        self.bodies.append(body)
        t = perf_counter_ns()
        result = ChatResult(t_sent_ns=t, t_first_token_ns=t + 10, t_end_ns=t + 20,
                            token_times_ns=[t + 10], output_tokens=1)
        if kind == "timeout":
            return result.fail("timeout", f"no reply within {timeout_s} s")
        if kind == "error":
            return result.fail("context_overflow", "maximum context length is 4096 tokens")
        if kind == "http500":
            return result.fail("http_status", "HTTP 500: boom")
        if kind == "cut":  # the recorded call arrived, then the stream ended without [DONE]
            result.tool_calls = [{"id": "x", "name": "bash",
                                  "arguments": '{"command": "grep -rn y ."}'}]
            return result.fail("disconnect", "stream ended without [DONE]")
        result.tool_calls = [{"id": "x", "name": "bash",
                              "arguments": '{"command": "grep -rn y ."}'}]
        return result

    async def aclose(self) -> None:
        return None


def _run(path: Path, transport: Scripted, **kw: Any) -> list[dict[str, Any]]:
    conv = load_conversations(path)[0]
    records: list[dict[str, Any]] = []
    ctx = ExecContext(transport, records.append, perf_counter_ns(), ReplayOptions(model="m"))
    ticket = SessionTicket(0, as_session(conv), perf_counter_ns())
    asyncio.run(run_conversation(ctx, ticket, conv, **kw))
    return records


def test_every_client_row_is_one_request_scored_inline(tmp_path: Path) -> None:
    transport = Scripted([])
    records = _run(_conversation_file(tmp_path, 3), transport, turn_timeout_s=5.0)
    assert len(transport.bodies) == 4  # user row + 3 tool rows
    assert transport.bodies[0]["max_completion_tokens"] == 1024 and "tool_choice" not in \
        transport.bodies[0]
    inline = inline_accuracy(records)
    assert inline is not None
    # grep vs grep: IoU 1 on the three tool-calling turns; the last turn's recorded answer
    # is text (no executable), so it is excluded
    assert inline["score"] == 1.0
    assert inline["turns"] == {"issued": 4, "expected": 3, "observed": 3, "missing": 0,
                               "scored": 3}
    assert all(r["ok"] for r in perf_gate_rows(inline))


def test_a_timeout_aborts_the_rest_of_the_conversation(tmp_path: Path) -> None:
    transport = Scripted(["grep", "timeout"])
    records = _run(_conversation_file(tmp_path, 3), transport, turn_timeout_s=5.0)
    assert len(transport.bodies) == 2  # nothing issued after the timed-out turn
    inline = inline_accuracy(records)
    assert inline is not None
    assert inline["turns"] == {"issued": 4, "expected": 3, "observed": 1, "missing": 2,
                               "scored": 3}
    assert inline["aborted_turns"] == 2 and inline["errors_by_type"]["timeout"] == 1
    rows = {r["name"]: r["ok"] for r in perf_gate_rows(inline)}
    assert rows == {"perf_missing_turns": False, "perf_observed_turns": False}
    session = next(r for r in records if r["type"] == "session")
    assert session["status"] == "error" and "timed out" in session["aborted"]


def test_any_failed_turn_aborts_the_rest_of_the_conversation(tmp_path: Path) -> None:
    """#31 Edge item 1: agentic_inference_strategy.py 640-657 aborts the remaining turns on any
    errored result, not only a timeout; each counts as issued, missing and scored 0."""
    transport = Scripted(["error"])
    records = _run(_conversation_file(tmp_path, 3), transport)
    assert len(transport.bodies) == 1
    inline = inline_accuracy(records)
    assert inline is not None
    assert inline["turns"] == {"issued": 4, "expected": 3, "observed": 0, "missing": 3,
                               "scored": 3}
    assert inline["score"] == 0.0 and inline["aborted_turns"] == 3
    assert inline["errors_by_type"] == {"context_overflow": 1}
    assert not any(r["ok"] for r in perf_gate_rows(inline))
    session = next(r for r in records if r["type"] == "session")
    assert "prior turn 1 errored: context_overflow" in session["aborted"]
    transport = Scripted(["grep", "http500"])
    inline = inline_accuracy(_run(_conversation_file(tmp_path, 3), transport))
    assert len(transport.bodies) == 2 and inline is not None
    assert (inline["turns"]["observed"], inline["turns"]["missing"]) == (1, 2)
    assert inline["score"] == round(1 / 3, 4)


def test_a_stream_cut_after_a_200_is_scored_from_what_arrived(tmp_path: Path) -> None:
    """No [DONE] or finish_reason after a 200 is no error in the reference (its worker keeps
    what arrived): the reply is scored and the conversation goes on."""
    transport = Scripted(["cut"])
    inline = inline_accuracy(_run(_conversation_file(tmp_path, 3), transport))
    assert len(transport.bodies) == 4 and inline is not None
    assert inline["turns"]["missing"] == 0 and inline["score"] == 1.0  # every grep matches


def test_recorded_tool_delays_only_when_asked(tmp_path: Path) -> None:
    path = _conversation_file(tmp_path, 2, delay=0.01)
    plain = _run(path, Scripted([]))
    assert not [r for r in plain if r.get("kind") == "tool"]
    delayed = _run(path, Scripted([]), tool_delays=True)
    stages = [r for r in delayed if r.get("kind") == "tool"]
    assert len(stages) == 2 and all(r["executed"] == "recorded delay" for r in stages)


def test_the_conversation_assembles_tool_deltas_by_mlperfs_rule(tmp_path: Path) -> None:
    from agentic_bench.transport.request import RequestContext

    seen: list[str] = []

    class Seen(Scripted):
        async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                       context: object = None) -> ChatResult:
            assert isinstance(context, RequestContext)
            seen.append(context.tool_deltas)
            return await super().chat(body, timeout_s)

    _run(_conversation_file(tmp_path, 2), Seen([]))
    assert seen == ["mlperf"] * 3
