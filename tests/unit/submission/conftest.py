"""Run folders as `run rag-e2e --mlperf` and `run agentic-edge` leave them, made by hand."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DETAIL = "\n".join(':::MLLOG ' + json.dumps({"key": k, "value": v, "metadata": {}}) for k, v in {
    "effective_scenario": "Offline", "effective_performance_sample_count": 3,
    "result_validity": "VALID"}.items()) + "\n"


def rag_run(root: Path, mode: str, *, accuracy: str | None = "Accuracy: 100.0000\n",
            verdict: str = "TEST PASS") -> Path:
    log_dir = {"performance": "performance/run_1", "accuracy": "accuracy",
               "TEST09": "TEST09/performance/run_1"}[mode]
    root.mkdir(parents=True)
    (root / "summary.json").write_text(json.dumps({
        "benchmark": "rag-e2e", "command_line": f"agentic-bench run rag-e2e --mlperf ({mode})",
        "loadgen": {"log_dir": log_dir},
        "workload": {"mlperf": {"departures": ["3 questions (MLPerf: all 824)"]}}}))
    logs = root / log_dir
    logs.mkdir(parents=True)
    (logs / "mlperf_log_summary.txt").write_text("Result is : VALID\n")
    (logs / "mlperf_log_detail.txt").write_text(DETAIL)
    (root / "user.conf").write_text("e2e-rag-qna.Offline.min_query_count = 3\n")
    if mode == "TEST09":
        (root / "TEST09" / "accuracy").mkdir(parents=True)
        (root / "TEST09" / "accuracy" / "mlperf_log_accuracy.json").write_text("[\n]\n")
        (root / "TEST09" / "verify_output_len.txt").write_text(f"...\n{verdict}\n")
    else:
        (logs / "mlperf_log_accuracy.json").write_text("[\n" + ",\n".join(
            f'{{ "seq_id" : {i}, "qsl_idx" : {i}, "data" : "{"00" * 40}" }}'
            for i in range(300)) + "\n]\n")
    if accuracy is not None and mode == "accuracy":
        (root / "accuracy.txt").write_text(accuracy)
    return root


def db_run(root: Path, mode: str, *, accuracy: str = "Accuracy: 100.0000\n") -> Path:
    """A `rag build-index --mlperf-db --loadgen mlperf` folder: accuracy.txt beside the logs."""
    log_dir = {"performance": "performance/run_1", "accuracy": "accuracy"}[mode]
    root.mkdir(parents=True)
    (root / "summary.json").write_text(json.dumps({
        "benchmark": "rag-e2e-db", "loadgen": {"log_dir": log_dir},
        "command_line": f"agentic-bench rag build-index --mlperf-db ({mode})",
        "workload": {"mlperf": {"departures": []}}}))
    logs = root / log_dir
    logs.mkdir(parents=True)
    (logs / "mlperf_log_summary.txt").write_text("Result is : VALID\n")
    (logs / "mlperf_log_detail.txt").write_text(DETAIL.replace(
        '"effective_performance_sample_count", "value": 3', '"effective_performance_sample_count", '
        '"value": 2515'))
    (logs / "mlperf_log_accuracy.json").write_text('[\n{ "seq_id" : 0, "qsl_idx" : 0, '
                                                   '"data" : "01" }\n]\n')
    (root / "user.conf").write_text("e2e-rag-db.Offline.min_query_count = 2515\n")
    if mode == "accuracy":
        (logs / "accuracy.txt").write_text(accuracy)
    return root


def edge_run(root: Path, samples: int = 995) -> Path:
    root.mkdir(parents=True)
    (root / "summary.json").write_text(json.dumps({
        "benchmark": "agentic-edge", "command_line": "agentic-bench run agentic-edge"}))
    (root / "config.yaml").write_text('type: "online"\n')
    (root / "performance").mkdir()
    (root / "performance" / "result_summary.json").write_text("{}")
    (root / "accuracy").mkdir()
    (root / "accuracy" / "accuracy_results.json").write_text(json.dumps({"accuracy_scores": [
        {"dataset_type": "accuracy", "total_samples": samples, "score": 0.5}]}))
    return root


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Callable[..., Any]]:
    return {"rag": lambda name, mode, **kw: rag_run(tmp_path / name, mode, **kw),
            "edge": lambda name, **kw: edge_run(tmp_path / name, **kw),
            "db": lambda name, mode, **kw: db_run(tmp_path / name, mode, **kw)}
