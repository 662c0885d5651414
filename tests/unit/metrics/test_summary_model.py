"""#45 item 3: ``summary.json`` as a typed :class:`Summary` — every committed summary validates
and round-trips to its exact bytes, a fresh simulator run's too, and a malformed one is
refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from pydantic import ValidationError

from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.summary_model import SUMMARY_SCHEMA, SUMMARY_VERSION, Summary

ROOT = Path(__file__).resolve().parents[3]
# committed files named *summary.json that are not ours: MLPerf endpoints' result_summary.json
# (export/mlperf_viz.py writes it) and the submission checker's record
OTHER_FORMATS = {"result_summary.json"}
CHECKER = Path("benchmarks/results/submission/summary.json")


def committed_summaries() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*summary.json"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    return [Path(p) for p in listed if Path(p).name not in OTHER_FORMATS and Path(p) != CHECKER]


def test_the_committed_summaries_are_found() -> None:
    assert len(committed_summaries()) >= 17


@pytest.mark.parametrize("path", committed_summaries(), ids=str)
def test_every_committed_summary_validates_and_round_trips_to_its_bytes(path: Path) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    summary = Summary.from_json(text)
    assert (summary.schema_, summary.version) == (SUMMARY_SCHEMA, SUMMARY_VERSION)
    assert summary.to_json() == text
    assert summary.counts.requests == json.loads(text)["counts"]["requests"]


def test_a_fresh_simulator_run_summary_round_trips(sim_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "4")
    out = tmp_path / "run"
    res = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url,
              "--think-time", "none", "--out", str(out))
    assert res.returncode == 0, res.stderr
    text = (out / "summary.json").read_text(encoding="utf-8")
    summary = Summary.from_json(text)
    assert summary.to_json() == text
    assert summary.counts.requests_ok > 0 and summary.latency("ttft", "p50") is not None
    block = summary.intervals  # the intervals block is typed too, and written as it was made
    assert block is not None and block.sessions_used > 1
    lo, hi = block.latency_ms["ttft"]["p50"]
    assert 0 < lo <= hi


def test_the_summariser_output_validates_and_a_set_block_is_dumped_last() -> None:
    made = summarize([], RunInfo(benchmark="t", complete=True, duration_s=1.0))
    summary = Summary.of(made)
    assert summary.to_dict() == made and list(summary.to_dict()) == list(made)
    assert "report_sample" not in summary.to_dict()  # a field never given is not written
    summary.report_sample = {"every": 2}
    assert list(summary.to_dict())[-1] == "report_sample"


@pytest.mark.parametrize("broken", [
    {"counts": {"requests": "many"}},
    {"latency_ms": {"ttft": {"count": 3, "p99": "slow"}}},
    {"constraints": [{"value": 1}]},  # a verdict row without its name
    {"version": "one"},
])
def test_a_malformed_summary_is_refused(broken: dict[str, object]) -> None:
    made = summarize([], RunInfo(benchmark="t", complete=True, duration_s=1.0))
    with pytest.raises(ValidationError):
        Summary.of({**made, **broken})


def test_given_tells_a_field_the_summary_lacks_from_its_default() -> None:
    summary = Summary.of({"benchmark": "b", "harness": {"token_source": {}}})
    assert summary.given("benchmark") == "b" and summary.result == "INVALID"
    assert summary.given("result", "?") == "?"
    assert summary.harness.given("truncated_record_lines") is None
    summary.result = "VALID"
    assert summary.given("result", "?") == "VALID"
