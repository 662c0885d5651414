"""How far apart do the workers' measured phases begin when agent-tree lanes are split over
worker processes or Ray actors? (issue #46 item 1)

Writes a corpus of 70 Weka trees (the two of ``tests/data/weka/corpus.jsonl`` in turn), starts
the simulator (TTFT 2 ms, no inter-token time) and replays the corpus on 64 lanes with a
mid-trajectory warm-up (``--trajectory-start 0.25:0.75``), wrap and ``--duration 3`` over
``--workers 2``, ``--workers 4`` and ``--workers 2 --ray-address local``, ``--repeat`` times each;
prints each run's ``measured_start_spread_ms`` (the latest minus the earliest worker's
measured-phase start, wall clock: ``trees.lanes`` of summary.json) and its warm-up requests.
Nothing is compared against a threshold. ``--ray-nodes N`` runs only ``--workers N`` Ray
actors on a Ray cluster of N nodes that it starts on this host (``ray.cluster_utils.Cluster``:
each node its own raylet and node id, 4 CPUs each) and prints the node each worker ran on.

Reproduce: ``PYTHONPATH=. .venv/bin/python benchmarks/lane_start_spread.py [--repeat N]
[--ray-nodes N]``.

Recorded on 2026-12-06 (a shared 2-core VM that five other jobs were using, CPython 3.11):

    workers         spread ms  warm-up req
    2 processes          0.00          125
    2 processes          4.20          125
    2 processes          3.59          125
    4 processes         35.98          125
    4 processes         13.47          125
    4 processes          7.51          125
    2 Ray actors         0.79          125
    2 Ray actors         1.53          125
    2 Ray actors         4.45          125

(the 0.00 is under 5 µs: two later runs printed their workers' starts 0.46 and 1.85 ms apart).
Four processes on two shared cores spread most: a worker that is not scheduled when the gate's
instant comes starts late.

``--ray-nodes 2 --repeat 3``, two Ray nodes on one host (not two machines), recorded on
2026-12-06 on the same shared 2-core VM:

    workers         spread ms  warm-up req  nodes (distinct)
    2 Ray nodes          2.99          125  c085d74e 803e4485 (2)
    2 Ray nodes          0.69          125  c085d74e 803e4485 (2)
    2 Ray nodes          1.60          125  c085d74e 803e4485 (2)
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "weka" / "corpus.jsonl"
SETUPS = {"2 processes": ("--workers", "2"), "4 processes": ("--workers", "4"),
          "2 Ray actors": ("--workers", "2", "--ray-address", "local")}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_corpus(path: Path, trees: int = 70) -> None:
    rows = CORPUS.read_text().splitlines()
    with path.open("w") as fh:
        for i in range(trees):
            tree = json.loads(rows[i % len(rows)])
            tree["id"] = f"tree-{i}"
            fh.write(json.dumps(tree) + "\n")


def replay_spread(corpus: Path, port: int, out: Path, extra: tuple[str, ...],
                  env: dict[str, str]) -> dict[str, Any]:
    """One replay of the corpus on 64 lanes; its summary.json."""
    subprocess.run([sys.executable, "-m", "agentic_bench", "replay", str(corpus),
                    "--endpoint", f"http://127.0.0.1:{port}/v1", "--tokenizer", "server",
                    "--scenario", "concurrency", "--concurrency", "64",
                    "--trajectory-start", "0.25:0.75", "--allow-dataset-wrap", "--duration", "3",
                    "--quiet", "--out", str(out), *extra], env=env, check=True,
                   capture_output=True)
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return summary


@contextmanager
def ray_cluster(nodes: int) -> Iterator[str]:
    """A Ray cluster of ``nodes`` nodes on this host (4 CPUs each: Ray's default would put two
    actors on one of them); its address."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 4, "include_dashboard": False})
    try:
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=4)
        cluster.wait_for_nodes()
        yield str(cluster.address)
    finally:
        cluster.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ray-nodes", type=int, default=0, metavar="N",
                        help="only this: as many Ray actors as nodes, on a cluster of N Ray "
                        "nodes started on this host")
    args = parser.parse_args()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        corpus = Path(tmp) / "trees.jsonl"
        write_corpus(corpus)
        setups = SETUPS
        if args.ray_nodes:
            address = stack.enter_context(ray_cluster(args.ray_nodes))
            setups = {f"{args.ray_nodes} Ray nodes": (
                "--workers", str(args.ray_nodes), "--ray-address", address)}
        port = free_port()
        sim = subprocess.Popen([sys.executable, "-m", "agentic_bench", "sim", "--port", str(port),
                                "--ttft-ms", "2", "--itl-ms", "0"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(4)
            print(f"{'workers':<14} {'spread ms':>10} {'warm-up req':>12}  nodes (distinct)")
            for name, extra in setups.items():
                for k in range(args.repeat):
                    out = Path(tmp) / f"{name.replace(' ', '-')}-{k}"
                    summary = replay_spread(corpus, port, out, extra, env)
                    lanes = summary["trees"]["trees"]["lanes"]
                    nodes = [w.get("ray_node_id") or "-" for w in summary["workers"]]
                    print(f"{name:<14} {lanes['measured_start_spread_ms']:>10.2f} "
                          f"{lanes['warmup_requests']:>12}  "
                          f"{' '.join(n[:8] for n in nodes)} ({len(set(nodes))})", flush=True)
        finally:
            sim.terminate()
            sim.wait(timeout=10)


if __name__ == "__main__":
    main()
