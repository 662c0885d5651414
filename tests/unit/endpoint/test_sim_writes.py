"""The simulator sends every token already due in one write (#33: at zero latency it was the
limit of a throughput benchmark, one write and one turn of its loop per token)."""

from __future__ import annotations

import asyncio

import pytest

from agentic_bench.endpoint.sim import SimConfig, SimServer
from agentic_bench.endpoint.sim_http import HttpConnection
from agentic_bench.transport import ChatResult, make_chat_client


def streamed(config: SimConfig, writes: list[bytes]) -> ChatResult:
    async def go() -> ChatResult:
        server = SimServer(config)
        port = await server.start()
        client = make_chat_client(f"http://127.0.0.1:{port}", timeout_s=10)
        try:
            await client.warm_up(1)
            writes.clear()
            return await client.chat({"model": "sim", "messages": [
                {"role": "user", "content": "hi"}]})
        finally:
            await client.aclose()
            await server.stop()

    return asyncio.run(go())


@pytest.mark.parametrize(("ttft_ms", "itl_ms", "writes_expected"), [
    (0.0, 0.0, 1),  # the head and every token due at once: one write
    # ITL 60 ms: tokens stay apart even when a loaded machine delays the loop by tens of ms
    (0.0, 60.0, 4),  # head with token 0, then tokens 1, 2 and 3 (with the end) apart
    (5.0, 0.0, 2),  # the head as the request arrives, every token 5 ms later
    (5.0, 60.0, 5),
])
def test_what_is_due_together_goes_out_in_one_write(
        monkeypatch: pytest.MonkeyPatch, ttft_ms: float, itl_ms: float,
        writes_expected: int) -> None:
    writes: list[bytes] = []
    plain = HttpConnection.write

    def spy(self: HttpConnection, data: bytes) -> None:
        writes.append(data)
        plain(self, data)

    monkeypatch.setattr(HttpConnection, "write", spy)
    result = streamed(SimConfig(ttft_ms=ttft_ms, itl_ms=itl_ms, output_tokens=4), writes)
    assert result.ok and result.content == "tok0 tok1 tok2 tok3 "
    assert writes[0].startswith(b"HTTP/1.1 200 OK")
    assert (writes[0].endswith(b"chunked\r\n\r\n")) == (ttft_ms > 0)  # the head alone
    assert len(writes) == writes_expected
    assert writes[-1].endswith(b"data: [DONE]\n\n\r\n0\r\n\r\n")  # with the last chunk
    assert result.output_tokens == 4 and len(result.token_times_ns) == 4
    if ttft_ms:
        assert result.t_first_byte_ns is not None and result.t_first_token_ns is not None
        assert result.t_first_token_ns - result.t_first_byte_ns > 3_000_000  # head came first
