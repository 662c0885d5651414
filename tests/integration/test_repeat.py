"""#44 item 2: ``--repeat 3`` on the sample trace — three sub-runs in one folder, one combined
view with each figure's between-run spread beside its within-run interval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_three_repetitions_and_their_combined_view(sim_factory: Any, cli: Any,
                                                   tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "20", "--ttft-jitter", "5", "--itl-ms", "1",
                      "--output-tokens", "8")
    out = tmp_path / "rep"
    res = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url, "--out",
              str(out), "--think-time", "none", "--repeat", "3")
    assert res.returncode == 0, res.stderr
    for k in (1, 2, 3):
        summary = json.loads((out / f"rep-{k}" / "summary.json").read_text())
        assert summary["intervals"]["latency_ms"]["ttft"]["p50"]  # each run's own interval
        assert f"repeat {k}/3 -> {out / f'rep-{k}'}" in res.stderr
    combined = json.loads((out / "repeat.json").read_text())
    assert combined["runs"] == 3 and combined["results"] == ["VALID"] * 3
    ttft = combined["figures"]["ttft_p50_ms"]
    assert len(ttft["values"]) == 3 and ttft["between_run_sd"] is not None
    assert ttft["within_run_half_width"] is not None and isinstance(ttft["unstable"], bool)
    assert "between-run sd" in (out / "repeat.txt").read_text()
    assert "repeat: 3 runs" in res.stdout
    refused = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url,
                  "--repeat", "2", "--sweep", "concurrency=1,2", "--scenario", "concurrency")
    assert refused.returncode == 2 and "--repeat runs one configuration" in refused.stderr
