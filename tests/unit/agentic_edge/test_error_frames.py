"""#43 Agentic Edge item 1: an error event inside an HTTP 200 stream, under MLPerf's rule.

The rule, transcribed from mlcommons/endpoints ea332753 (paths under ``src/inference_endpoint/``):

* ``endpoint_client/worker.py`` 389-397: only a status other than 200 makes the request an
  error (``_handle_error``); a 200 stream is read by ``_handle_streaming_body`` 419-436 to its
  end, every parsed frame goes to the accumulator, and ``accumulator.get_final_output()`` is
  sent as the result, with no error, whatever the frames were (``[DONE]`` is never required).
* ``endpoint_client/adapter_protocol.py`` 47: ``SSE_DATA_PATTERN = rb"data:\\s*(\\{[^\\n]+\\})"``
  — a frame is a ``data:`` line holding a JSON object; 128-135 (``parse_sse_chunk``): each is
  decoded by ``decode_sse_message`` and kept only when that returns something other than None.
* ``openai/types.py`` 69-74: ``SSEMessage`` has one field, ``choices``, default ``()``; msgspec
  ignores other keys, so ``{"error": {...}}`` decodes to a message with no choices.
* ``openai/openai_msgspec_adapter.py`` 125-130 (``decode_sse_message``): ``if not msg.choices:
  return None`` — the error frame is dropped; otherwise ``choices[0]``.
* ``openai/accumulator.py`` 40-73, 90-131: content, reasoning and tool-call deltas of the kept
  frames make the final ``TextModelOutput`` (empty when none arrived); ``finish_reason`` only
  when a frame carried one.
* ``load_generator/agentic_inference_strategy.py`` 625-629: a result without ``error`` marks the
  turn complete; 640-657 (abort the rest of the conversation) run only for ``result.error``;
  663-664: the next turn is issued.
* ``evaluation/scoring.py`` 871-885: a COMPLETE with a ``TextModelOutput`` is a model turn (a
  non-empty dict even for an empty reply), so 723-727 count it observed; 705-713: its IoU
  against the recorded executables (0 when it has none).
* ``evaluation/bfcl_v4_scorer.py`` 131-144: a BFCL sample is scored on its COMPLETE's data —
  what arrived before (and after) the event.

Ours (:mod:`agentic_bench.transport.sse`) applies this under the ``mlperf`` stream rule, which
the Agentic Edge MLPerf phases request (the coding conversations; native single-turn BFCL);
every other request keeps failing on the event (``context_overflow`` / ``http_status``).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from time import perf_counter_ns
from typing import Any

import pytest

from agentic_bench.contracts import ExecContext, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.tasks.agentic_edge.coding_phase import (
    as_session,
    inline_accuracy,
    perf_gate_rows,
    run_conversation,
)
from agentic_bench.trace.mlcommons_agentic import load_conversations
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn
from agentic_bench.transport import ChatResult, assemble_stream
from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.sse import dropped_stream_error

# recorded 2026-12-06 from the embedded server (llama-cpp-python 0.3.36 with
# agentic_bench.endpoint.chatml_tools, SmolLM2-135M, 4,096-token context): HTTP 200,
# text/event-stream, for a 28,899-token prompt — the shape of the committed run's 65 overflows
OVERFLOW = (
    b'data: {"error": {"message": "This model\'s maximum context length is 4096 tokens. '
    b'However, you requested 29923 tokens (28899 in the messages, 1024 in the completion). '
    b'Please reduce the length of the messages or completion.", "type": '
    b'"invalid_request_error", "code": "context_length_exceeded", "prompt_tokens": 28899}}'
    b"\n\ndata: [DONE]\n\n")
DONE = b"data: [DONE]\n\n"


def frame(delta: dict[str, Any] | None = None, finish: str | None = None) -> bytes:
    body = {"choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def bash_call(command: str) -> dict[str, Any]:
    return {"index": 0, "id": "x", "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": command})}}


GREP = frame({"tool_calls": [bash_call("grep -rn y .")]}) + frame(finish="tool_calls") + DONE
# vLLM-style: part of a reply, then the error event, then [DONE]
CUT = (frame({"role": "assistant", "content": ""}) + frame({"content": "Let me look. "})
       + frame({"tool_calls": [bash_call("grep -rn y .")]})
       + b'data: {"error": {"message": "engine died", "code": 500}}\n\n' + DONE)


def reference_reply(raw: bytes) -> tuple[str, list[Any], str | None]:
    """The reference's reply from a 200 stream, transcribed: frames by the pattern of
    adapter_protocol.py 47, kept when they have choices (openai_msgspec_adapter.py 125-130,
    types.py 69-74), accumulated as accumulator.py 40-73 does (content, tool-call deltas, last
    finish_reason)."""
    content, calls, finish = [], [], None
    for doc in re.findall(rb"data:\s*(\{[^\n]+\})", raw):
        choices = json.loads(doc).get("choices") or ()
        if not choices:
            continue
        choice = choices[0]
        finish = choice.get("finish_reason") or finish
        delta = choice.get("delta") or {}
        content.append(delta.get("content") or "")
        calls.extend(delta.get("tool_calls") or ())
    return "".join(content), calls, finish


def assembled(raw: bytes, rule: str = "mlperf", split: int | None = None) -> ChatResult:
    chunks = [(1, raw)] if split is None else [(1, raw[:split]), (2, raw[split:])]
    result = ChatResult(t_sent_ns=0, http_status=200)
    return assemble_stream(result, chunks, rule)  # type: ignore[arg-type]


@pytest.mark.parametrize("split", [None, 40, len(OVERFLOW) - 5])
def test_the_recorded_overflow_completes_empty_under_mlperfs_rule(split: int | None) -> None:
    r = assembled(OVERFLOW, split=split)
    assert r.status == "ok" and r.error_type is None
    assert (r.content, r.tool_calls, r.token_times_ns, r.finish_reason) == ("", [], [], None)
    assert reference_reply(OVERFLOW) == ("", [], None)  # the reference: an empty completion
    note = dropped_stream_error(r)
    assert note is not None and "maximum context length is 4096" in note


def test_other_requests_still_fail_on_the_event() -> None:
    r = assembled(OVERFLOW, rule="openai")
    assert r.status == "error" and r.error_type == "context_overflow"
    assert r.error is not None and r.error.startswith("error event in stream: ")
    assert dropped_stream_error(r) is None


def test_what_arrived_around_the_event_is_the_reply() -> None:
    r = assembled(CUT)
    content, calls, finish = reference_reply(CUT)
    assert r.ok and r.content == content == "Let me look. "
    assert [(c["name"], json.loads(c["arguments"])) for c in r.tool_calls] == [
        (c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls]
    assert r.finish_reason is finish is None
    assert "engine died" in (dropped_stream_error(r) or "")
    after = CUT.replace(DONE, frame({"content": "more"}, finish="stop") + DONE)
    assert assembled(after).content == reference_reply(after)[0] == "Let me look. more"


def test_a_stream_that_breaks_after_the_event_is_still_a_cut_stream() -> None:
    r = assembled(CUT[: -len(DONE)])  # no [DONE]: our record says so, the phases score it
    assert r.status == "error" and r.error_type == "disconnect"
    assert "engine died" in (r.error or "") and r.content == "Let me look. "


class Replayed:
    """A transport that answers request k with the recorded stream ``streams[k]`` (the last one
    after that), assembled by the real SSE code under the request's stream rule."""

    def __init__(self, streams: list[bytes]) -> None:
        self.streams = streams
        self.rules: list[str] = []

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext = NO_CONTEXT) -> ChatResult:
        raw = self.streams[min(len(self.rules), len(self.streams) - 1)]
        self.rules.append(context.tool_deltas)
        t = perf_counter_ns()
        result = ChatResult(t_sent_ns=t, t_first_byte_ns=t + 5, t_end_ns=t + 20, http_status=200)
        return assemble_stream(result, [(t + 10, raw)], context.tool_deltas)

    async def aclose(self) -> None:
        return None


