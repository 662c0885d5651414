"""MLPerf LoadGen drives the harness against the latency simulator over loopback.

``drive`` runs a workload with ``--loadgen mlperf`` through ``run.benchmark.run_workload`` (the
code the CLI runs); the CLI tests at the end go through the command line itself.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.contracts import Workload
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.loadgen import LoadgenOptions
from agentic_bench.options.parser import resolve
from agentic_bench.run.benchmark import run_workload
from agentic_bench.tasks.trace_replay import trace_workload

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(importlib.util.find_spec("mlperf_loadgen") is None,
                       reason="mlperf_loadgen (pip install 'agentic-serving-bench[loadgen]') "
                       "missing"),
]
SIM = ("--ttft-ms", "100", "--itl-ms", "10", "--output-tokens", "16")  # request ≈ 250 ms
LOADGEN_FILES = {"mlperf_log_summary.txt", "mlperf_log_detail.txt", "mlperf_log_accuracy.json"}


def drive(workload: Workload, url: str, out: Path, load: LoadSpec,
          options: LoadgenOptions) -> dict[str, Any]:
    """``--loadgen mlperf`` through the one composition root (``run.benchmark.run_workload``), so
    these tests cover what the CLI runs."""
    given = {"endpoint": url, "scenario": load.scenario, "concurrency": load.concurrency,
             "sessions": load.sessions, "loadgen": "mlperf", "target_qps": options.target_qps,
             "loadgen_mode": options.mode, "out": str(out), "quiet": True}
    validated = resolve(CommonOptions, {k: v for k, v in given.items() if v is not None})
    assert validated.loadgen_options == options  # the options' LoadGen view is the one asked
    return run_workload(workload, validated)


def check_run_dir(out: Path) -> dict[str, Any]:
    names = {p.name for p in out.iterdir()}
    assert LOADGEN_FILES | {"records.jsonl", "summary.json"} <= names, names
    summary = json.loads((out / "summary.json").read_text())
    assert "Result is :" in (out / "mlperf_log_summary.txt").read_text()
    return summary


def test_offline_through_loadgen(sim_factory: Any, trace_factory: Any, tmp_path: Path) -> None:
    sim = sim_factory(*SIM)
    out = tmp_path / "offline"
    drive(trace_workload(trace_factory(8)), sim.url, out, LoadSpec(scenario="offline"),
          LoadgenOptions(scenario="offline"))
    s = check_run_dir(out)
    lg = s["loadgen"]
    assert lg["scenario"] == "Offline" and lg["result"] in ("VALID", "INVALID")
    assert lg["query_count"] == 1 and lg["sut"]["completed"] == 8
    assert s["counts"]["sessions"] == 8 and s["counts"]["errors"] == 0
    cmp = lg["comparison"]["latency_ms"]
    assert cmp["count"] == 8 and abs(cmp["diff_ms"]) <= 2.0, cmp
    assert abs(lg["latency_ms"]["mean"] - 250) < 40, lg["latency_ms"]
    assert lg["tokens_per_s"] > 0


def test_server_through_loadgen(sim_factory: Any, trace_factory: Any, tmp_path: Path) -> None:
    sim = sim_factory(*SIM)
    out = tmp_path / "server"
    drive(trace_workload(trace_factory(8)), sim.url, out,
          LoadSpec(scenario="server", sessions=32), LoadgenOptions(scenario="server",
                                                                   target_qps=20))
    s = check_run_dir(out)
    lg = s["loadgen"]
    assert lg["scenario"] == "Server" and lg["query_count"] == 32
    assert set(lg["constraints"]) >= {"performance", "min_duration", "min_queries",
                                      "early_stopping"}
    assert "tpot" in lg["early_stopping"] or "ttft" in lg["early_stopping"]
    cmp = lg["comparison"]["latency_ms"]
    assert cmp["count"] == 32 and abs(cmp["diff_ms"]) <= 2.0, cmp
    assert lg["tpot_ms"]["mean"] > 0 and lg["first_token_ms"]["mean"] > 0
    ttft = lg["comparison"]["first_token_ms"]
    if lg["sut"]["first_token_realtime"]:  # the transport reports first tokens as they arrive
        assert abs(ttft["diff_ms"]) <= 2.0, ttft
    else:  # reported when the first step record arrives: the first request's end
        assert lg["sut"]["first_token"] == {"record": 32}
        assert abs(lg["first_token_ms"]["mean"] - lg["latency_ms"]["mean"]) < 5


def test_accuracy_mode_writes_the_accuracy_log(sim_factory: Any, trace_factory: Any,
                                               tmp_path: Path) -> None:
    sim = sim_factory(*SIM)
    out = tmp_path / "accuracy"
    workload = trace_workload(trace_factory(6))
    workload.score = lambda recs: {"ok_sessions": sum(
        1 for r in recs if r.get("type") == "session" and r["status"] == "ok")}
    s = drive(workload, sim.url, out, LoadSpec(scenario="offline"),
              LoadgenOptions(scenario="offline", mode="accuracy"))
    entries = json.loads((out / "mlperf_log_accuracy.json").read_text())
    assert sorted(e["qsl_idx"] for e in entries) == list(range(6))
    assert all(e["token_count"] == 16 for e in entries)
    assert s["accuracy"] == {"ok_sessions": 6}
    assert s["loadgen"]["accuracy"]["logged_samples"] == 6


def _assert_loadgen_flags(cli: Any) -> None:
    res = cli("replay", "--help")
    assert "--loadgen" in res.stdout, "the CLI lost its --loadgen flags (docs/loadgen.md)"


def test_cli_replay_offline(sim_factory: Any, trace_factory: Any, cli: Any,
                            tmp_path: Path) -> None:
    _assert_loadgen_flags(cli)
    sim = sim_factory(*SIM)
    out = tmp_path / "cli"
    res = cli("replay", str(trace_factory(6)), "--endpoint", sim.url, "--loadgen", "mlperf",
              "--scenario", "offline", "--out", str(out), "--quiet")
    assert res.returncode in (0, 3), res.stderr
    s = check_run_dir(out)
    assert s["loadgen"]["sut"]["completed"] == 6
    assert abs(s["loadgen"]["comparison"]["latency_ms"]["diff_ms"]) <= 2.0
    assert s["config"]["loadgen"]["scenario"] == "offline"


def test_cli_agentic_edge_offline(sim_factory: Any, cli: Any, tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    _assert_loadgen_flags(cli)
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "8")
    out = tmp_path / "edge"
    res = cli("run", "agentic-edge", "--quick", "--endpoint", sim.url, "--loadgen", "mlperf",
              "--scenario", "offline", "--out", str(out), "--quiet")
    assert res.returncode in (0, 3), res.stderr
    s = check_run_dir(out)
    assert s["loadgen"]["sut"]["completed"] == s["counts"]["sessions"] > 0
    assert s["accuracy"] is not None and s["stages_ms"] is not None
