"""A native trace whose prompts are given as blocks (here imported from TraceLab) is rebuilt in
each worker from its recipe, which carries the synthesis options, and each worker loads the
tokenizer itself (``Workload.prepare``): ``--workers 2`` sends the bodies one process sends
(it was refused: such a workload had no recipe)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "importers" / "tracelab.jsonl"


def bodies(log: Path) -> Counter[str]:
    return Counter(json.dumps(json.loads(line)["body"], sort_keys=True)
                   for line in log.read_text().splitlines())


def test_two_workers_send_the_bodies_of_one_process(sim_factory: Any, tmp_path: Path) -> None:
    trace = tmp_path / "tracelab.jsonl"
    res = run_cli("import", "tracelab", str(FIXTURE), "--out", str(trace))
    assert res.returncode == 0, res.stderr
    sent = {}
    for name, extra in (("one", ()), ("two", ("--scenario", "concurrency", "--concurrency",
                                              "2", "--workers", "2"))):
        log = tmp_path / f"{name}.requests.jsonl"
        sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--request-log", str(log))
        res = run_cli("replay", str(trace), "--endpoint", sim.url, "--tokenizer", "server",
                      "--think-time", "none", "--out", str(tmp_path / name), "--quiet", *extra)
        assert res.returncode == 0, res.stderr[-2000:]
        sent[name] = bodies(log)
    assert sent["two"] == sent["one"] and sum(sent["one"].values()) == 7
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    assert [w["shard"] for w in summary["workers"]] == [0, 1]
