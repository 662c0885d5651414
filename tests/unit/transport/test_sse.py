from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def _fields(r: ChatResult) -> tuple:
    return (r.status, r.error_type, r.error, r.content, r.reasoning, r.tool_calls,
            r.token_times_ns, r.t_first_token_ns, r.finish_reason, r.input_tokens,
            r.output_tokens, r.cached_tokens, r.model, r.chunks)


def test_the_common_stream_is_decoded_in_one_pass() -> None:
    """A stream of `data: {object}` events and [DONE] is taken by ``_whole_events``, dated
    per chunk as the line-by-line path dates it."""
    from agentic_bench.transport import sse

    events = [ev({"role": "assistant"}), ev({"content": "a"}), ev({"content": "b"}),
              ev({}, finish="stop") + ev(usage={"prompt_tokens": 3, "completion_tokens": 2})]
    chunks = [(10, events[0]), (20, events[1][:7]), (30, events[1][7:] + events[2]),
              (40, events[3] + DONE)]
    taken = sse._whole_events(chunks)
    assert taken is not None
    fast, whole = taken
    assert whole == b"".join(data for _, data in chunks)
    assert [t for t, _, _ in fast] == [10, 30, 30, 40, 40, 40]
    assert [t for t, _, _ in sse._decoded(sse._events(chunks))] == [10, 30, 30, 40, 40, 40]
    assert [e for _, _, e in fast] == [e for _, _, e in sse._decoded(sse._events(chunks))]
    r = assemble_stream(ChatResult(), chunks)
    assert r.ok and r.content == "ab" and r.token_times_ns == [30, 30]


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5)
    | st.text(alphabet="ab\n\r\" :,[]{}é", max_size=6),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["content", "x", "delta"]), inner, max_size=2),
    max_leaves=6)


@st.composite
def _streams(draw: st.DrawFn) -> list[tuple[int, bytes]]:
    """Chat streams, mostly well formed, with what breaks the one-pass shape mixed in."""
    out = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["content", "content", "finish", "usage", "tool", "odd",
                                     "raw", "reasoning"]))
        if kind == "content":
            out.append(ev({"content": draw(st.text(alphabet="ab\n\"é\\", max_size=4))}))
        elif kind == "reasoning":
            out.append(ev({draw(st.sampled_from(["reasoning", "reasoning_content"])): "r"}))
        elif kind == "finish":
            out.append(ev({}, finish="stop"))
        elif kind == "usage":
            out.append(ev(usage={"prompt_tokens": 4, "completion_tokens": 2}))
        elif kind == "tool":
            out.append(ev({"tool_calls": [{"index": 0, "function": {"arguments": "{"}}]}))
        elif kind == "odd":  # any JSON value as a payload
            out.append(b"data: " + json.dumps(draw(_JSONISH)).encode() + b"\n\n")
        else:  # other SSE lines, CRLF, payloads with two values, a [DONE] in the middle
            out.append(draw(st.sampled_from([
                b": keep-alive\n\n", b"data:{\"choices\":[]}\n\n", b"data: 1,2\n\n",
                b"data: {}\r\n\r\n", b"event: x\ndata: {}\n\n", b"data: {}\n\n\n",
                b"data: [DONE]\n\n", b"data: {\"a\":1\n\ndata: \"b\":2}\n\n", b"\n",
                b"data: {\"error\": \"boom\"}\n\n", b"data: {\"a\":\n1}\n\n",
                b"data: {},{}\n\n", b"data: {\"choices\":[]}\n",
                # keys written with escapes: only the decoded key names them
                b'data: {"choices":[{"delta":{"re\\u0061soning":"r"}}]}\n\n',
                b'data: {"choices":[{"delta":{"tool\\u005fcalls":[{"function":{}}]}}]}\n\n',
                ])))
    if draw(st.booleans()):
        out.append(DONE)
    whole = b"".join(out)
    cuts = sorted(set(draw(st.lists(st.integers(0, max(0, len(whole))), max_size=5))))
    bounds = [0, *[c for c in cuts if 0 < c < len(whole)], len(whole)]
    return [(10 * (i + 1), whole[a:b]) for i, (a, b) in enumerate(itertools.pairwise(bounds))
            if b > a]


_A = ev({"content": "a"})


@pytest.mark.parametrize("chunks", [
    [(1, _A[:-1]), (2, _A[-1:] + DONE)],  # the blank line split: dated by the first chunk
    [(1, _A[:-2]), (2, _A[-2:] + DONE)],
    [(1, b'data: {"choices":[{"delta":\n{"content":"a"},"finish_reason":"stop"}]}\n\n' + DONE)],
    [(1, b'data: {"choices":[]},{"choices":[]}\n\n' + _A + DONE)],
    [(1, _A + b"\n" + ev({}, finish="stop")), (2, DONE)],
    # a payload of two objects beside an object cut in two by a blank line: counts that agree
    [(1, b'data: {"choices":[]},{"choices":[]}\n\ndata: {"choices":[]\n\ndata: "x":1}\n\n'
      + _A + ev({}, finish="stop") + DONE)],
])
def test_streams_the_one_pass_must_decline(chunks: list[tuple[int, bytes]]) -> None:
    same_result_both_ways(chunks)


@settings(max_examples=400, deadline=None)
@given(chunks=_streams())
def test_one_pass_and_line_by_line_give_the_same_result(chunks: list[tuple[int, bytes]]) -> None:
    same_result_both_ways(chunks)


def same_result_both_ways(chunks: list[tuple[int, bytes]]) -> None:
    """Differential: whatever the stream, with the one-pass decoding on or off the result is
    field for field the same (the one pass only ever declines)."""
    from agentic_bench.transport import sse

    fast = assemble_stream(ChatResult(), chunks)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sse, "_whole_events", lambda c: None)
        slow = assemble_stream(ChatResult(), chunks)
    assert _fields(fast) == _fields(slow)


def test_an_object_cut_by_a_blank_line_is_malformed_even_beside_a_two_value_payload() -> None:
    """Counts alone cannot see it (two payloads make one object, one payload makes two):
    each payload is decoded in its own brackets."""
    chunks = [(1, b'data: {"choices":[]},{"choices":[]}\n\ndata: {"choices":[]\n\ndata: "x":1}'
                  b"\n\n" + _A + ev({}, finish="stop") + DONE)]
    assert assemble_stream(ChatResult(), chunks).error_type == "malformed"
