"""A sweep's points match single runs at the same load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def test_concurrency_sweep_matches_single_runs(sim_factory, trace_factory, cli,
                                               tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "50", "--itl-ms", "5", "--output-tokens", "10")
    trace = trace_factory(24)
    common = ["replay", str(trace), "--endpoint", sim.url, "--scenario", "concurrency",
              "--quiet"]
    res = cli(*common, "--sweep", "concurrency=1,4,8", "--out", str(tmp_path / "sw"))
    assert res.returncode == 0, res.stderr
    sweep = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert [p["concurrency"] for p in sweep["points"]] == [1, 4, 8]
    html = (tmp_path / "sw" / "sweep.html").read_text()
    assert 'id="plot-sweep-latency"' in html and "<svg" in html
    for point in sweep["points"]:
        n = int(point["concurrency"])
        out = tmp_path / f"single-{n}"
        assert cli(*common, "--concurrency", str(n), "--out", str(out)).returncode == 0
        single = json.loads((out / "summary.json").read_text())
        assert single["counts"]["requests"] == 24
        # each run is within ±3 ms of the injected truth, so two runs agree within 6 ms
        assert point["ttft_p50_ms"] == pytest.approx(single["latency_ms"]["ttft"]["p50"], abs=6)
        assert point["requests_per_s"] == pytest.approx(
            single["throughput"]["requests_per_s"], rel=0.15)
    rps = [p["requests_per_s"] for p in sweep["points"]]
    assert rps[0] < rps[1] < rps[2]


def test_sweep_rejects_bad_spec(trace_factory, cli) -> None:
    res = cli("replay", str(trace_factory(2)), "--endpoint", "http://127.0.0.1:9/v1",
              "--sweep", "speed=1,2")
    assert res.returncode == 2 and "expected rate=" in res.stderr