def _conversation(tmp_path: Path, tools: int) -> Path:
    rows: list[dict[str, Any]] = [{"conversation_id": "c", "turn": 1, "role": "user",
                                   "content": "fix it", "system": "you code"}]
    for i in range(tools):
        call = {"id": f"k{i}", "type": "function", "function": {
            "name": "bash", "arguments": json.dumps({"command": f"grep -rn x {i}"})}}
        rows.append({"conversation_id": "c", "turn": len(rows) + 1, "role": "assistant",
                     "tool_calls": [call]})
        rows.append({"conversation_id": "c", "turn": len(rows) + 1, "role": "tool",
                     "tool_results": [{"tool_call_id": call["id"], "content": "ok"}]})
    rows.append({"conversation_id": "c", "turn": len(rows) + 1, "role": "assistant",
                 "content": "done"})
    path = tmp_path / "conv.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_conversation_goes_on_after_an_error_event(tmp_path: Path) -> None:
    """The overflowing turn completes (observed, IoU 0: nothing arrived), the next turns are
    issued, the gates pass; the step record is ok and keeps the event as ``stream_error``."""
    conv = load_conversations(_conversation(tmp_path, 3))[0]
    transport = Replayed([GREP, OVERFLOW, GREP])
    records: list[dict[str, Any]] = []
    ctx = ExecContext(transport, records.append, perf_counter_ns(), ReplayOptions(model="m"))
    asyncio.run(run_conversation(ctx, SessionTicket(0, as_session(conv), perf_counter_ns()),
                                 conv))
    assert transport.rules == ["mlperf"] * 4  # every client row issued
    inline = inline_accuracy(records)
    assert inline is not None
    assert inline["turns"] == {"issued": 4, "expected": 3, "observed": 3, "missing": 0,
                               "scored": 3}
    assert [t["score"] for t in inline["per_turn"]] == [1.0, 0.0, 1.0]
    assert inline["score"] == round(2 / 3, 4) and inline["stream_errors"] == 1
    assert inline["errors_by_type"] == {} and inline["aborted_turns"] == 0
    assert all(row["ok"] for row in perf_gate_rows(inline))
    steps = [r for r in records if r.get("type") == "step"]
    assert [r["status"] for r in steps] == ["ok"] * 4
    assert "maximum context length" in steps[1]["stream_error"]
    assert not any("stream_error" in r for r in steps if r is not steps[1])
    scored = [r for r in records if r.get("type") == "inline_score"]
    assert scored[1]["answered"] and "maximum context length" in scored[1]["stream_error"]
    session = next(r for r in records if r["type"] == "session")
    assert session["status"] == "ok" and "aborted" not in session


