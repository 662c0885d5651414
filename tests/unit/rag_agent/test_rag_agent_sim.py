"""`run rag-agent` end to end on the latency simulator (in-process, over HTTP): the simulator
streams the scripted agent's tool calls (its oracle is rag_agent_support's test double), the
harness runs the real tools over a real FAISS index and writes the run; the summary carries
the accuracy, the per-stage tool waits, and the per-turn and per-session latency."""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rag_agent_support import ScriptedAgentOracle, task_args

from agentic_bench.endpoint.sim import SimConfig, SimServer
from agentic_bench.options.common import common
from agentic_bench.run.benchmark import run_workload
from agentic_bench.tasks.rag_agent.task import task

TTFT_MS = 20.0


@pytest.fixture
def sim_url() -> Iterator[tuple[str, ScriptedAgentOracle]]:
    """The simulator on its own event loop in a thread (the run has its own loop)."""
    loop = asyncio.new_event_loop()
    server = SimServer(SimConfig(ttft_ms=TTFT_MS, itl_ms=1))
    oracle = ScriptedAgentOracle()
    server.oracle = oracle  # type: ignore[assignment]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    port = asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
    try:
        yield f"http://127.0.0.1:{port}/v1", oracle
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def test_run_rag_agent_on_the_simulator(sim_url: tuple[str, ScriptedAgentOracle],
                                        frames_file: Path, tmp_path: Path,
                                        fake_embedder: None) -> None:
    url, oracle = sim_url
    out = tmp_path / "run"
    args = task_args("--frames", str(frames_file), "--cache-dir", str(tmp_path / "cache"),
                     "--kind", "flat", "--quiet", "--endpoint", url, "--out", str(out),
                     "--accuracy-metric", "em", "--accuracy-target", "0.5")
    summary = run_workload(task.workload(args), common(args))
    assert oracle.requests == 6  # search, open, answer for each of the two questions
    assert summary["counts"]["sessions"] == summary["counts"]["sessions_ok"] == 2
    assert summary["counts"]["requests"] == 6
    acc = summary["accuracy"]
    assert acc["headline"] == acc["exact_match"] == 1.0 and acc["answered"] == 2
    assert acc["opened_pages"]["precision"] == 1.0  # the opened pages are gold pages
    stages = summary["stages_ms"]
    assert {"agent", "embed", "search", "rerank", "open"} <= set(stages)
    assert stages["agent"]["count"] == 6 and stages["open"]["count"] == 2
    assert stages["agent"]["p50"] >= TTFT_MS  # each LLM call waited the simulator's TTFT
    latency = summary["latency_ms"]
    assert latency["turn"]["count"] == latency["session"]["count"] == 2
    assert latency["ttft"]["count"] == 6 and latency["ttft"]["p50"] >= TTFT_MS
    records = [json.loads(line) for line in
               (out / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    sessions = [r for r in records if r.get("type") == "session"]
    for session in sessions:
        mine = [r for r in records if r.get("type") == "step"
                and r["session_id"] == session["session_id"]]
        tool = math.fsum(r["duration_ms"] for r in mine if r["kind"] == "tool")
        assert math.isclose(tool, session["tool_wait_ms"], rel_tol=1e-9, abs_tol=1e-9)
        llm = math.fsum(r["request_ms"] for r in mine if r["kind"] == "llm")
        assert session["latency_ms"] >= llm + tool  # the session holds its calls and tools
    assert summary["workload"]["agent"]["tools"] == ["search", "open"]
    run_record: dict[str, Any] = next(r for r in records if r.get("type") == "run")
    assert run_record["benchmark"] == "rag-agent"


def test_the_judge_when_one_is_given_is_the_headline(sim_url: tuple[str, ScriptedAgentOracle],
                                                     frames_file: Path, tmp_path: Path,
                                                     fake_embedder: None) -> None:
    url, oracle = sim_url
    args = task_args("--frames", str(frames_file), "--cache-dir", str(tmp_path / "cache"),
                     "--kind", "flat", "--quiet", "--endpoint", url, "--out",
                     str(tmp_path / "run"), "--judge-endpoint", url,
                     "--accuracy-metric", "judge")
    acc = run_workload(task.workload(args), common(args))["accuracy"]
    assert oracle.judged == 2 and acc["exact_match"] == 1.0  # both answers are the gold ones
    assert acc["judge"]["correct"] == 1 and acc["judge"]["questions"] == 2
    assert acc["headline"] == 0.5 and acc["metric"] == "LLM-judge accuracy"
