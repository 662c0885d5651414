"""LoadGen runs in the submission layout: the conf copied (and fitted), TEST09's verification."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.loadgen.conf_files import copy_conf, fit_min_query_count
from agentic_bench.loadgen.test09 import finish_test09, output_lengths, verify
from agentic_bench.options.loadgen import LoadgenOptions


def test_log_folders_by_mode() -> None:
    """Where the checker reads each run (tools/submission/submission_checker/constants.py
    2033 performance/run_1, 2067 accuracy, compliance_check.py 134-139 TEST0X/performance/
    run_1)."""
    assert LoadgenOptions().log_dir == ""  # flat: the run folder, as before
    assert [LoadgenOptions(layout="submission", mode=m, audit=None if m != "TEST09" else
                           Path(__file__)).check().log_dir
            for m in ("performance", "accuracy", "TEST09")] == \
        ["performance/run_1", "accuracy", "TEST09/performance/run_1"]
    with pytest.raises(ConfigError, match="TEST09 needs --loadgen-audit"):
        LoadgenOptions(mode="TEST09").check()
    with pytest.raises(ConfigError, match="--loadgen-layout 'nested'"):
        LoadgenOptions(layout="nested").check()


def test_min_query_count_cut_to_the_sample_set() -> None:
    """e2e-rag/run_compliance_test09.sh 119-122: the audit's `*.*.min_query_count` follows
    PERF_COUNT; lines for other models or scenarios, and smaller values, stay."""
    text = ("e2e-rag-qna.Offline.min_query_count = 824\n"
            "e2e-rag-db.Offline.min_query_count = 2515\n"
            "*.*.min_query_count = 824\n"
            "*.Server.min_query_count = 824\n"
            "e2e-rag-qna.Offline.target_qps = 0.11\n")
    out, cut = fit_min_query_count(text, "e2e-rag-qna", "Offline", 3)
    assert cut == [824, 824]
    kept = [line for line in out.splitlines() if not line.startswith("#")]
    assert kept == ["e2e-rag-qna.Offline.min_query_count = 3",
                    "e2e-rag-db.Offline.min_query_count = 2515", "*.*.min_query_count = 3",
                    "*.Server.min_query_count = 824", "e2e-rag-qna.Offline.target_qps = 0.11"]
    assert fit_min_query_count(text, "e2e-rag-qna", "Offline", 1000)[1] == []


def test_conf_copied_verbatim_without_fitting(tmp_path: Path) -> None:
    src = tmp_path / "mine.conf"
    src.write_text("*.Offline.min_query_count = 824\n")
    info = copy_conf(src, tmp_path / "run" / "user.conf", model="m", scenario="Offline",
                     fit_to=None)
    assert (tmp_path / "run" / "user.conf").read_text() == src.read_text()
    assert "min_query_count_cut" not in info


def test_test09_verification(tmp_path: Path) -> None:
    """compliance/TEST09/run_verification.py 47-69 (length = whole 4-byte groups of data),
    145-156 (no data: 0), 347-349 (min <= mean <= max); the checker wants "TEST PASS" in
    TEST09/verify_output_len.txt (checks/compliance_check.py 358-376)."""
    logs = tmp_path / "TEST09" / "performance" / "run_1"
    logs.mkdir(parents=True)
    entries = [{"seq_id": 0, "qsl_idx": 0, "data": "00" * 1000},  # 250 tokens
               {"seq_id": 1, "qsl_idx": 1, "data": "00" * 1202},  # 300 tokens (2 bytes over)
               {"seq_id": 2, "qsl_idx": 2, "data": ""}]  # 0
    (logs / "mlperf_log_accuracy.json").write_text(json.dumps(entries))
    audit = tmp_path / "audit.config"
    audit.write_text("*.*.mode = 2\n*.*.test09_min_output_tokens = 150.0  # low\n"
                     "*.*.test09_max_output_tokens = 190\n")
    result = finish_test09(tmp_path / "TEST09", logs, audit)
    assert result["mean"] == pytest.approx(550 / 3) and result["passed"]
    moved = tmp_path / "TEST09" / "accuracy" / "mlperf_log_accuracy.json"
    assert moved.is_file() and not (logs / "mlperf_log_accuracy.json").exists()
    assert output_lengths(moved) == [250, 300, 0]
    assert "TEST PASS" in (tmp_path / "TEST09" / "verify_output_len.txt").read_text()
    assert not verify([100, 120], 150, 190)["passed"]
    assert not verify([], 0, 10)["passed"]
    text = (tmp_path / "TEST09" / "verify_output_len.txt").read_text()
    assert "TEST FAIL" not in text
