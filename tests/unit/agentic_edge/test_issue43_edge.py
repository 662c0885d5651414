"""#43 Agentic Edge items 3-5, each transcribed from mlcommons/endpoints ea332753 (paths under
``src/inference_endpoint/``).

3. No timeout for the BFCL accuracy phase: the HTTP client sets no per-request limit
   (``endpoint_client/http.py`` 572 connects "without timeout"; nothing reads a timeout per
   request), the accuracy drain waits indefinitely (``config/schema.py`` 822-832: default None,
   ``commands/benchmark/execute.py`` 689), and the yaml's ``timeout: 21600`` is not applied by
   ``execute.py``. Ours: every agentic-edge run gets a 6 h request timeout; another value departs.
4. ``accuracy_results.json`` order: ``execute.py`` 312-364 appends the accuracy datasets' configs
   first, 418-446 the performance (inline) one after; ``commands/benchmark/accuracy.py`` 260-377
   scores and appends entries in that order. BFCL first.
5a. A malformed SSE frame: ``endpoint_client/worker.py`` 507-526 parses each network read's
   complete events as one batch; ``adapter_protocol.py`` 128-138 decodes the frames matching
   ``data:\\s*(\\{[^\\n]+\\})`` (47) in order and on ``DecodeError`` skips the rest of that batch,
   keeping the frames before it. The next read is parsed again.
5b. ``evaluation/extractor.py`` 586-587 catches only ``ValueError``/``SyntaxError`` around
   ``ast.literal_eval``, so ``f(a={[1]: 2})`` (``TypeError``) aborts the reference's whole scoring
   pass; ours (the named departure of ``reference_scoring.py``) scores that sample 0 with its
   reason, and its record counts as completed for the 995 gate.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from time import perf_counter_ns
from typing import Any

import pytest

from agentic_bench.contracts import ExecContext, SessionTicket
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.tasks.agentic_edge.mlperf_artifacts import build_accuracy_results
from agentic_bench.tasks.agentic_edge.mlperf_config import BFCL_REQUEST_TIMEOUT_S, mlperf_block
from agentic_bench.tasks.registry import load_task, parse_task_options
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn
from agentic_bench.transport import ChatResult, assemble_stream
from agentic_bench.transport.request import NO_CONTEXT, RequestContext

DATA = Path(__file__).resolve().parents[2] / "data" / "mlcommons_edge"
OFFICIAL = ("--perf-trace", "/data/agentic_coding_2.5h.jsonl")


# ---- item 3 -------------------------------------------------------------------------------------
def test_the_bfcl_phase_waits_far_beyond_any_reply() -> None:
    options = parse_task_options(load_task("agentic-edge"), list(OFFICIAL))
    assert options.request_timeout == BFCL_REQUEST_TIMEOUT_S >= 6 * 3600
    assert options.replay(model="m").request_timeout_s == BFCL_REQUEST_TIMEOUT_S  # the BFCL calls
    assert not [d for d in mlperf_block(options)["departures"] if "request-timeout" in d]


def test_a_request_timeout_given_is_a_named_departure() -> None:
    options = parse_task_options(load_task("agentic-edge"), [*OFFICIAL, "--request-timeout", "300"])
    gone = [d for d in mlperf_block(options)["departures"] if "request-timeout" in d]
    assert len(gone) == 1 and "waits for every reply" in gone[0]


# ---- item 4 -------------------------------------------------------------------------------------
def test_the_bfcl_entry_comes_first() -> None:
    summary = json.loads((DATA / "summary-combined.json").read_text())
    assert summary["accuracy"].get("inline") and summary["accuracy"].get("planned")
    entries = build_accuracy_results(summary, [])["accuracy_scores"]
    assert [e["dataset_name"] for e in entries] == ["bfcl_v4::function_calling", "performance"]


# ---- item 5a ------------------------------------------------------------------------------------
def frame(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


BAD = b'data: {"choices": [{"delta": {"content": "lost}\n\n'
DONE = b"data: [DONE]\n\n"


def reference_content(reads: list[bytes]) -> tuple[str, str | None]:
    """worker.py 507-533 + adapter_protocol.py 128-138, transcribed: per read, the complete
    events up to the last blank line; frames decoded in order until one fails."""
    content, finish, pending = [], None, b""
    for i, data in enumerate(reads):
        buffer = pending + data
        cut = len(buffer) if i == len(reads) - 1 else buffer.rfind(b"\n\n")
        if cut == -1:
            pending = buffer
            continue
        pending = buffer[cut + 2:]
        for doc in re.findall(rb"data:\s*(\{[^\n]+\})", buffer[:cut]):
            try:
                choices = json.loads(doc).get("choices") or ()
            except ValueError:
                break  # the rest of this read's batch is skipped
            if choices:
                content.append(choices[0]["delta"].get("content") or "")
                finish = choices[0].get("finish_reason") or finish
    return "".join(content), finish


def assembled(reads: list[bytes], rule: str = "mlperf") -> ChatResult:
    result = ChatResult(t_sent_ns=0, http_status=200)
    return assemble_stream(result, [(i + 1, r) for i, r in enumerate(reads)],
                           rule)  # type: ignore[arg-type]


@pytest.mark.parametrize("reads", [
    [frame({"content": "A"}) + BAD + frame({"content": "B"}),
     frame({"content": "C"}, "stop") + DONE],
    [frame({"content": "A"}), BAD + frame({"content": "B"}, "stop") + DONE],  # finish skipped
    [frame({"content": "A"}), b"data: [1, 2]\n\n" + frame({"content": "B"}, "stop") + DONE],
])
def test_a_malformed_frame_skips_only_its_network_read(reads: list[bytes]) -> None:
    r = assembled(reads)
    content, finish = reference_content(reads)
    assert r.status == "ok", r.error
    assert (r.content, r.finish_reason) == (content, finish)


def test_the_skip_is_noted_and_other_requests_still_fail() -> None:
    reads = [frame({"content": "A"}) + BAD, frame({"content": "C"}, "stop") + DONE]
    assert "malformed SSE frame skipped" in (assembled(reads).error or "")
    other = assembled(reads, rule="openai")
    assert other.status == "error" and other.error_type == "malformed"


# ---- item 5b ------------------------------------------------------------------------------------
class Replayed:
    """Answers every request with ``raw``, assembled by the real SSE code under its rule."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext = NO_CONTEXT) -> ChatResult:
        t = perf_counter_ns()
        result = ChatResult(t_sent_ns=t, t_first_byte_ns=t + 5, t_end_ns=t + 20, http_status=200)
        return assemble_stream(result, [(t + 10, self.raw)], context.tool_deltas)

    async def aclose(self) -> None:
        return None


def test_a_literal_eval_type_error_scores_zero_and_keeps_its_record() -> None:
    pytest.importorskip("bfcl_eval")
    from agentic_bench.tasks.agentic_edge import load_subset
    from agentic_bench.tasks.agentic_edge.executors import run_single
    from agentic_bench.tasks.agentic_edge.reference_scoring import score_reply

    sample = next(x for x in load_subset("simple_python") if x.id == "simple_python_13")
    text = "calculate_area_under_curve(function={[1]: 2})"
    verdict, calls = score_reply(sample, text)
    assert not verdict.valid and verdict.error_type == "extractor" and calls == []
    assert "TypeError" in (verdict.error or "")
    records: list[dict[str, Any]] = []
    ctx = ExecContext(Replayed(frame({"content": text}, "stop") + DONE), records.append,
                      perf_counter_ns(), ReplayOptions(model="m"))
    session = Session(schema_version=SCHEMA_VERSION, session_id=sample.id,
                      category=sample.category, turns=[Turn(user="(sample)")])
    asyncio.run(run_single(ctx, SessionTicket(0, session, perf_counter_ns()), sample, "native"))
    got = next(r for r in records if r["type"] == "sample")
    assert got["completed"] and got["answered"] and not got["bfcl_valid"]
