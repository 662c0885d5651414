"""run_with_loadgen with the real LoadGen and an in-memory transport (no network)."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
from pathlib import Path
from time import perf_counter_ns
from typing import Any

import pytest

from agentic_bench.contracts import Workload
from agentic_bench.endpoint.resolve import Endpoint
from agentic_bench.loadgen.run import LoadgenSegment, run_with_loadgen
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.loadgen import LoadgenOptions
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.tasks.trace_replay import trace_workload
from agentic_bench.transport.result import ChatResult

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mlperf_loadgen") is None,
                                reason="mlperf_loadgen (mlcommons-loadgen) not installed")


class SleepTransport:
    """Streams 4 tokens: first after 20 ms, then 3 more 5 ms apart."""

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        sent = perf_counter_ns()
        await asyncio.sleep(0.02)
        times = [perf_counter_ns()]
        for _ in range(3):
            await asyncio.sleep(0.005)
            times.append(perf_counter_ns())
        return ChatResult(t_sent_ns=sent, t_first_token_ns=times[0], t_end_ns=perf_counter_ns(),
                          token_times_ns=times, content="abcd", output_tokens=4)

    async def aclose(self) -> None:
        return None


class OracleTransport:
    """Answers each BFCL sample with its ground-truth calls (keyed by the user message)."""

    def __init__(self, answers: dict[str, list[dict[str, Any]]]) -> None:
        self.answers = answers

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        from agentic_bench.tasks.agentic_edge.tools_convert import sanitize_name

        t = perf_counter_ns()
        user = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        calls = [{"id": f"c{i}", "name": sanitize_name(n), "arguments": json.dumps(a)}
                 for i, c in enumerate(self.answers.get(user, [])) for n, a in c.items()]
        return ChatResult(t_sent_ns=t, t_first_token_ns=t + 1000, t_end_ns=t + 5000,
                          token_times_ns=[t + 1000, t + 2000], output_tokens=2, tool_calls=calls)

    async def aclose(self) -> None:
        return None


def drive(workload: Workload, out: Path, load: LoadSpec, options: LoadgenOptions,
          transport: Any = None) -> tuple[LoadgenSegment, list[dict[str, Any]]]:
    records: list[dict[str, Any]] = []
    endpoint = Endpoint(transport or SleepTransport(), "m", "fake", "fake")

    async def main() -> LoadgenSegment:
        return await run_with_loadgen(workload, endpoint, out, records.append, load=load,
                                      slos=dict(workload.default_slos),
                                      replay=ReplayOptions(model="m"), options=options)

    return asyncio.run(main()), records


@pytest.mark.parametrize(("scenario", "kw", "sessions"), [
    ("offline", {}, 6),
    ("server", {"target_qps": 50.0}, 6),
    ("single-stream", {}, 6),
    ("multi-stream", {"concurrency": 3}, 6),
])
def test_scenarios_write_loadgen_files_and_agree_with_us(
        trace_factory: Any, tmp_path: Path, scenario: str, kw: dict[str, Any],
        sessions: int) -> None:
    workload = trace_workload(trace_factory(4))
    load = LoadSpec(scenario=scenario, sessions=sessions, concurrency=kw.get("concurrency"))
    seg, records = drive(workload, tmp_path, load,
                         LoadgenOptions(scenario=scenario, target_qps=kw.get("target_qps")))
    assert {"mlperf_log_summary.txt", "mlperf_log_detail.txt",
            "mlperf_log_accuracy.json"} <= {p.name for p in tmp_path.iterdir()}
    assert not (tmp_path / "mlperf_log_trace.json").exists()
    lg = seg.loadgen
    assert seg.issued == sessions and seg.stop_reason == "done" and seg.cancelled == 0
    assert lg["sut"]["completed"] == sessions and lg["sut"]["exceptions"] == 0
    assert len([r for r in records if r["type"] == "session"]) == sessions
    assert lg["scenario"] == {"offline": "Offline", "server": "Server",
                              "single-stream": "SingleStream",
                              "multi-stream": "MultiStream"}[scenario]
    cmp = lg["comparison"]["latency_ms"]  # the same quantity (the tight bound is checked
    assert abs(cmp["diff_ms"]) < 10.0, lg["comparison"]  # in tests/integration/test_loadgen)
    assert lg["result"] in ("VALID", "INVALID")
    assert seg.duration_s > 0


def test_accuracy_mode_issues_every_sample_once(trace_factory: Any, tmp_path: Path) -> None:
    workload = trace_workload(trace_factory(5))
    workload.score = lambda recs: {"sessions": sum(r["type"] == "session" for r in recs)}
    seg, _ = drive(workload, tmp_path, LoadSpec(scenario="offline"),
                   LoadgenOptions(scenario="offline", mode="accuracy"))
    entries = json.loads((tmp_path / "mlperf_log_accuracy.json").read_text())
    assert sorted(e["qsl_idx"] for e in entries) == [0, 1, 2, 3, 4]
    assert seg.accuracy == {"sessions": 5}
    assert seg.loadgen["accuracy"]["logged_samples"] == 5
    assert seg.loadgen["mode"] == "AccuracyOnly"


def test_agentic_edge_accuracy_through_loadgen(tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    from agentic_bench.tasks.agentic_edge import oracle_decoded, sample_single_turn
    from agentic_bench.tasks.agentic_edge.edge_workload import build_workload

    picked = sample_single_turn(quick=True)
    answers = {}
    for s in picked:
        user = next(m["content"] for m in s.messages if m["role"] == "user")
        if s.language == "python":
            answers[user] = [] if s.expects_no_call else oracle_decoded(s)
    workload = build_workload(argparse.Namespace(
        mode="accuracy", tool_mode="native", samples=None, quick=True, multi_turn_samples=0,
        perf_trace=None, perf_sessions=None, accuracy_target=0.9, max_steps=3, sessions=None))
    seg, _ = drive(workload, tmp_path, LoadSpec(scenario="offline", concurrency=8),
                   LoadgenOptions(scenario="offline", mode="accuracy"), OracleTransport(answers))
    block = seg.loadgen["accuracy"]
    assert block["logged_samples"] == block["unique_samples"] == len(picked)
    acc = seg.accuracy
    assert acc is not None and acc["total"] == len(picked)
    python_subsets = [s for s in acc["subsets"]
                      if all(x.language == "python" for x in picked if x.subset == s)]
    assert python_subsets
    assert all(acc["subsets"][s]["accuracy"] >= 0.95 for s in python_subsets)
