"""#46 item 2: a tree's prompts are written off the send path. The request after a wait is
written during the wait (``prompt_ahead``) and sent as the bytes the client encoded then; those
bytes equal a fresh encode of a prompt written from scratch; every request records its writing
time and its send's lateness against its due instant; one ready after it was due is
``prompt_late`` and counted in the summary, never hidden."""

from __future__ import annotations

import asyncio
from time import perf_counter_ns
from typing import Any

from agentic_bench.api import SessionTicket
from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.options.replay import ReplayOptions, SynthesisOptions, ThinkPolicy
from agentic_bench.replay.history import request_body
from agentic_bench.replay.trace_replayer import TraceReplayer
from agentic_bench.replay.tree import Synthesis, TreeRun
from agentic_bench.synthesis.vocabulary import word_list
from agentic_bench.trace.model import LlmStep, Session
from agentic_bench.trace.weka.convert import weka_session
from agentic_bench.trace.weka.model import WekaTrace
from agentic_bench.transport.chat import ChatClient, Reply
from agentic_bench.transport.prepared import PreparedBody
from agentic_bench.transport.request import RequestContext

SSE = (b'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n'
       b"data: [DONE]\n\n")


class CapturingClient(ChatClient):
    """The real chat layer over a sender that keeps each payload and answers one token."""

    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9/v1")
        self.sent: list[tuple[bytes, bool]] = []  # (payload, whether it came pre-encoded)
        self._ahead = False

    def _encode(self, body: dict[str, Any]) -> bytes:
        import orjson

        return orjson.dumps(body)

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext | None = None) -> Any:
        ctx = context or RequestContext()
        self._ahead = isinstance(body, PreparedBody) and body.bytes_for(self, ctx) is not None
        return await super().chat(body, timeout_s, context=ctx)

    async def _send(self, payload: bytes, context: RequestContext, timeout_s: float) -> Reply:
        self.sent.append((payload, self._ahead))
        now = perf_counter_ns()
        return Reply(now, 200, None, now, [(now, SSE)], now)

    async def warm_up(self, connections: int) -> None:
        pass

    async def list_models(self) -> tuple[int, Any]:
        return 200, {}

    async def aclose(self) -> None:
        pass


def weka_tree(requests: int = 4, gap_s: float = 0.02) -> Session:
    rows, t = [], 0.0
    for k in range(requests):
        size = 1000 + 700 * k
        rows.append({"t": round(t, 6), "type": "s", "model": "m", "in": size, "out": 8,
                     "hash_ids": list(range(1, size // 64 + 1)), "api_time": 0.001})
        t += 0.001 + gap_s
    trace = {"id": "grow", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
             "tool_tokens": 100, "system_tokens": 100, "requests": rows}
    return weka_session(WekaTrace.model_validate(trace))


def run_tree(session: Session, transport: Any, think: str = "recorded"
             ) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    synthesis = Synthesis(SynthesisOptions(), words=word_list())
    options = ReplayOptions(model="m", think=ThinkPolicy.parse(think))
    replayer = TraceReplayer(transport, records.append, options, 0, synthesis)
    asyncio.run(replayer.run(SessionTicket(0, session, perf_counter_ns())))
    return records


def fresh_payloads(session: Session, client: CapturingClient) -> list[bytes]:
    """Each request's bytes written from scratch: no block written before, encoded at once."""
    synthesis = Synthesis(SynthesisOptions(), words=word_list())
    tree = TreeRun.start(session, None, synthesis, 0)
    layout = session.token_blocks
    assert layout is not None
    out = []
    steps = [s for s in session.turns[0].steps if isinstance(s, LlmStep)]
    for index, step in enumerate(steps):
        msgs, _ = tree.prompt_body("", index, step, layout, None)
        body = request_body(session, step, msgs, "m", {}, tree.output_params(step))
        out.append(client.prepare(body))
    return out


def test_the_request_after_a_wait_goes_as_bytes_encoded_ahead_equal_to_a_fresh_encode(
) -> None:
    session = weka_tree()
    client = CapturingClient()
    records = run_tree(session, client)
    llm = [r for r in records if r.get("kind") == "llm"]
    assert [r["prompt_ahead"] for r in llm] == [False, True, True, True]
    # every body reaches the sender as the bytes encoded where it was written (the first,
    # with no wait before it, just before its send)
    assert [pre for _, pre in client.sent] == [True] * 4
    assert [payload for payload, _ in client.sent] == fresh_payloads(session, client)
    assert all(r["prompt_build_ms"] > 0 and "send_late_ms" in r for r in llm)


def test_a_prompt_ready_after_it_was_due_is_counted_late() -> None:
    # no think time: each request is due the instant its wait begins, before it is written
    records = run_tree(weka_tree(), CapturingClient(), think="scaled:0")
    llm = [r for r in records if r.get("kind") == "llm"]
    assert all(r.get("prompt_late") is True for r in llm)
    summary = summarize(records, RunInfo("replay", True, 1.0))
    assert summary["harness"]["prompt_late"] == len(llm) == 4
    assert summary["harness"]["prompt_ahead"] == 3
    assert summary["harness"]["prompt_build_ms"]["count"] == 4
