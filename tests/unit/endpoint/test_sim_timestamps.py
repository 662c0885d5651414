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