def test_a_bfcl_sample_is_scored_on_what_arrived_before_the_event() -> None:
    pytest.importorskip("bfcl_eval")
    from agentic_bench.tasks.agentic_edge import load_subset, oracle_decoded
    from agentic_bench.tasks.agentic_edge.executors import run_single

    sample = load_subset("simple_python")[0]
    (name, args), = oracle_decoded(sample)[0].items()
    call = {"index": 0, "id": "c0", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}
    stream = (frame({"tool_calls": [call]})
              + b'data: {"error": {"message": "engine died", "code": 500}}\n\n' + DONE)

    def run(mode: str) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        ctx = ExecContext(Replayed([stream]), records.append, perf_counter_ns(),
                          ReplayOptions(model="m"))
        session = Session(schema_version=SCHEMA_VERSION, session_id=sample.id,
                          category=sample.category, turns=[Turn(user="(sample)")])
        asyncio.run(run_single(ctx, SessionTicket(0, session, perf_counter_ns()), sample, mode))
        return records

    records = run("native")
    got = next(r for r in records if r["type"] == "sample")
    assert got["answered"] and got["completed"] and got["bfcl_valid"], got
    assert [c["name"] for c in got["extracted_calls"]] == [name]
    assert "engine died" in got["stream_error"]
    step = next(r for r in records if r["type"] == "step")
    assert step["status"] == "ok" and "engine died" in step["stream_error"]
    other = next(r for r in run("json-schema") if r["type"] == "sample")
    assert not other["answered"] and "stream_error" not in other  # not MLPerf: still failed
