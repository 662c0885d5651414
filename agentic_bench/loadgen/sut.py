"""The system under test LoadGen drives: one query sample = one session of the workload.

LoadGen calls :meth:`SessionSut.issue_queries` from its own thread; the sessions run as tasks
on the harness's asyncio loop (where the endpoint's connections live), through the workload's
executor and transport, writing records through a wrapped sink. The wrapper turns records into
LoadGen calls, on the loop thread:

- the first token of the session's first LLM call → ``FirstTokenComplete`` (in real time when
  the transport offers a chunk hook, else when that call's step record arrives);
- the ``session`` record (or the executor returning, whichever is first) →
  ``QuerySamplesComplete`` with the session's output tokens (with ``token_stage``: only the
  LLM calls of that stage, e.g. rag-e2e's answer, as MLPerf's E2E-RAG SUT reports the answer
  generator's tokens: mlcommons/inference ``e2e-rag/reference_SUT.py`` 257-262, 318-330).

Each LoadGen batch starts in sample-index order, not LoadGen's shuffled order, as MLPerf's
E2E-RAG SUT submits a batch to its pool (``e2e-rag/reference_SUT.py`` 343-349), so a run issues
the same sessions first whatever LoadGen's order. With ``token_stage`` (the answer's tokens, as
that SUT counts them) an answer whose call reported no token counts its words, at least one
(``reference_SUT.py`` 318-328: ``max(1, len(answer.split()))``); the answer is the ``sample``
record's ``prediction``.

The response data is a small JSON object naming the session in accuracy mode (our scorer reads
it back); otherwise it is shaped as LLM SUTs shape it, one 4-byte token id (zero) per output
token, so compliance tests that measure output length from the accuracy log (TEST09) read the
right length.

Every issued query is completed exactly once, whatever happens to its session (error,
exception, cancellation), or LoadGen would wait forever.
"""

from __future__ import annotations

import array
import asyncio
import json
import sys
import threading
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import Execute, RecordSink, SessionSource, SessionTicket
from agentic_bench.loadgen.first_token import FirstTokenWatch
from agentic_bench.metrics.declarations import MetricDecl
from agentic_bench.records.llm import Timestamps
from agentic_bench.transport.request import RequestContext
from agentic_bench.units import NS_PER_MS


def _from_issue(t: Timestamps) -> float | None:
    return None if t.first_token_ns is None else (t.first_token_ns - t.scheduled_ns) / NS_PER_MS


# LoadGen's first-token latency, not the run's TTFT: from the query's issue (its session's
# scheduled instant), not from the request's sent bytes; measured per query, compared with
# LoadGen's own in summary.json's loadgen.compare (loadgen/compare.py), never summarised
ISSUE_TTFT = MetricDecl(
    "issue_ttft", "TTFT from issue", "session", "ttft_ms", "ms", "lower", None, (),
    "LoadGen's first-token latency: the query's issue (its session's scheduled instant) → "
    "first token of the session's first LLM call", "TTFT from issue (LoadGen's)", _from_issue)


@dataclass
class Query:
    query_id: int
    qsl_index: int
    ticket: SessionTicket
    batch: int
    tokens: int = 0
    first_token: str | None = None  # how it was reported: stream | record | completion
    answer: str | None = None  # the sample record's prediction (token_stage's fallback)
    done: bool = False
    status: str | None = None
    latency_ms: float | None = None
    ttft_ms: float | None = None  # ISSUE_TTFT: issue → first token of the first LLM call


@dataclass
class SutStats:
    issued: int = 0
    completed: int = 0
    skipped: int = 0  # answered empty at once after an interrupt
    cancelled: int = 0
    exceptions: int = 0
    clamped_tokens: int = 0
    first_token: Counter[str] = field(default_factory=Counter)
    t_first_issue_ns: int | None = None
    t_last_done_ns: int | None = None


