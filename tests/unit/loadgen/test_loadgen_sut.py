"""The SUT adapter with a stand-in for mlperf_loadgen: every query completes exactly once,
first token before completion, token counts, errors, cancellation and interrupts."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from time import perf_counter_ns
from typing import Any

import pytest

from agentic_bench.contracts import SessionOutcome, SessionSource, SessionTicket
from agentic_bench.loadgen.compare import compare_latencies
from agentic_bench.loadgen.sut import SessionSut
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn


@dataclass
class Response:
    id: int
    data: int
    size: int
    n_tokens: int | None = None


@dataclass
class Sample:
    id: int
    index: int


class FakeLg:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int | None]] = []
        self.lock = threading.Lock()

    def QuerySampleResponse(self, *args: int) -> Response:
        return Response(*args)

    def FirstTokenComplete(self, responses: list[Response]) -> None:
        with self.lock:
            self.calls.extend(("first", r.id, None) for r in responses)

    def QuerySamplesComplete(self, responses: list[Response]) -> None:
        with self.lock:
            self.calls.extend(("done", r.id, r.n_tokens) for r in responses)

    def of(self, kind: str) -> list[int]:
        return [qid for k, qid, _ in self.calls if k == kind]


def source(n: int) -> SessionSource:
    sessions = [Session(schema_version=SCHEMA_VERSION, session_id=f"s{i}",
                        turns=[Turn(user="q")]) for i in range(n)]
    return SessionSource(n, sessions.__getitem__)


def make_sut(lg: FakeLg, n: int = 4, **kw: Any) -> tuple[SessionSut, list[dict[str, Any]]]:
    written: list[dict[str, Any]] = []
    sut = SessionSut(lg, asyncio.get_running_loop(), source(n), written.append,
                     t0_ns=perf_counter_ns(), **kw)
    return sut, written


def llm_record(ticket: SessionTicket, t0: int, tokens: int, first: bool = True) -> dict[str, Any]:
    rec = {"type": "step", "kind": "llm", "status": "ok", "session_id": ticket.session_id,
           "output_tokens": tokens}
    if first:
        rec["t_first_token_ns"] = perf_counter_ns() - t0
    return rec


async def issue_from_thread(sut: SessionSut, samples: list[Sample]) -> None:
    thread = threading.Thread(target=sut.issue_queries, args=(samples,))
    thread.start()
    await asyncio.to_thread(thread.join)


async def settle(sut: SessionSut, lg: FakeLg, count: int) -> None:
    for _ in range(200):
        if len(lg.of("done")) >= count and not sut.in_flight():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"only {lg.calls}")


def test_sessions_complete_once_with_tokens_and_first_token_first() -> None:
    async def main() -> None:
        lg = FakeLg()
        sut, written = make_sut(lg)

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            await asyncio.sleep(0.01)
            sut.sink(llm_record(ticket, sut.t0_ns, 5))
            sut.sink(llm_record(ticket, sut.t0_ns, 7))
            sut.sink({"type": "session", "session_id": ticket.session_id, "status": "ok",
                      "latency_ms": 12.0})
            return SessionOutcome(ticket.session_id, "ok", 1, 1, 2, 0)

        sut.execute = execute
        await issue_from_thread(sut, [Sample(100 + i, i % 4) for i in range(6)])
        await settle(sut, lg, 6)
        assert sorted(lg.of("done")) == list(range(100, 106))
        assert sorted(lg.of("first")) == list(range(100, 106))
        for qid in range(100, 106):
            assert [k for k, i, _ in lg.calls if i == qid] == ["first", "done"]
        assert {n for k, _, n in lg.calls if k == "done"} == {12}
        ids = [q.ticket.session_id for q in sut.queries]
        assert len(set(ids)) == 6  # repeats of one sample get unique session ids
        assert {q.ticket.index % 4 for q in sut.queries} == {q.qsl_index for q in sut.queries}
        assert sut.stats.first_token == {"record": 6} and sut.stats.issued == 6
        assert all(q.ttft_ms is not None and q.ttft_ms >= 0 for q in sut.queries)
        sessions = [r for r in written if r["type"] == "session"]
        assert all("qsl_index" in r and "loadgen_issue" in r for r in sessions)
        assert len({q.ticket.scheduled_ns for q in sut.queries}) == 1  # one issue call

    asyncio.run(main())


def test_errors_exceptions_and_missing_first_tokens_still_complete() -> None:
    async def main() -> None:
        lg = FakeLg()
        sut, _ = make_sut(lg)

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            if ticket.index == 0:
                raise RuntimeError("task bug")
            sut.sink({"type": "step", "kind": "llm", "status": "error",
                      "session_id": ticket.session_id})
            return SessionOutcome(ticket.session_id, "error", 1, 0, 1, 1)

        sut.execute = execute
        await issue_from_thread(sut, [Sample(1, 0), Sample(2, 1)])
        await settle(sut, lg, 2)
        assert sorted(lg.of("first")) == [1, 2] and sorted(lg.of("done")) == [1, 2]
        assert sut.stats.first_token == {"completion": 2}
        assert sut.stats.exceptions == 1 and sut.stats.clamped_tokens == 2
        assert {n for k, _, n in lg.calls if k == "done"} == {2}  # clamped: TPOT divides by n-1

    asyncio.run(main())


def test_cancelled_sessions_complete_and_stopping_answers_empty() -> None:
    async def main() -> None:
        lg = FakeLg()
        sut, _ = make_sut(lg)

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            await asyncio.sleep(30)
            raise AssertionError

        sut.execute = execute
        await issue_from_thread(sut, [Sample(1, 0)])
        await asyncio.sleep(0.02)
        sut.stopping = True
        await issue_from_thread(sut, [Sample(2, 1), Sample(3, 2)])
        assert sorted(lg.of("done")) == [2, 3] and sut.stats.skipped == 2
        sut.cancel_all()
        await settle(sut, lg, 3)
        assert sut.stats.cancelled == 1 and sorted(lg.of("done")) == [1, 2, 3]
        assert sut.queries[0].status == "cancelled"

    asyncio.run(main())


def test_concurrency_cap_queues_inside_the_sut() -> None:
    async def main() -> None:
        lg = FakeLg()
        sut, _ = make_sut(lg, n=6, max_in_flight=2)
        running = {"now": 0, "max": 0}

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            running["now"] += 1
            running["max"] = max(running["max"], running["now"])
            await asyncio.sleep(0.01)
            running["now"] -= 1
            return SessionOutcome(ticket.session_id, "ok", 1, 1, 0, 0)

        sut.execute = execute
        await issue_from_thread(sut, [Sample(i, i) for i in range(6)])
        await settle(sut, lg, 6)
        assert running["max"] == 2

    asyncio.run(main())


def test_stream_hook_reports_first_tokens_in_real_time() -> None:
    async def main() -> None:
        lg = FakeLg()
        sut, _ = make_sut(lg)
        assert sut.realtime_first_token
        seen: list[list[str]] = []

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            watch = ticket.request_context.on_chunk  # what the transport does per chunk
            assert watch is not None
            watch(0, b'data: {"choices":[{"delta":{"role":"assistant"}}]}\n\n')
            seen.append(list(lg.of("first")))
            watch(0, b'data: {"choices":[{"delta":{"content":"x"}}]}\n\n')
            seen.append(list(lg.of("first")))
            sut.sink(llm_record(ticket, sut.t0_ns, 3))
            return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)

        sut.execute = execute
        await issue_from_thread(sut, [Sample(9, 0)])
        await settle(sut, lg, 1)
        assert seen == [[], [9]]
        assert sut.stats.first_token == {"stream": 1}
        assert lg.of("first") == [9]

    asyncio.run(main())


@dataclass
class Q:
    batch: int
    latency_ms: float | None
    ttft_ms: float | None


def test_comparison_per_session_and_per_multistream_query() -> None:
    queries = [Q(0, 10.0, 2.0), Q(0, 14.0, 3.0), Q(1, 20.0, None), Q(1, None, None)]
    result = {"latency_ms": {"mean": 15.0}, "first_token_ms": {"mean": 2.5}}
    cmp = compare_latencies(queries, result)
    assert cmp["latency_ms"] == {"loadgen_mean": 15.0, "ours_mean": pytest.approx(44 / 3),
                                 "diff_ms": pytest.approx(15 - 44 / 3), "count": 3}
    assert cmp["first_token_ms"]["ours_mean"] == 2.5 and cmp["first_token_ms"]["count"] == 2
    multi = compare_latencies(queries, {**result, "query_latency_ms": {"mean": 17.0}}, 2)
    assert multi["latency_ms"]["ours_mean"] == 17.0 and multi["latency_ms"]["count"] == 2
    assert "answered empty" in multi["note"]


def test_token_stage_counts_only_the_answer_and_data_is_token_shaped() -> None:
    """With ``token_stage`` the query's tokens are that stage's (E2E-RAG's SUT reports the
    answer generator's tokens: mlcommons/inference e2e-rag/reference_SUT.py 257-262, 318-330);
    outside accuracy mode the response data is one 4-byte token id per token (318-327), which
    compliance TEST09 measures (compliance/TEST09/run_verification.py 47-69)."""
    async def main() -> None:
        lg = FakeLg()
        sizes: list[int] = []
        original = lg.QuerySampleResponse

        def response(*args: int) -> Response:
            sizes.append(args[2])
            return original(*args)

        lg.QuerySampleResponse = response  # type: ignore[method-assign]
        sut, _ = make_sut(lg, 1, token_stage="generate", json_payload=False)

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            sut.sink({**llm_record(ticket, sut.t0_ns, 40), "stage": "decompose"})
            sut.sink({**llm_record(ticket, sut.t0_ns, 9, first=False), "stage": "generate"})
            sut.sink({"type": "session", "session_id": ticket.session_id, "status": "ok",
                      "latency_ms": 1.0})
            return SessionOutcome(ticket.session_id, "ok", 1, 1, 2, 0)

        sut.execute = execute
        await issue_from_thread(sut, [Sample(7, 0)])
        await settle(sut, lg, 1)
        assert [n for k, _, n in lg.calls if k == "done"] == [9]
        assert sizes[-1] == 4 * 9

    asyncio.run(main())
