"""#44 item 3 across repeated runs, on the simulator: ``--repeat 3`` against a server twice as
slow to the first token, ``compare --gate`` judges TTFT WORSE across 3 vs 3 runs (Welch t on
log values), and refuses a repeat folder that did other work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_compare_gate_across_repeated_runs(sim_factory: Any, cli: Any, tmp_path: Path) -> None:
    def repeat(sim: Any, out: Path, *extra: str) -> Path:
        res = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url,
                  "--out", str(out), "--think-time", "none", "--repeat", "3", "--quiet", *extra)
        assert res.returncode == 0, res.stderr
        return out

    fast = sim_factory("--ttft-ms", "20", "--ttft-jitter", "2", "--itl-ms", "1",
                       "--output-tokens", "8")
    slow = sim_factory("--ttft-ms", "40", "--ttft-jitter", "2", "--itl-ms", "1",
                       "--output-tokens", "8")
    a, b = repeat(fast, tmp_path / "a"), repeat(slow, tmp_path / "b")
    worse = cli("compare", str(a), str(b), "--metric", "ttft_mean_ms", "--threshold", "10%",
                "--gate", "--out", str(tmp_path / "cmp"))
    assert worse.returncode == 3, worse.stdout + worse.stderr
    assert "across 3 vs 3 runs, Welch t on log values" in worse.stdout
    assert "ttft_mean_ms  WORSE" in worse.stdout and "(3 runs), B " in worse.stdout
    assert "b/rep-3" in worse.stdout  # every repetition in the headline table
    assert "Welch t on log values" in (tmp_path / "cmp" / "compare.html").read_text()
    other = repeat(fast, tmp_path / "c", "--max-tokens", "4")
    refused = cli("compare", str(a), str(other), "--gate", "--out", str(tmp_path / "x"))
    assert refused.returncode == 2 and "c/rep-1: --max-tokens 4" in refused.stderr
