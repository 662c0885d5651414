"""The options schema end to end (#23 item 3): a replay configured by a file on the simulator
keeps its validated options in the run record, whose records all carry the declared fields, and
in config.yaml, from which the same run runs again;
``--resume`` names the identity option that differs; a sharded benchmark's workers rebuild
their workload from the options as JSON (the recipe), not from a pickled namespace."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import yaml

from agentic_bench.records.types import RECORD_VERSION, missing_fields

pytestmark = pytest.mark.integration


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]


def test_replay_from_a_config_file(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "4")
    trace = trace_factory(6)
    config = tmp_path / "replay.yaml"
    config.write_text(yaml.safe_dump({"benchmark": "replay", "trace": str(trace),
                                      "scenario": "concurrency", "concurrency": 2,
                                      "slo": ["ttft_p99_ms=5000"], "max-tokens": 16}))
    out = tmp_path / "run"
    res = cli("replay", "--config", str(config), "--endpoint", sim.url, "--out", str(out),
              "--quiet")
    assert res.returncode == 0, res.stderr
    records = _records(out)
    run = records[0]
    assert run["type"] == "run" and run["record_version"] == RECORD_VERSION == 2
    options = run["options"]
    assert (options["concurrency"], options["scenario"], options["max_tokens"]) == \
        (2, "concurrency", 16)
    assert options["endpoint"] == sim.url and options["trace"] == str(trace)  # file + flags
    assert {r["type"]: missing_fields(r) for r in records if missing_fields(r)} == {}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["load"]["concurrency"] == 2 and summary["result"] == "VALID"
    assert summary["slos"]["ttft_p99_ms"] == 5000
    command = summary["command_line"]  # the run as a shell command (summary, txt, report)
    assert command == run["command_line"] and command.startswith("agentic-bench replay ")
    assert f"--endpoint {sim.url}" in command and "--concurrency 2" in command
    assert "--out" not in command and f"Command   : {command}" in (out / "summary.txt").read_text()
    assert command in (out / "report.html").read_text()
    again_cmd = cli(*shlex.split(command)[1:], "--out", str(tmp_path / "cmd"), "--quiet")
    assert again_cmd.returncode == 0, again_cmd.stderr
    assert {k: v for k, v in _records(tmp_path / "cmd")[0]["options"].items() if k != "out"} == \
        {k: v for k, v in options.items() if k != "out"}  # the command runs the same options
    saved = yaml.safe_load((out / "config.yaml").read_text())  # the run, as a config file
    assert saved["benchmark"] == "replay" and saved["concurrency"] == 2
    assert "out" not in saved and "resume" not in saved
    rerun = tmp_path / "rerun"
    res = cli("replay", "--config", str(out / "config.yaml"), "--out", str(rerun), "--quiet")
    assert res.returncode == 0, res.stderr
    assert {k: v for k, v in _records(rerun)[0]["options"].items() if k != "out"} == \
        {k: v for k, v in options.items() if k != "out"}  # the same run again
    again = cli("replay", "--config", str(config), "--endpoint", sim.url, "--resume", str(out),
                "--concurrency", "3", "--quiet")
    assert again.returncode == 2 and "--concurrency: 2 then, 3 now" in again.stderr
    same = cli("replay", "--config", str(config), "--endpoint", sim.url, "--resume", str(out),
               "--grace", "5", "--quiet")  # an option outside the identity may change
    assert same.returncode == 0, same.stderr


def test_sharded_benchmark_workers_rebuild_from_json_options(sim_factory, cli,
                                                             tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "1", "--output-tokens", "4")
    out = tmp_path / "edge"
    res = cli("run", "agentic-edge", "--mode", "accuracy", "--samples", "6", "--workers", "2",
              "--scenario", "concurrency", "--concurrency", "2", "--endpoint", sim.url,
              "--out", str(out), "--quiet", timeout=600)
    assert res.returncode in (0, 3), res.stderr  # the simulator's replies fail BFCL's gates
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["workers"]) == 2 and summary["counts"]["errors"] == 0
    assert summary["counts"]["sessions"] == summary["counts"]["sessions_ok"] >= 6
    run = _records(out)[0]
    assert run["options"]["samples"] == 6 and run["options"]["workers"] == 2
