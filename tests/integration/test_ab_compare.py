"""#44 on the simulator: every run carries 95 % intervals (summary.json, summary.txt,
report.html), and ``compare --metric --threshold --gate`` judges a known 3 % TTFT slowdown
WORSE at 1 % and SAME at 10 %, and refuses runs that did different work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration


def _run(cli: Any, trace: Path, sim: Any, out: Path, *extra: str) -> dict[str, Any]:
    res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(out), "--quiet",
              "--scenario", "concurrency", "--concurrency", "16", "--think-time", "none",
              *extra)
    assert res.returncode == 0, res.stderr
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return summary


def test_intervals_and_ab_verdicts(sim_factory: Any, trace_factory: Any, cli: Any,
                                   tmp_path: Path) -> None:
    trace = trace_factory(300)
    fast = sim_factory("--ttft-ms", "100", "--ttft-jitter", "10", "--itl-ms", "1",
                       "--output-tokens", "8", "--seed", "1")
    slow = sim_factory("--ttft-ms", "103", "--ttft-jitter", "10", "--itl-ms", "1",
                       "--output-tokens", "8", "--seed", "2")
    a = _run(cli, trace, fast, tmp_path / "a")
    _run(cli, trace, slow, tmp_path / "b")
    block = a["intervals"]
    lo, hi = block["latency_ms"]["ttft"]["p99"]
    assert lo <= a["latency_ms"]["ttft"]["p99"] <= hi
    assert block["sessions_used"] == 300 and set(block["throughput"]) >= {"requests_per_s"}
    assert "95% intervals (sessions resampled: 300 sessions" in (
        tmp_path / "a" / "summary.txt").read_text()
    assert 'id="table-intervals"' in (tmp_path / "a" / "report.html").read_text()

    def compare(threshold: str) -> Any:
        return cli("compare", str(tmp_path / "a"), str(tmp_path / "b"), "--metric",
                   "ttft_mean_ms", "--threshold", threshold, "--gate", "--out",
                   str(tmp_path / f"cmp-{threshold}"))

    worse = compare("1%")
    assert worse.returncode == 3, worse.stdout + worse.stderr
    assert "ttft_mean_ms  WORSE" in worse.stdout and "gate: WORSE (exit 3)" in worse.stdout
    # SAME needs the whole interval within the threshold: 10 % here, as the test machine is
    # shared (the 5 % case on a quiet machine: benchmarks/interval_calibration.py)
    same = compare("10%")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "ttft_mean_ms  SAME" in same.stdout
    html = (tmp_path / "cmp-10%" / "compare.html").read_text()
    assert 'id="table-verdicts"' in html and "SAME" in html

    _run(cli, trace, fast, tmp_path / "c", "--max-tokens", "4")  # other work: refused
    refused = cli("compare", str(tmp_path / "a"), str(tmp_path / "c"), "--gate")
    assert refused.returncode == 2 and "--max-tokens" in refused.stderr
    allowed = cli("compare", str(tmp_path / "a"), str(tmp_path / "c"), "--metric",
                  "ttft_p50_ms", "--allow-different-workloads", "--out", str(tmp_path / "x"))
    assert allowed.returncode == 0 and "A/B verdicts" in allowed.stdout
