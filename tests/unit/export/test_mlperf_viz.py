"""``export --to mlperf-viz``: real runs and sweeps as the MLPerf Endpoints v1.0 results tree,
loaded by mlperf-viz 2.0.0's own loader (``mlperf_endpoints_visualizer.bundle.build_bundle``:
discovery, ``result_summary_to_flat``, ``accuracy_from_results``)."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic_bench.errors import UsageError
from agentic_bench.export.mlperf_viz import PERCENTILES, export_mlperf_viz, series

viz = pytest.importorskip("mlperf_endpoints_visualizer.bundle",
                          reason="mlperf-viz==2.0.0 (dev extra) is not installed")


def _bundle(root: Path) -> Any:
    bundle = viz.build_bundle(root, generated_at="fixed")
    assert bundle.warnings == []  # `mlperf-viz --strict` would pass
    return bundle


def _ok_steps(folder: Path) -> list[dict[str, Any]]:
    recs = [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]
    return [r for r in recs if r["type"] == "step" and r["kind"] == "llm" and r["status"] == "ok"]


def test_a_run_is_one_point_the_loader_reads(run_folder: Callable[[str], Path],
                                             tmp_path: Path) -> None:
    run = run_folder("single")
    summary = json.loads((run / "summary.json").read_text())
    export_mlperf_viz(run, tmp_path / "tree")
    bundle = _bundle(tmp_path / "tree")
    assert bundle.submission_count == 1 and bundle.run_count == 1
    entry = bundle.data["runs"][0]
    assert entry["label"] == "r1"
    direct, derived = entry["run"]["direct_fields"], entry["run"]["derived_fields"]
    assert direct["concurrency"] == 1
    assert direct["measured_total_requests"] == summary["counts"]["requests"]
    assert direct["measured_total_requests_failed"] == summary["counts"]["errors"]
    assert direct["measured_total_output_tokens"] == summary["counts"]["output_tokens"]
    assert direct["result_state"] == "complete"
    # the loader reads ns and shows ms: P50 TTFT is a measured request's TTFT (lower rank)
    ttfts = sorted(r["ttft_ms"] for r in _ok_steps(run))
    assert direct["measured_latency_ttft_p50"] == pytest.approx(
        ttfts[math.floor(0.5 * (len(ttfts) - 1))])
    assert derived["qps"] > 0 and derived["tps_per_user"] > 0
    combined = bundle.data["submissions"][0]["combined_submission"]
    assert combined["model_metadata"]["model_name"] == "sim"


def test_a_sweep_is_a_curve_of_its_points(run_folder: Callable[[str], Path],
                                          tmp_path: Path) -> None:
    export_mlperf_viz(run_folder("sweep"), tmp_path / "tree")
    bundle = _bundle(tmp_path / "tree")
    assert bundle.submission_count == 1
    runs = bundle.data["runs"]
    assert [r["label"] for r in runs] == ["r1", "r2"]
    assert [r["run"]["direct_fields"]["concurrency"] for r in runs] == [1, 2]


def test_two_points_at_one_concurrency_are_refused_before_writing(
        run_folder: Callable[[str], Path], tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    shutil.copytree(run_folder("sweep"), sweep)
    path = sweep / "concurrency-2" / "summary.json"
    summary = json.loads(path.read_text())
    summary["config"]["load"]["concurrency"] = 1
    path.write_text(json.dumps(summary))
    with pytest.raises(UsageError, match="both would be point r1"):
        export_mlperf_viz(sweep, tmp_path / "tree")
    assert not (tmp_path / "tree").exists()


def test_accuracy_and_the_runs_own_endpoints_artifacts(run_folder: Callable[[str], Path],
                                                       tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(run_folder("single"), run)
    summary = json.loads((run / "summary.json").read_text())
    summary["accuracy"] = {"headline": 0.75}
    (run / "summary.json").write_text(json.dumps(summary))
    export_mlperf_viz(run, tmp_path / "a")
    direct = _bundle(tmp_path / "a").data["runs"][0]["run"]["direct_fields"]
    assert direct["measured_accuracy_score"] == "replay=0.75"
    # a run that wrote endpoints' own result_summary.json (agentic-edge) is copied as written
    (run / "performance").mkdir()
    own = json.loads(next((tmp_path / "a").rglob("result_summary.json")).read_text())
    own["n_samples_completed"] = 12345
    (run / "performance" / "result_summary.json").write_text(json.dumps(own))
    export_mlperf_viz(run, tmp_path / "b")
    direct = _bundle(tmp_path / "b").data["runs"][0]["run"]["direct_fields"]
    assert direct["measured_total_requests"] == 12345


@given(st.lists(st.floats(0, 1e9, allow_nan=False), min_size=1, max_size=200))
def test_a_stat_block_is_made_of_the_values(data: list[float]) -> None:
    block = series(data)
    assert block["min"] == min(data) and block["max"] == max(data)
    assert block["total"] == pytest.approx(math.fsum(data))
    grid = [block["percentiles"][str(p)] for p in sorted(PERCENTILES)]
    assert all(v in data for v in grid) and grid == sorted(grid)
    assert block["median"] == block["percentiles"]["50.0"]
