"""#46 item 3: the simulator timestamps (``--timestamps``). Each streamed reply's usage event
carries the reads that brought the request's first and last bytes and the writes of the head
and the first token; they are in order, on the client's clock (one host), and the record's
client share + server TTFT adds up to the TTFT from the due instant."""

from __future__ import annotations

import asyncio
from time import perf_counter_ns

import pytest

from agentic_bench.endpoint.sim import SimConfig, SimServer
from agentic_bench.records.llm import llm_record
from agentic_bench.transport import ChatResult, make_chat_client


def one_call(config: SimConfig, content: str) -> tuple[int, ChatResult]:
    async def go() -> tuple[int, ChatResult]:
        server = SimServer(config)
        port = await server.start()
        client = make_chat_client(f"http://127.0.0.1:{port}", timeout_s=10)
        try:
            await client.warm_up(1)
            due = perf_counter_ns()
            return due, await client.chat({"model": "sim", "messages": [
                {"role": "user", "content": content}]})
        finally:
            await client.aclose()
            await server.stop()

    return asyncio.run(go())


@pytest.mark.parametrize("ttft_ms", [0.0, 3.0])
def test_the_reply_carries_the_servers_timestamps_in_order(ttft_ms: float) -> None:
    # a body of ~600 kB: read in several pieces
    due, result = one_call(SimConfig(ttft_ms=ttft_ms, itl_ms=1.0, output_tokens=3, timestamps=True),
                           "word " * 120_000)
    assert result.ok, result.error
    stamps = result.server_timing_ns
    assert stamps is not None and set(stamps) == {"body_first", "body_last", "head",
                                                  "first_token"}
    assert result.t_first_token_ns is not None
    assert (due <= result.t_sent_ns <= stamps["body_first"] <= stamps["body_last"]
            <= stamps["head"] <= stamps["first_token"] <= result.t_first_token_ns)
    rec = llm_record(result, 0, due, derived=())
    total = (result.t_first_token_ns - due) / 1e6
    assert rec["client_share_ms"] + rec["server_ttft_ms"] == pytest.approx(total, abs=1e-6)
    assert rec["server_ttft_ms"] >= ttft_ms


def test_without_the_flag_the_reply_has_no_timestamps() -> None:
    _, result = one_call(SimConfig(ttft_ms=0.0, itl_ms=0.0, output_tokens=2), "hi")
    assert result.ok and result.server_timing_ns is None
    assert "client_share_ms" not in llm_record(result, 0, result.t_sent_ns, derived=())


def test_the_timing_log_keeps_each_replys_stamps_under_its_request_id(tmp_path) -> None:
    """``--timing-log``: a client that asks for no usage event (AIPerf beside us in
    benchmarks/agentx_scale.py) still gets the server's side, joined on X-Request-ID, with the
    wall-clock offset that puts the stamps on its ``time.time_ns`` clock."""
    import http.client
    import json
    import time

    log = tmp_path / "timing.jsonl"

    def post(port: int, request_id: str) -> bytes:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/v1/chat/completions", json.dumps(
            {"model": "sim", "stream": True, "messages": [{"role": "user", "content": "hi"}]}),
            {"Content-Type": "application/json", "X-Request-ID": request_id})
        body = conn.getresponse().read()
        conn.close()
        return body

    async def go() -> None:
        server = SimServer(SimConfig(ttft_ms=2.0, itl_ms=0.5, output_tokens=3,
                                     timing_log=str(log)))
        port = await server.start()
        try:
            for rid in ("req-a", "req-b"):
                body = await asyncio.to_thread(post, port, rid)
                assert b"server_timing_ns" not in body  # (no usage event asked for)
        finally:
            await server.stop()

    wall_before = time.time_ns()
    asyncio.run(go())
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["x_request_id"] for r in rows] == ["req-a", "req-b"]
    for r in rows:
        assert r["body_first"] <= r["body_last"] <= r["head"] <= r["first_token"]
        assert r["first_token"] - r["body_last"] >= 2_000_000  # the injected TTFT
        assert r["body_bytes"] == len(json.dumps(
            {"model": "sim", "stream": True, "messages": [{"role": "user", "content": "hi"}]}))
        wall = r["first_token"] + r["wall_minus_perf_ns"]
        assert wall_before <= wall <= time.time_ns()
