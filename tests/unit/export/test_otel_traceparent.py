"""W3C traceparent: the header's format, the deterministic ids it shares with the exported
spans, and how it joins a session's request context."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from agentic_bench.transport.request import RequestContext
from agentic_bench.transport.traceparent import (
    header_value,
    new_trace_key,
    parse,
    session_traceparent,
    span_id,
    trace_id,
    with_traceparent,
)

W3C = re.compile(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$")  # trace-context §3.2, version 00


@given(st.text(max_size=40), st.text(min_size=1, max_size=60))
def test_header_names_the_sessions_trace_and_root_span(key: str, session: str) -> None:
    value = session_traceparent(key, session)
    assert W3C.match(value)
    assert parse(value) == (trace_id(key, session), span_id(key, session), 1)
    assert trace_id(key, session) != 0 and span_id(key, session) != 0


def test_ids_are_deterministic_and_differ_by_run_session_and_path() -> None:
    assert trace_id("k1", "s#0") == trace_id("k1", "s#0")
    assert trace_id("k1", "s#0") != trace_id("k2", "s#0")
    assert trace_id("k1", "s#0") != trace_id("k1", "s#1")
    assert span_id("k1", "s#0") != span_id("k1", "s#0", "turn/0")
    assert trace_id("k1", "s#0") < 2**128 and span_id("k1", "s#0", "turn/0") < 2**64
    # the parts cannot run into each other
    assert trace_id("a", "bc") != trace_id("ab", "c")
    assert span_id("k", "s", "1:x") != span_id("k", "s1:", "x")
    assert new_trace_key() != new_trace_key() and len(new_trace_key()) == 16


def test_header_value_and_parse() -> None:
    assert header_value(1, 2) == "00-" + "0" * 31 + "1-" + "0" * 15 + "2-01"
    assert header_value(1, 2, sampled=False).endswith("-00")
    assert parse("00-" + "a" * 32 + "-" + "b" * 16 + "-01") == (int("a" * 32, 16),
                                                               int("b" * 16, 16), 1)
    for bad in ("", "01-" + "a" * 32 + "-" + "b" * 16 + "-01",  # only version 00 is read
                "00-" + "0" * 32 + "-" + "b" * 16 + "-01",  # all-zero trace id
                "00-" + "a" * 32 + "-" + "0" * 16 + "-01",  # all-zero parent id
                "00-" + "A" * 32 + "-" + "b" * 16 + "-01"):  # upper case
        assert parse(bad) is None


def test_with_traceparent_keeps_the_other_headers_and_replaces_an_old_one() -> None:
    def hook(t: int, b: bytes) -> bool:
        return True

    base = RequestContext(headers=(("X-Session-ID", "s#0"), ("traceparent", "old")),
                          user="s#0", on_chunk=hook)
    ctx = with_traceparent(base, "key", "s#0")
    assert ctx.headers == (("X-Session-ID", "s#0"),
                           ("traceparent", session_traceparent("key", "s#0")))
    assert ctx.user == "s#0" and ctx.on_chunk is hook
    # the raw client sends the pre-rendered lines: the header is in them
    assert f"traceparent: {session_traceparent('key', 's#0')}\r\n" in ctx.header_lines
    assert "old" not in ctx.header_lines