class SessionSut:
    def __init__(self, lg: Any, loop: asyncio.AbstractEventLoop, source: SessionSource,
                 sink: RecordSink, *, t0_ns: int, token_latencies: bool = True,
                 max_in_flight: int | None = None, keep_records: bool = False,
                 token_stage: str | None = None, json_payload: bool = True) -> None:
        self.lg = lg
        self.loop = loop
        self.source = source
        self.inner_sink = sink
        self.t0_ns = t0_ns
        self.keep_records = keep_records
        self.token_stage = token_stage
        self.json_payload = json_payload
        self.records: list[dict[str, Any]] = []
        self.token_latencies = token_latencies
        self.execute: Execute | None = None
        self.stats = SutStats()
        self.stopping = False
        self.queries: list[Query] = []
        self._by_session: dict[str, Query] = {}
        self._repeats: Counter[int] = Counter()
        self._batches = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(max_in_flight) if max_in_flight else None
        self._lock = threading.Lock()  # _answer_empty runs on both threads

    @property
    def realtime_first_token(self) -> bool:
        """Whether first tokens reach LoadGen as they arrive (each session's requests carry
        a first-token watch as their chunk hook)."""
        return self.token_latencies

    # --- LoadGen's thread -------------------------------------------------------------
    def issue_queries(self, samples: list[Any]) -> None:
        now = perf_counter_ns()
        # in sample-index order, as the reference SUT sorts a batch (reference_SUT.py 343-349)
        items = sorted(((s.id, s.index) for s in samples), key=lambda item: item[1])
        if self.stopping:
            self._answer_empty(items)
            return
        try:
            self.loop.call_soon_threadsafe(self._start_batch, items, now)
        except RuntimeError:  # the loop is gone: never leave LoadGen waiting
            self._answer_empty(items)

    def flush_queries(self) -> None:
        return None

    def _answer_empty(self, items: list[tuple[int, int]]) -> None:
        with self._lock:
            self.stats.skipped += len(items)
        if self.token_latencies:
            self.lg.FirstTokenComplete([self.lg.QuerySampleResponse(i, 0, 0) for i, _ in items])
        self.lg.QuerySamplesComplete([self._response(i, 0, 0, 2) for i, _ in items])

    # --- the loop's thread ------------------------------------------------------------
    def _start_batch(self, items: list[tuple[int, int]], issued_ns: int) -> None:
        if self.stopping:
            self._answer_empty(items)
            return
        batch = self._batches
        self._batches += 1
        if self.stats.t_first_issue_ns is None:
            self.stats.t_first_issue_ns = issued_ns
        for query_id, qsl_index in items:
            # unique session ids across repeats of one sample, as the runner does
            index = qsl_index + self.source.size * self._repeats[qsl_index]
            self._repeats[qsl_index] += 1
            ticket = SessionTicket(index, self.source(index), issued_ns)
            query = Query(query_id, qsl_index, ticket, batch)
            if self.token_latencies:
                ticket.request_context = RequestContext(on_chunk=FirstTokenWatch(
                    partial(self._first_token, query, "stream")))
            self.queries.append(query)
            self._by_session[ticket.session_id] = query
            self.stats.issued += 1
            task = self.loop.create_task(self._run(query))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, query: Query) -> None:
        assert self.execute is not None, "SessionSut.execute not set"
        acquired = False
        try:
            if self._slots is not None:
                await self._slots.acquire()
                acquired = True
            await self.execute(query.ticket)
        except asyncio.CancelledError:
            self.stats.cancelled += 1
            query.status = query.status or "cancelled"
        except Exception as exc:  # a bug in a task must not hang LoadGen
            self.stats.exceptions += 1
            query.status = "error"
            print(f"error: session {query.ticket.session_id} raised "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr)
        finally:
            if acquired and self._slots is not None:
                self._slots.release()
            self._complete(query)

    def sink(self, record: dict[str, Any]) -> None:
        """The sink handed to the executor: LoadGen calls first, then the run's sink."""
        query = self._by_session.get(record.get("session_id", ""))
        if query is not None:
            rtype = record.get("type")
            if rtype == "step" and record.get("kind") == "llm" and record.get("status") == "ok":
                if self.token_stage is None or record.get("stage") == self.token_stage:
                    query.tokens += int(record.get("output_tokens") or 0)
                if "t_first_token_ns" in record and query.ttft_ms is None:
                    query.ttft_ms = self._issue_ttft(query, record)
                    self._first_token(query, "record")
            elif rtype == "sample" and isinstance(record.get("prediction"), str):
                query.answer = record["prediction"]
            elif rtype == "session":
                query.status = record.get("status")
                query.latency_ms = record.get("latency_ms")
                self._complete(query)
                record = {**record, "qsl_index": query.qsl_index,
                          "loadgen_issue": query.batch}
        if self.keep_records:
            self.records.append(record)
        self.inner_sink(record)

    def _issue_ttft(self, query: Query, record: dict[str, Any]) -> float | None:
        """:data:`ISSUE_TTFT` of the query whose first LLM call ``record`` is."""
        def at(key: str) -> int:
            return int(record.get(key) or 0) + self.t0_ns

        stamps = Timestamps(query.ticket.scheduled_ns, at("t_sent_ns"), at("t_end_ns"),
                            at("t_first_token_ns"), (), int(record.get("output_tokens") or 0))
        return _from_issue(stamps)  # ISSUE_TTFT's derive

    def _first_token(self, query: Query, how: str) -> None:
        if query.first_token is not None or query.done or not self.token_latencies:
            return
        query.first_token = how
        self.stats.first_token[how] += 1
        self.lg.FirstTokenComplete([self.lg.QuerySampleResponse(query.query_id, 0, 0)])

    def _complete(self, query: Query) -> None:
        if query.done:
            return
        self._first_token(query, "completion")  # LoadGen needs one before completion
        query.done = True
        tokens = self.counted_tokens(query)
        if self.token_latencies and tokens < 2:  # LoadGen's TPOT divides by tokens - 1
            self.stats.clamped_tokens += 1
            tokens = 2
        if self.json_payload:
            payload = json.dumps({"session_id": query.ticket.session_id, "qsl_index":
                                  query.qsl_index, "status": query.status,
                                  "output_tokens": query.tokens}).encode()
            buf = array.array("B", payload)  # alive until LoadGen has copied it (in the call)
        else:  # one int32 token id per output token
            buf = array.array("B", bytes(4 * self.counted_tokens(query)))
        addr, size = buf.buffer_info()
        self.lg.QuerySamplesComplete([self._response(query.query_id, addr, size, tokens)])
        del buf
        self.stats.completed += 1
        self.stats.t_last_done_ns = perf_counter_ns()

    def counted_tokens(self, query: Query) -> int:
        """The tokens LoadGen is told for ``query``: those counted; with ``token_stage``, when
        none was, the answer's words, at least 1 (reference_SUT.py 318-328)."""
        if query.tokens > 0 or self.token_stage is None:
            return query.tokens
        return max(1, len((query.answer or "").split()))

    def _response(self, query_id: int, addr: int, size: int, tokens: int) -> Any:
        # the count goes with every response, token latencies on or off, as the reference SUT
        # sends it (reference_SUT.py 323-330); LoadGen reads it only with token latencies on
        return self.lg.QuerySampleResponse(query_id, addr, size, tokens)

    # --- control ----------------------------------------------------------------------
    def in_flight(self) -> set[asyncio.Task[None]]:
        return set(self._tasks)

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def drain(self, timeout_s: float | None) -> None:
        """Wait for executors still finishing after their session record."""
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=timeout_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

