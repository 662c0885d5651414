"""`submission pack`: the layout MLCommons' checker reads (mlcommons/inference b66003e1
tools/submission/submission_checker/constants.py 2029-2166), the templates, bad input."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.errors import UsageError
from agentic_bench.submission import FILL, pack
from agentic_bench.submission.templates import MEASUREMENT_FIELDS, SYSTEM_FIELDS

# constants.py 1833-1870 SYSTEM_DESC_REQUIRED_FIELDS, transcribed
SYSTEM_DESC_REQUIRED_FIELDS = [
    "division", "submitter", "status", "system_name", "number_of_nodes",
    "host_processor_model_name", "host_processors_per_node", "host_processor_core_count",
    "host_memory_capacity", "host_storage_capacity", "host_storage_type",
    "accelerators_per_node", "accelerator_model_name", "accelerator_memory_capacity",
    "framework", "operating_system", "system_type", "other_software_stack",
    "host_processor_frequency", "host_processor_caches", "host_memory_configuration",
    "host_processor_interconnect", "host_networking", "host_networking_topology",
    "accelerator_frequency", "accelerator_host_interconnect", "accelerator_interconnect",
    "accelerator_interconnect_topology", "accelerator_memory_configuration",
    "accelerator_on-chip_memories", "cooling", "hw_notes", "sw_notes",
    "host_network_card_count", "system_type_detail"]
# constants.py 1944-1950 SYSTEM_IMP_REQUIRED_FILES (the measurements.json fields)
SYSTEM_IMP_REQUIRED_FILES = ["input_data_types", "retraining", "starting_weights_filename",
                             "weight_data_types", "weight_transformations"]

Runs = dict[str, Callable[..., Any]]


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_rag_runs_merge_into_the_loadgen_scenario_folder(runs: Runs, tmp_path: Path) -> None:
    """constants.py 2033 (performance/run_1), 2067-2084 (accuracy/ with accuracy.txt and the
    log), 2151 (TEST09/verify_output_len.txt), REQUIRED_MEASURE_FILES 1486 (user.conf,
    README.md beside measurements.json, 2099), SRC_PATH 2185 (src/)."""
    folders = [runs["rag"]("p", "performance"), runs["rag"]("a", "accuracy"),
               runs["rag"]("t", "TEST09")]
    packed = pack(folders, submitter="Acme", system="box", division="closed",
                  out=tmp_path / "sub")
    root = tmp_path / "sub" / "closed" / "Acme"
    assert packed.root == root
    scen = "results/box/e2e-rag-qna/Offline/"
    assert {scen + f for f in (
        "performance/run_1/mlperf_log_summary.txt", "performance/run_1/mlperf_log_detail.txt",
        "accuracy/mlperf_log_summary.txt", "accuracy/mlperf_log_detail.txt",
        "accuracy/mlperf_log_accuracy.json", "accuracy/accuracy.txt",
        "TEST09/verify_output_len.txt", "TEST09/accuracy/mlperf_log_accuracy.json",
        "TEST09/accuracy/accuracy.txt", "TEST09/performance/run_1/mlperf_log_detail.txt",
        "user.conf", "measurements.json", "README.md")} <= files(root)
    assert {"systems/box.json", "src/README.md", "code/e2e-rag-qna/README.md",
            "documentation/README.md", "measurements/README.md"} <= files(root)
    text = (root / scen / "accuracy" / "accuracy.txt").read_text()
    assert re.match(r"Accuracy:\s*([\d\.]+)", text) and re.search(r"^hash=\w+$", text, re.M)
    assert (root / scen / "accuracy" / "mlperf_log_accuracy.json").stat().st_size <= 10 * 1024
    readme = (root / scen / "README.md").read_text()
    assert "--mlperf (accuracy)" in readme and FILL in readme


def test_edge_run_is_laid_out_as_the_endpoints_parser_reads_it(runs: Runs,
                                                             tmp_path: Path) -> None:
    """parsers/endpoints_parser.py 28-30, 146-160: config.yaml at the scenario level,
    performance/result_summary.json without run_1, accuracy/accuracy_results.json (the checker,
    not endpoints' publish_submission.py 95-96, which writes performance/run_1)."""
    pack([runs["edge"]("e")], submitter="Acme", system="thor", division="open",
         out=tmp_path / "sub")
    root = tmp_path / "sub" / "open" / "Acme"
    scen = "results/thor/qwen3.6-27b/SingleStream/"
    assert {scen + f for f in ("config.yaml", "performance/result_summary.json",
                               "accuracy/accuracy_results.json", "measurements.json",
                               "README.md")} <= files(root)
    assert not any("run_1" in f for f in files(root))
    assert json.loads((root / "systems" / "thor.json").read_text())["system_type"] == "edge"


def test_templates_hold_every_field_the_checker_requires(runs: Runs, tmp_path: Path) -> None:
    """system_check.py 147-186 (every required field present), 97-118 (system_type known:
    the loader needs it, loader.py 301), 80-95 (status); measurements_checks.py 124-144."""
    pack([runs["rag"]("p", "performance")], submitter="Acme", system="box",
         division="closed", out=tmp_path / "sub")
    root = tmp_path / "sub" / "closed" / "Acme"
    system = json.loads((root / "systems" / "box.json").read_text())
    assert set(SYSTEM_DESC_REQUIRED_FIELDS) <= set(system)
    assert "is_network" not in system  # any non-empty string turns on network mode (160)
    assert (system["division"], system["submitter"], system["system_name"],
            system["system_type"]) == ("closed", "Acme", "box", "datacenter")
    assert system["status"].startswith(FILL)
    assert all(system[k].startswith(FILL) for k in SYSTEM_FIELDS if k not in ("hw_notes",
                                                                             "sw_notes"))
    meas = json.loads((root / "results/box/e2e-rag-qna/Offline/measurements.json").read_text())
    assert set(meas) == set(SYSTEM_IMP_REQUIRED_FILES) == set(MEASUREMENT_FIELDS)
    assert all(v.startswith(FILL) for v in meas.values())


def test_filled_templates_are_kept_when_packing_again(runs: Runs, tmp_path: Path) -> None:
    perf = runs["rag"]("p", "performance")
    pack([perf], submitter="Acme", system="box", division="closed", out=tmp_path / "sub")
    path = tmp_path / "sub/closed/Acme/systems/box.json"
    path.write_text('{"status": "available"}')
    packed = pack([perf, runs["rag"]("a", "accuracy")], submitter="Acme", system="box",
                  division="closed", out=tmp_path / "sub")
    assert path.read_text() == '{"status": "available"}' and path in packed.kept


@pytest.mark.parametrize(("make", "message"), [
    (lambda r, t: [t / "nowhere"], "no such folder"),
    (lambda r, t: [r["rag"]("p", "performance"), r["rag"]("q", "performance")],
     "both hold the performance run of e2e-rag-qna"),
    (lambda r, t: [r["rag"]("p", "performance"), r["edge"]("e")], "cannot share one system"),
])
def test_bad_input_says_which_folder_and_what_was_expected(
        runs: Runs, tmp_path: Path, make: Callable[..., list[Path]], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        pack(make(runs, tmp_path), submitter="Acme", system="box", division="closed",
             out=tmp_path / "sub")
    assert not (tmp_path / "sub").exists()  # nothing written


def test_a_flat_loadgen_run_or_another_benchmark_is_refused(runs: Runs, tmp_path: Path) -> None:
    flat = runs["rag"]("p", "performance")
    summary = json.loads((flat / "summary.json").read_text())
    (flat / "summary.json").write_text(json.dumps({**summary, "loadgen": {"log_dir": "."}}))
    with pytest.raises(UsageError, match=r"not in a submission layout.*--loadgen-layout"):
        pack([flat], submitter="A", system="b", division="closed", out=tmp_path / "o")
    (flat / "summary.json").write_text(json.dumps({"benchmark": "tau2-airline"}))
    with pytest.raises(UsageError, match="'tau2-airline' has no MLPerf submission layout"):
        pack([flat], submitter="A", system="b", division="closed", out=tmp_path / "o")
    with pytest.raises(UsageError, match="--division 'network'"):
        pack([flat], submitter="A", system="b", division="network", out=tmp_path / "o")
    with pytest.raises(UsageError, match="--system 'a/b'"):
        pack([flat], submitter="A", system="a/b", division="closed", out=tmp_path / "o")


def test_e2e_rag_db_packs_beside_e2e_rag_qna_under_one_datacenter_system(runs: Runs,
                                                                       tmp_path: Path) -> None:
    """constants.py 23-39: both E2E-RAG benchmarks are datacenter Offline ones; TEST09 is asked
    of e2e-rag-qna only (322-325); e2e-rag-db's accuracy.txt lies beside its LoadGen logs."""
    from agentic_bench.submission import report

    packed = pack([runs["rag"]("q", "performance"), runs["db"]("p", "performance"),
                   runs["db"]("a", "accuracy")], submitter="A", system="box",
                  division="closed", out=tmp_path / "sub")
    db = packed.root / "results" / "box" / "e2e-rag-db" / "Offline"
    assert {"performance/run_1/mlperf_log_detail.txt", "accuracy/mlperf_log_detail.txt",
            "accuracy/accuracy.txt", "user.conf", "measurements.json",
            "README.md"} <= files(db)
    lines = (db / "accuracy" / "accuracy.txt").read_text().splitlines()
    assert lines[0] == "Accuracy: 100.0000" and re.match(r"^hash=[0-9a-f]{64}$", lines[-1])
    assert json.loads((packed.root / "systems" / "box.json").read_text())["system_type"] == \
        "datacenter"
    rep = report(packed.root)
    db_missing = [m for m in rep.missing if "e2e-rag-db" in m]
    assert db_missing == []  # no TEST09 asked of it
    low = pack([runs["db"]("low", "accuracy", accuracy="Accuracy: 97.5000\n")], submitter="A",
               system="x", division="closed", out=tmp_path / "low")
    assert any("accuracy 97.5000 below the gate 98.0" in f for f in report(low.root).will_fail)
    with pytest.raises(UsageError, match="cannot share one system"):
        pack([runs["db"]("d2", "performance"), runs["edge"]("e")], submitter="A", system="s",
             division="closed", out=tmp_path / "mixed")
