"""#34 item 2: --server-metrics scrapes Prometheus endpoints during a real run (the simulator
serves vLLM's names), a dead endpoint's scrapes are failure lines (the run goes on), and the
summary, summary.txt-free JSON and report.html show the server's side over the run's time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import free_port


def test_scraped_during_the_run(sim_factory: Any, cli: Any, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "40", "--itl-ms", "5", "--output-tokens", "16",
                      "--prefix-cache")
    root = sim.url.removesuffix("/v1")
    dead = f"http://127.0.0.1:{free_port()}/metrics"
    out = tmp_path / "run"
    res = cli("replay", "traces/sample.jsonl", "--endpoint", sim.url, "--sessions", "6",
              "--scenario", "concurrency", "--concurrency", "3",
              "--server-metrics", f"{root}/metrics", "--server-metrics", dead,
              "--server-metrics-interval", "0.1", "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["sessions_ok"] == 6
    sources = summary["server_metrics"]["sources"]
    live = sources[f"{root}/metrics"]
    assert live["failures"] == 0 and live["scrapes"] >= 3 and live["engines"] == ["vllm"]
    running = live["metrics"]["requests_running"]
    assert running["max"] >= 1 and len(running["series"]) == running["points"]
    rate = live["prefix_cache_hit_rate"]
    assert 0 < rate["value"] < 1 and rate["from"].startswith("prefix_cache_hits")
    down = sources[dead]
    assert down["failures"] == down["scrapes"] >= 2 and down["errors"]
    lines = (out / "server_metrics.jsonl").read_text().splitlines()
    assert all(json.loads(line)["t_ns"] >= 0 for line in lines)
    assert summary["energy"]["available"] in (True, False)
    if not summary["energy"]["available"]:
        assert summary["energy"]["reason"].startswith("no energy source on this machine")
    text = (out / "summary.txt").read_text()
    assert f"Server    : {root}/metrics: " in text and "prefix-cache hits" in text
    assert f"Server    : {dead}: " in text and "Energy    : " in text
    report = (out / "report.html").read_text()
    assert 'id="section-server"' in report and 'id="plot-server-requests_running"' in report
