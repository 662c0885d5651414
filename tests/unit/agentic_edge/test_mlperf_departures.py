"""What makes an agentic-edge run "not MLPerf" is named (#31 Edge items 5 and 7).

- The performance file: MLPerf's is ``examples/11_Edge_Agentic_Example/agentic_coding_2.5h.jsonl``
  (mlcommons/endpoints ea332753): 20 conversations, 1,007 client rows (20 user + 987 tool; each
  one a request). The 2-conversation excerpt in tests/data read "Config: MLPerf v6.1 Edge
  Agentic" in the committed full run; a file of another size is a departure.
- The BFCL data: endpoints ea332753 ``pyproject.toml`` 163 pins ``bfcl-eval==2026.3.23``; the
  995 sample ids and their answers come from it. Another installed version is a departure.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from agentic_bench.tasks.agentic_edge.mlperf_config import (
    BFCL_PIN,
    MLPERF_CONVERSATIONS,
    MLPERF_REQUESTS,
    mlperf_block,
)

ROOT = Path(__file__).resolve().parents[3]


def _args(**kw: object) -> SimpleNamespace:
    base = {"mode": "both", "samples": None, "quick": False, "sample_selection": "mlperf",
            "tool_mode": "native", "accuracy_target": None, "multi_turn_samples": 0,
            "perf_trace": "agentic_coding_2.5h.jsonl", "perf_sessions": None,
            "tool_delays": False, "turn_timeout": None, "scenario": "single-stream",
            "max_tokens": None, "temperature": None, "loadgen": None}
    return SimpleNamespace(**{**base, **kw})


def test_the_whole_file_and_the_pinned_bfcl_are_mlperf() -> None:
    block = mlperf_block(_args(), mlcommons_trace=True, bfcl=BFCL_PIN,
                         perf_file=(MLPERF_CONVERSATIONS, MLPERF_REQUESTS))
    assert block["departures"] == [] and block["configuration"] == "MLPerf v6.1 Edge Agentic"


def test_a_truncated_performance_file_is_a_departure() -> None:
    block = mlperf_block(_args(perf_trace="excerpt.jsonl"), mlcommons_trace=True,
                         bfcl=BFCL_PIN, perf_file=(2, 71))
    assert block["configuration"] == "not MLPerf v6.1 Edge Agentic"
    assert block["departures"] == [
        "performance file excerpt.jsonl holds 2 conversations and 71 requests (MLPerf's "
        "agentic_coding_2.5h.jsonl: 20 and 1,007)"]


def test_another_bfcl_eval_version_is_a_departure() -> None:
    block = mlperf_block(_args(), mlcommons_trace=True, bfcl="2025.6.1",
                         perf_file=(MLPERF_CONVERSATIONS, MLPERF_REQUESTS))
    assert block["departures"] == [
        "bfcl-eval 2025.6.1 installed (MLPerf: 2026.3.23; another version can change the "
        "samples, their ids and their answers)"]


def test_the_pin_is_the_one_this_repository_installs() -> None:
    pins = [line.split("==")[1].strip() for line in
            (ROOT / "requirements-data.txt").read_text().splitlines()
            if line.startswith("bfcl-eval==")]
    assert pins == [BFCL_PIN]
