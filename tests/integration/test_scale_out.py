"""Sharded runs: local worker processes and a local Ray instance, against the simulator."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def check(out: Path, sessions: int, workers: int) -> dict:
    s = json.loads((out / "summary.json").read_text())
    recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    ids = [r["session_id"] for r in recs if r["type"] == "session"]
    assert len(ids) == len(set(ids)) == sessions  # every session exactly once
    assert s["counts"]["sessions_ok"] == sessions and s["result"] == "VALID"
    assert abs(s["latency_ms"]["ttft"]["p50"] - 100) <= 3, s["latency_ms"]["ttft"]
    assert len(s["workers"]) == workers
    assert {w["shard"] for w in s["workers"]} == set(range(workers))
    assert sum(w["requests"] for w in s["workers"]) == s["counts"]["requests"]
    for w in s["workers"]:
        assert {"p50", "p99"} <= set(w["schedule_lag_ms"]) and w["cpu_s"] > 0
    return s


def test_two_worker_processes(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "100", "--itl-ms", "5", "--output-tokens", "8")
    out = tmp_path / "w"
    res = cli("replay", str(trace_factory(40)), "--endpoint", sim.url, "--scenario", "server",
              "--rate", "20", "--workers", "2", "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    check(out, 40, 2)


@pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                    reason="ray not installed (pip install 'agentic-serving-bench[distributed]')")
def test_two_ray_actors_on_local_ray(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "100", "--itl-ms", "5", "--output-tokens", "8")
    out = tmp_path / "r"
    res = cli("replay", str(trace_factory(30)), "--endpoint", sim.url, "--scenario",
              "concurrency", "--concurrency", "4", "--workers", "2", "--ray-address", "local",
              "--out", str(out), "--quiet", env={"RAY_USAGE_STATS_ENABLED": "0"}, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    check(out, 30, 2)
