"""``--retries`` with ``--retry-on any|mlperf`` in :func:`timed_chat`, and the Retry-After header
of a 429 as both HTTP clients see it.

``mlperf`` transcribes ``call_chat_completions`` of mlcommons/inference b66003e1
``e2e-rag/multi_shot_retrieval.py``: ``for attempt in range(max_retries)`` (334; 5 attempts);
429 waits ``int(Retry-After)`` or ``2 ** attempt`` s and tries again, also after the last
attempt before giving up (343-351, 460-465); 502/503/504 wait ``2 ** attempt`` s (399-407) and
timeouts likewise (422-428), the fifth failure is final; any other status (409-420) and other
failures (444-457) are final at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentic_bench.replay import timed_call
from agentic_bench.replay.timed_call import retry_wait_s, timed_chat
from agentic_bench.transport import ChatResult, make_chat_client


def _fail(status: int | None, error_type: str = "http_status",
          retry_after: str | None = None) -> ChatResult:
    result = ChatResult(http_status=status, retry_after=retry_after)
    return result.fail(error_type, f"HTTP {status}")


class ScriptedTransport:
    def __init__(self, results: list[ChatResult]) -> None:
        self.results = results
        self.calls = 0

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        self.calls += 1
        return self.results.pop(0)


def _run(results: list[ChatResult], rule: str, retries: int = 4,
         monkeypatch: pytest.MonkeyPatch | None = None,
         ) -> tuple[ChatResult, list[float], list[dict[str, Any]], int]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    assert monkeypatch is not None
    monkeypatch.setattr(timed_call, "_sleep", sleep)
    transport = ScriptedTransport(results)
    records: list[dict[str, Any]] = []
    result, _ = asyncio.run(timed_chat(
        transport, {"messages": []}, timeout_s=120, retries=retries, sink=records.append,  # type: ignore[arg-type]
        ids={}, t0_ns=0, scheduled_ns=0, retry_rule=rule))
    return result, slept, records, transport.calls


def test_mlperf_backs_off_on_503_then_succeeds(monkeypatch: pytest.MonkeyPatch) -> None:
    result, slept, records, calls = _run([_fail(503)] * 4 + [ChatResult()], "mlperf",
                                         monkeypatch=monkeypatch)
    assert result.ok and calls == 5 and slept == [1, 2, 4, 8]
    assert [r["status"] for r in records] == ["retried"] * 4


def test_mlperf_fifth_503_or_timeout_is_final(monkeypatch: pytest.MonkeyPatch) -> None:
    result, slept, _, calls = _run([_fail(503)] * 5, "mlperf", monkeypatch=monkeypatch)
    assert not result.ok and calls == 5 and slept == [1, 2, 4, 8]
    timeouts = [_fail(None, "timeout")] * 5
    result, slept, _, calls = _run(timeouts, "mlperf", monkeypatch=monkeypatch)
    assert result.error_type == "timeout" and calls == 5 and slept == [1, 2, 4, 8]


def test_mlperf_does_not_retry_other_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    for failure in (_fail(500), _fail(400), _fail(None, "connect"), _fail(200, "malformed"),
                    _fail(None, "disconnect")):
        result, slept, _, calls = _run([failure], "mlperf", monkeypatch=monkeypatch)
        assert not result.ok and calls == 1 and slept == []


def test_mlperf_429_waits_retry_after_or_doubling(monkeypatch: pytest.MonkeyPatch) -> None:
    result, slept, _, _ = _run([_fail(429, retry_after="7"), ChatResult()], "mlperf",
                               monkeypatch=monkeypatch)
    assert result.ok and slept == [7]
    result, slept, _, calls = _run([_fail(429)] * 5, "mlperf", monkeypatch=monkeypatch)
    assert not result.ok and calls == 5 and slept == [1, 2, 4, 8, 16]  # 351: waits, then 465
    assert retry_wait_s(_fail(429, retry_after="Wed, 21 Oct 2026 07:28:00 GMT"), 0,
                        "mlperf") is None  # int() of a date raises: caught at 444, final


def test_any_rule_retries_every_transport_failure_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    result, slept, _, calls = _run([_fail(500), _fail(None, "connect"), ChatResult()], "any",
                                   retries=2, monkeypatch=monkeypatch)
    assert result.ok and calls == 3 and slept == []


@pytest.mark.parametrize("kind", ["raw", "aiohttp"])
def test_clients_keep_the_retry_after_of_a_429(kind: str) -> None:
    async def go() -> ChatResult:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            body = b'{"error": "slow down"}'
            writer.write(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\n"
                         b"Content-Type: application/json\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\n\r\n" + body)
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = make_chat_client(f"http://127.0.0.1:{port}", kind=kind)
        try:
            return await client.chat({"model": "m", "messages": []})
        finally:
            await client.aclose()
            server.close()

    result = asyncio.run(go())
    assert result.http_status == 429 and result.retry_after == "3"
