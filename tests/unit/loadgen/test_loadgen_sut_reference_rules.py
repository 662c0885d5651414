"""#43 E2E-RAG items 5 and 9: the SUT starts a LoadGen batch in sample-index order and, for the
answer's tokens, counts an answer with no reported token by its words — each a transcription of
the reference rule (mlcommons/inference b66003e1 ``e2e-rag/reference_SUT.py``, lines cited)."""

from __future__ import annotations

import asyncio
from typing import Any

from agentic_bench.contracts import SessionOutcome, SessionTicket
from tests.unit.loadgen.test_loadgen_sut import (
    FakeLg,
    Sample,
    issue_from_thread,
    make_sut,
    settle,
)


def test_a_batch_starts_in_sample_index_order() -> None:
    """reference_SUT.py 343-349: ``sorted(query_samples, key=lambda s: s.index)`` before the
    batch goes to the thread pool; LoadGen's own order is shuffled."""
    async def main() -> None:
        lg = FakeLg()
        sut, _ = make_sut(lg, 5)
        started: list[int] = []

        async def execute(ticket: SessionTicket) -> SessionOutcome:
            started.append(ticket.index)
            return SessionOutcome(ticket.session_id, "ok", 1, 1, 0, 0)

        sut.execute = execute
        shuffled = [Sample(10, 3), Sample(11, 0), Sample(12, 4), Sample(13, 1), Sample(14, 2)]
        await issue_from_thread(sut, shuffled)
        await settle(sut, lg, 5)
        assert started == [0, 1, 2, 3, 4]
        assert [q.query_id for q in sut.queries] == [11, 13, 14, 10, 12]

    asyncio.run(main())


def _answer_session(sut: Any, answer: str | None, tokens: int) -> Any:
    async def execute(ticket: SessionTicket) -> SessionOutcome:
        if tokens:
            sut.sink({"type": "step", "kind": "llm", "status": "ok", "stage": "generate",
                      "session_id": ticket.session_id, "output_tokens": tokens})
        if answer is not None:
            sut.sink({"type": "sample", "session_id": ticket.session_id, "prediction": answer})
        sut.sink({"type": "session", "session_id": ticket.session_id, "status": "ok",
                  "latency_ms": 1.0})
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 1, 0)

    return execute


def _count(answer: str | None, tokens: int, **kw: Any) -> tuple[int, int]:
    """(n_tokens LoadGen was told, bytes of the response data) for one query."""
    async def main() -> tuple[int, int]:
        lg = FakeLg()
        sizes: list[int] = []
        original = lg.QuerySampleResponse

        def response(*args: int) -> Any:
            sizes.append(args[2])
            return original(*args)

        lg.QuerySampleResponse = response  # type: ignore[method-assign]
        sut, _ = make_sut(lg, 1, token_stage="generate", json_payload=False,
                          token_latencies=False, **kw)
        sut.execute = _answer_session(sut, answer, tokens)
        await issue_from_thread(sut, [Sample(1, 0)])
        await settle(sut, lg, 1)
        (n,) = [n for k, _, n in lg.calls if k == "done"]
        assert n is not None
        return n, sizes[-1]

    return asyncio.run(main())


def test_an_answer_without_a_token_count_counts_its_words_at_least_one() -> None:
    """reference_SUT.py 318-328: when the answer call's ``usage.completion_tokens`` is missing
    or not positive, ``output_token_count = max(1, len(answer.split()))`` and the data holds
    that many int32 ids; a question that raised has the answer "Error" (294-307): one token.
    With token latencies off (the reference's setting) the count still goes with the response
    (323-330)."""
    assert _count("Paris is the capital", 0) == (4, 16)
    assert _count("", 0) == (1, 4)
    assert _count(None, 0) == (1, 4)  # no sample record (a question that raised): one token
    assert _count("Paris is the capital", 7) == (7, 28)  # a reported count wins
