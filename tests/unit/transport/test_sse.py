from __future__ import annotations

import json

from agentic_bench.transport import ChatResult, assemble_stream


def ev(delta: dict | None = None, usage: dict | None = None, finish: str | None = None) -> bytes:
    body: dict = {"choices": [] if delta is None else [
        {"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        body["usage"] = usage
    return b"data: " + json.dumps(body).encode() + b"\n\n"


DONE = b"data: [DONE]\n\n"


def test_content_chunks_timestamps_and_usage() -> None:
    chunks = [(10, ev({"role": "assistant"})), (20, ev({"content": "a"})),
              (35, ev({"content": "b"}) + ev({"content": "c"})),
              (50, ev({}, finish="stop") + ev(usage={"prompt_tokens": 7,
                                                      "completion_tokens": 3}) + DONE)]
    r = assemble_stream(ChatResult(t_sent_ns=0), chunks)
    assert r.ok and r.content == "abc"
    assert r.token_times_ns == [20, 35, 35]  # role-only chunk carries no token
    assert r.t_first_token_ns == 20
    assert (r.input_tokens, r.output_tokens, r.finish_reason) == (7, 3, "stop")


def test_event_split_across_chunks_is_dated_by_completing_chunk() -> None:
    whole = ev({"content": "xy"})
    chunks = [(5, whole[:9]), (9, whole[9:]), (12, ev({}, finish="stop") + DONE)]
    r = assemble_stream(ChatResult(), chunks)
    assert r.ok and r.token_times_ns == [9]


def test_tool_call_deltas_are_assembled() -> None:
    chunks = [
        (1, ev({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "get_weather",
                                                                      "arguments": ""}}]})),
        (2, ev({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]})),
        (3, ev({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]})),
        (4, ev({"tool_calls": [{"index": 1, "id": "c2", "function": {
            "name": "get_time", "arguments": "{}"}}]}) + ev({}, finish="tool_calls") + DONE),
    ]
    r = assemble_stream(ChatResult(), chunks)
    assert r.ok and r.t_first_token_ns == 1
    assert r.tool_calls == [
        {"id": "c1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"id": "c2", "name": "get_time", "arguments": "{}"}]


def test_malformed_chunk_becomes_error_with_tokens_so_far() -> None:
    r = assemble_stream(ChatResult(), [(1, ev({"content": "a"})), (2, b"data: {oops\n\n"),
                                       (3, DONE)])
    assert r.status == "error" and r.error_type == "malformed"
    assert r.token_times_ns == [1]


def test_missing_done_is_a_disconnect() -> None:
    r = assemble_stream(ChatResult(), [(1, ev({"content": "a"}))])
    assert r.error_type == "disconnect"


def test_error_event_in_stream() -> None:
    r = assemble_stream(ChatResult(), [(1, b'data: {"error": {"message": "boom"}}\n\n')])
    assert r.error_type == "http_status" and "boom" in (r.error or "")


def test_done_without_finish_reason_is_incomplete() -> None:
    r = assemble_stream(ChatResult(), [(1, ev({"role": "assistant", "content": ""})),
                                       (2, DONE)])
    assert r.status == "error" and r.error_type == "incomplete"


def test_payload_with_two_values_is_malformed_not_misaligned() -> None:
    chunks = [(1, b"data: 1,2\n\n"), (2, ev({"content": "a"})), (3, ev({}, finish="stop") + DONE)]
    r = assemble_stream(ChatResult(), chunks)
    assert r.error_type == "malformed"


def test_cached_prompt_tokens_reach_the_result_and_the_record() -> None:
    from agentic_bench.records.llm import llm_record

    usage = {"prompt_tokens": 40, "completion_tokens": 1,
             "prompt_tokens_details": {"cached_tokens": 32}}
    chunks = [(20, ev({"content": "a"})), (30, ev({}, finish="stop") + ev(usage=usage) + DONE)]
    r = assemble_stream(ChatResult(t_sent_ns=0, t_end_ns=40), chunks)
    assert r.ok and r.cached_tokens == 32
    assert llm_record(r, 0, 0, derived=())["cached_tokens"] == 32
    plain = assemble_stream(ChatResult(t_sent_ns=0, t_end_ns=40),
                            [(20, ev({"content": "a"}, finish="stop") + DONE)])
    assert plain.cached_tokens is None
    assert "cached_tokens" not in llm_record(plain, 0, 0, derived=())


def test_mlperf_tool_delta_rules_overwrite_the_name_and_default_the_index_to_0() -> None:
    """#31 Edge item 4: mlcommons/endpoints ea332753 core/types.py merge_tool_calls 87-110 —
    ``idx = partial.get("index", 0)``, a truthy name overwrites. Default (OpenAI clients): a
    name sent in pieces is joined, a delta without index takes its position."""
    chunks = [(1, ev({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "get_",
                                                                          "arguments": ""}}]})),
              (2, ev({"tool_calls": [{"index": 0, "function": {"name": "weather",
                                                               "arguments": "{}"}}]})),
              (3, ev({"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": "{"}},
                                     {"function": {"arguments": "}"}}]}, finish="tool_calls")),
              (4, DONE)]
    openai = assemble_stream(ChatResult(t_sent_ns=0), chunks)
    assert [(c["name"], c["arguments"]) for c in openai.tool_calls] == [
        ("get_weatherg", "{}{"), ("", "}")]
    mlperf = assemble_stream(ChatResult(t_sent_ns=0), chunks, "mlperf")
    assert [(c["id"], c["name"], c["arguments"]) for c in mlperf.tool_calls] == [
        ("b", "g", "{}{}")]
