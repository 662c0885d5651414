"""Agent trees on 64 lanes split over ``--workers 2`` and over a local Ray (``--ray-address
local``) send, on the simulator, the same requests and run the same trees as one process (the
multiset of request bodies, cache-bust markers taken out, and of (tree index, tree id)); the
summary says how many workers ran the lanes and how far apart their measured phases began.
On a two-node Ray cluster (two raylets on this host, ``ray.cluster_utils.Cluster``) the two
actors run on the two nodes. The Ray run takes about 25 s here (a local Ray starting), so it
stays in the unit suite."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sim, run_cli, start_sim

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"
MARKER = re.compile(r"\[rid:[0-9a-f]{12}\]")
TREES = 70  # more trees than lanes: lanes draw again once their first tree drains
LANES = 64


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """70 trees: the two of tests/data/weka/corpus.jsonl in turn, each with its own id."""
    rows = (DATA / "corpus.jsonl").read_text().splitlines()
    path = tmp_path_factory.mktemp("corpus") / "trees.jsonl"
    with path.open("w") as fh:
        for i in range(TREES):
            tree = json.loads(rows[i % len(rows)])
            tree["id"] = f"tree-{i}"
            fh.write(json.dumps(tree) + "\n")
    return path


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Sim, Path]]:
    log = tmp_path_factory.mktemp("sim") / "requests.jsonl"
    sim = start_sim("--ttft-ms", "2", "--itl-ms", "0", "--request-log", str(log))
    yield sim, log
    sim.stop()


def replay(corpus: Path, sim: tuple[Sim, Path], out: Path,
           *extra: str) -> tuple[Counter[str], Counter[tuple[int, str]], dict[str, Any]]:
    """One run's request bodies (markers out, hashed), its trees and its summary."""
    server, log = sim
    log.unlink(missing_ok=True)
    res = run_cli("replay", str(corpus), "--endpoint", server.url, "--tokenizer", "server",
                  "--scenario", "concurrency", "--concurrency", str(LANES), "--out", str(out),
                  "--quiet", *extra, env={"RAY_USAGE_STATS_ENABLED": "0"}, timeout=240)
    assert res.returncode == 0, res.stderr[-3000:]
    bodies = Counter(hashlib.sha256(MARKER.sub("", json.dumps(
        json.loads(line)["body"], sort_keys=True)).encode()).hexdigest()
        for line in log.read_text().splitlines())
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    trees = Counter((r["session_index"], r["source_session"]) for r in records
                    if r["type"] == "session")
    assert sum(r["type"] == "lanes" for r in records) == 1  # the workers' merged into one
    return bodies, trees, json.loads((out / "summary.json").read_text())


@pytest.fixture(scope="module")
def one_process(corpus: Path, sim: tuple[Sim, Path],
                tmp_path_factory: pytest.TempPathFactory
                ) -> tuple[Counter[str], Counter[tuple[int, str]], dict[str, Any]]:
    return replay(corpus, sim, tmp_path_factory.mktemp("one") / "run")


def per_worker(out: Path) -> list[dict[str, Any]]:
    """The ``per_worker`` rows of a run's merged ``lanes`` record (where each worker ran)."""
    records = (json.loads(x) for x in (out / "records.jsonl").read_text().splitlines())
    rows: list[dict[str, Any]] = next(r for r in records if r["type"] == "lanes")["per_worker"]
    return rows


def check_same_as_one_process(
        run: tuple[Counter[str], Counter[tuple[int, str]], dict[str, Any]],
        one: tuple[Counter[str], Counter[tuple[int, str]], dict[str, Any]]) -> dict[str, Any]:
    bodies, trees, summary = run
    assert sum(one[0].values()) > TREES  # trees of several requests each
    assert bodies == one[0]
    assert trees == one[1] and len(trees) == TREES
    lanes = summary["trees"]["trees"]["lanes"]
    solo = one[2]["trees"]["trees"]["lanes"]
    assert "workers" not in solo and set(solo) < set(lanes)
    assert lanes["workers"] == 2 and lanes["lanes"] == solo["lanes"] == LANES
    assert lanes["trees_started"] == solo["trees_started"] == TREES
    assert lanes["unfilled"] == solo["unfilled"] == 0
    assert lanes["measured_start_spread_ms"] is not None
    assert 0.0 <= lanes["measured_start_spread_ms"] < 1000.0
    assert [w["shard"] for w in summary["workers"]] == [0, 1]
    assert all(w["issued"] == TREES // 2 for w in summary["workers"])
    assert summary["counts"]["errors"] == 0 and summary["result"] == "VALID"
    return lanes


def test_two_worker_processes_send_what_one_process_sends(
        corpus: Path, sim: tuple[Sim, Path], one_process: Any, tmp_path: Path) -> None:
    check_same_as_one_process(replay(corpus, sim, tmp_path / "w", "--workers", "2"),
                              one_process)
    where = per_worker(tmp_path / "w")
    assert len({p["pid"] for p in where}) == 2 and all(p["host"] for p in where)
    assert all("ray_node_id" not in p for p in where)


@pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                    reason="ray not installed (pip install 'agentic-serving-bench[distributed]')")
def test_two_ray_actors_on_a_local_ray_send_what_one_process_sends(
        corpus: Path, sim: tuple[Sim, Path], one_process: Any, tmp_path: Path) -> None:
    check_same_as_one_process(replay(corpus, sim, tmp_path / "r", "--workers", "2",
                                     "--ray-address", "local"), one_process)
    assert len({p["ray_node_id"] for p in per_worker(tmp_path / "r")}) == 1  # one node


@pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                    reason="ray not installed (pip install 'agentic-serving-bench[distributed]')")
def test_two_ray_actors_on_two_ray_nodes_send_what_one_process_sends(
        corpus: Path, sim: tuple[Sim, Path], one_process: Any, tmp_path: Path) -> None:
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 4, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=4)
        cluster.wait_for_nodes()
        run = replay(corpus, sim, tmp_path / "n", "--workers", "2", "--ray-address",
                     cluster.address)
        nodes = {node.node_id for node in cluster.list_all_nodes()}
    finally:
        cluster.shutdown()
    check_same_as_one_process(run, one_process)
    assert len(nodes) == 2
    rows = run[2]["workers"]
    assert {w["ray_node_id"] for w in rows} == nodes  # one worker on each node
    assert [(p["ray_node_id"], p["host"], p["pid"]) for p in per_worker(tmp_path / "n")] == [
        (w["ray_node_id"], w["host"], w["pid"]) for w in rows]


def test_fewer_lanes_than_workers_is_refused_before_anything_is_sent(
        corpus: Path, sim: tuple[Sim, Path], tmp_path: Path) -> None:
    server, log = sim
    log.unlink(missing_ok=True)
    res = run_cli("replay", str(corpus), "--endpoint", server.url, "--scenario", "concurrency",
                  "--concurrency", "2", "--workers", "3", "--out", str(tmp_path / "x"))
    assert res.returncode == 2, res.stderr
    assert "--workers 3" in res.stderr and "2" in res.stderr
    assert not log.exists()
