"""#42.1 on the simulator: a tree replay whose trace file disappears mid-run, or whose replay
raises, records an ``internal`` error session for it, goes on with the next tree and reads
INVALID (it said VALID, "Sessions 1/1 ok of 3 planned", before)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.cli.replay_cmd import parse_replay_args
from agentic_bench.run.benchmark import run_workload
from agentic_bench.tasks.trace_replay import trace_workload

pytestmark = pytest.mark.integration

TREE = Path(__file__).resolve().parents[1] / "data" / "weka" / "tree_subagents.json"


def corpus(folder: Path, n: int) -> list[Path]:
    folder.mkdir()
    data = json.loads(TREE.read_text())
    paths = []
    for k in range(n):
        path = folder / f"tree-{k}.json"
        path.write_text(json.dumps({**data, "id": f"{data['id']}-{k}"}))
        paths.append(path)
    return paths


def replay(folder: Path, url: str, out: Path, *extra: str) -> dict[str, Any]:
    options = parse_replay_args([str(folder), "--endpoint", url, "--out", str(out), "--quiet",
                                 "--tokenizer", "server", "--concurrency", "1", *extra])
    workload = trace_workload(options.trace, fmt=options.format, synthesis=options.synthesis)
    return workload, options


def sessions(out: Path) -> list[dict[str, Any]]:
    lines = (out / "records.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r.get("type") == "session"]


def test_a_tree_file_removed_mid_run_is_an_error_and_the_run_invalid(
        sim_factory: Any, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "0.2")
    paths = corpus(tmp_path / "trees", 3)
    out = tmp_path / "run"
    workload, options = replay(tmp_path / "trees", sim.url, out)
    paths[1].unlink()  # read lazily, one tree at a time: gone before its lane draws it
    summary = run_workload(workload, options, "replay")
    assert summary["result"] == "INVALID"
    assert summary["counts"]["sessions"] == 3 and summary["counts"]["sessions_ok"] == 2
    assert summary["counts"]["internal_errors"] == 1
    rows = {r["name"]: r for r in summary["constraints"]}
    assert rows["harness_errors"]["ok"] is False
    failed = [s for s in sessions(out) if s["status"] != "ok"]
    assert len(failed) == 1 and failed[0]["error_type"] == "internal"
    assert "tree-1.json" in failed[0]["error"] or "No such file" in failed[0]["error"]


def test_an_agentx_run_with_a_lost_tree_is_invalid(sim_factory: Any, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "0.2")
    paths = corpus(tmp_path / "trees", 3)
    out = tmp_path / "run"
    workload, options = replay(tmp_path / "trees", sim.url, out, "--agentx",
                               "--duration", "3", "--allow-dataset-wrap")
    paths[2].unlink()
    summary = run_workload(workload, options, "replay")
    assert summary["counts"]["internal_errors"] >= 1
    assert summary["result"] == "INVALID"
    assert {r["name"] for r in summary["constraints"] if not r["ok"]} >= {"harness_errors"}


def test_ctrl_c_records_every_subagent_request_it_sent(sim_factory: Any, tmp_path: Path) -> None:
    """#42.2: Ctrl-C while subagents are in flight: every request the simulator received is a
    record (cancelled ones as ``cancelled``, their branches too), nothing is written after the
    records writer closed (before: 5 sent, 2 recorded, "writer not opened")."""
    import signal
    import subprocess
    import sys
    import time

    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "400", "--itl-ms", "5", "--request-log", str(log))
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "agentic_bench", "replay", str(TREE),
                             "--endpoint", sim.url, "--out", str(out), "--quiet",
                             "--tokenizer", "server", "--grace", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the root's first call and two subagents' are sent
        if log.exists() and len(log.read_text().splitlines()) >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert "writer not opened" not in err and "Traceback" not in err, err
    time.sleep(0.5)
    sent = len(log.read_text().splitlines())
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    llm = [r for r in records if r.get("kind") == "llm"]
    assert len(llm) == sent >= 3
    assert any(r["status"] == "cancelled" for r in llm)
    branches = [r for r in records if r.get("type") == "branch"]
    assert branches and all(r["status"] in ("ok", "cancelled") for r in branches)
    assert json.loads((out / "summary.json").read_text())["result"] == "INVALID"
