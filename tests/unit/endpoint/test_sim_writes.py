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


@pytest.mark.parametrize(("itl_ms", "bodies"), [(0.0, 1), (15.0, 4)])
def test_tokens_due_together_go_out_in_one_write(monkeypatch: pytest.MonkeyPatch,
                                                  itl_ms: float, bodies: int) -> None:
    writes: list[bytes] = []
    plain = HttpConnection.write

    def spy(self: HttpConnection, data: bytes) -> None:
        writes.append(data)
        plain(self, data)

    monkeypatch.setattr(HttpConnection, "write", spy)
    result = streamed(SimConfig(ttft_ms=0, itl_ms=itl_ms, output_tokens=4), writes)
    assert result.ok and result.content == "tok0 tok1 tok2 tok3 "
    assert writes[0].startswith(b"HTTP/1.1 200 OK")  # the head, sent as the request arrives
    assert len(writes) == 1 + bodies  # then one write per moment tokens were due
    assert writes[-1].endswith(b"data: [DONE]\n\n\r\n0\r\n\r\n")  # with the last chunk
    assert result.output_tokens == 4 and len(result.token_times_ns) == 4
