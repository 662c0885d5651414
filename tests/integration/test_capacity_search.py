"""Capacity under SLO against the simulator's load model, where the answer is known (#21 item 4).

The simulator adds 10 ms of TTFT per other reply in flight (``--ttft-per-inflight-ms``): with c
closed-loop streams each request meets c − 1 others, so TTFT = 5 + 10 (c − 1) ms. Under
``ttft_p99_ms=50`` concurrency 5 (45 ms) passes and 6 (55 ms) fails: the capacity is 5.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration
TRACE = Path(__file__).resolve().parents[2] / "traces" / "sample.jsonl"


def test_search_finds_the_known_capacity(sim_factory: Callable[..., Any], cli: Callable[..., Any],
                                         tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--ttft-per-inflight-ms", "10", "--itl-ms", "1",
                      "--output-tokens", "4")
    out = tmp_path / "search"
    res = cli("replay", str(TRACE), "--endpoint", sim.url, "--model", "sim", "--scenario",
              "concurrency", "--sessions", "40", "--think-time", "none",
              "--search", "concurrency=1:16", "--slo", "ttft_p99_ms=50", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "capacity: concurrency=5" in res.stdout
    result = json.loads((out / "search.json").read_text())
    assert result["capacity"] == 5 and result["criterion"]["goodput_fraction"] == 0.95
    probed = [p["concurrency"] for p in result["points"]]
    assert probed == [1, 2, 4, 8, 6, 5]  # doubling, then bisection
    assert {p["concurrency"]: p["meets"] for p in result["points"]} == {
        1: True, 2: True, 4: True, 8: False, 6: False, 5: True}
    assert (out / "sweep.html").exists() and (out / "concurrency-5" / "summary.json").exists()
    assert "capacity under the SLOs: concurrency = 5" in (out / "sweep.html").read_text()


def test_search_without_a_latency_limit_is_refused(cli: Callable[..., Any],
                                                   tmp_path: Path) -> None:
    res = cli("replay", str(TRACE), "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
              "--search", "concurrency=1:4", "--out", str(tmp_path / "s"))
    assert res.returncode == 2 and "needs a latency limit" in res.stderr
