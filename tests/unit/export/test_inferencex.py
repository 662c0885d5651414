"""``export --to inferencex``: an --agentx run as InferenceX's aggregated agentic result.

No published reader runs outside InferenceX-app's ingest (TypeScript, with its database), so the
fields and their types are transcribed here from SemiAnalysisAI/InferenceX at commit
843c6254ff69b567f772f6a5fd97675af3d04431:

* the key sets InferenceX itself holds stable: utils/agentic/aggregation/
  test_process_agentic_result.py lines 38-144 (AGG_TOP_LEVEL_KEYS ... REQUEST_CACHE_KEYS);
* the types of the top-level fields: process_agentic_result.py ``build_agg`` lines 215-237
  (strings from the environment, ``int(CONC)``, ``env_bool`` booleans, ``dp_attention`` a
  string) and ``_gpu_shape`` lines 105-114 (pp, dcp_size, pcp_size ints);
* the stat blocks: aggregation_common.py ``stats_for`` lines 23-33 (mean p50 p75 p90 p95 std);
* the scalar paths InferenceX-app flattens: packages/db/src/etl/agentic-v3-flatten.ts
  (InferenceX-app 0fff2b54) ``V3_SCALAR_PATHS``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.errors import UsageError
from agentic_bench.export.inferencex import export_inferencex, round_floats

AGG_TOP_LEVEL_KEYS = {
    "infmax_model_prefix", "model", "hw", "framework", "precision", "conc", "scenario_type",
    "is_multinode", "tp", "pp", "dcp_size", "pcp_size", "ep", "dp_attention", "kv_offloading",
    "kv_offload_backend", "allocated_cpu_dram_gb", "num_requests_total",
    "num_requests_successful", "request_accounting", "request_metrics", "server_metrics",
    "kv_cache_pool_tokens",
}
REQUEST_ACCOUNTING_KEYS = {"records_total", "records_profiled", "records_dropped_total",
                           "records_warmup_dropped", "records_error_dropped", "error_categories"}
SERVER_METRICS_KEYS = {"present", "adapter", "metric_count", "cache", "kv_cache", "kv_offload",
                       "tokens", "sources"}
SERVER_CACHE_KEYS = {
    "gpu_cache_hit_rate", "cpu_cache_hit_rate", "external_cache_hit_rate",
    "overall_cache_hit_rate", "prefix_cache_hits", "prefix_cache_queries",
    "external_prefix_cache_hits", "external_prefix_cache_queries", "cached_tokens_by_source",
    "frontend_cache_hit_rate", "router_kv_hit_rate", "router_shared_cache_hit_rate",
    "frontend_cached_tokens", "frontend_input_tokens",
}
SERVER_KV_CACHE_KEYS = {"gpu_usage_pct", "gpu_total_tokens", "cpu_usage_pct", "cpu_used_tokens",
                        "cpu_total_tokens"}
SERVER_KV_OFFLOAD_KEYS = {"bytes_gpu_to_cpu", "bytes_cpu_to_gpu", "time_gpu_to_cpu",
                          "time_cpu_to_gpu", "bandwidth_gpu_to_cpu_bytes_per_second",
                          "bandwidth_cpu_to_gpu_bytes_per_second"}
SERVER_TOKEN_KEYS = {"prompt_total", "generation_total", "requests_completed", "prompt_by_source"}
SERVER_PROMPT_SOURCE_KEYS = {"gpu_cache_hit", "cpu_or_external_cache_hit", "computed", "raw"}
REQUEST_METRICS_KEYS = {"qps", "latency", "tokens", "throughput", "cache"}
REQUEST_LATENCY_KEYS = {"ttft", "e2el", "itl", "tpot", "intvty", "e2e_norm_intvty",
                        "full_response_itl", "full_response_intvty"}
REQUEST_TOKEN_KEYS = {"input", "output_actual", "output_expected"}
REQUEST_THROUGHPUT_KEYS = {"input", "output", "total", "duration_seconds", "per_gpu"}
REQUEST_CACHE_KEYS = {"theoretical_cache_hit_rate"}
STAT_KEYS = {"mean", "p50", "p75", "p90", "p95", "std"}
# build_agg 215-237, _gpu_shape 105-114: field -> type
TYPES: dict[str, type | tuple[type, ...]] = {
    "hw": str, "conc": int, "image": str, "recipe_fingerprint": str, "model": str,
    "infmax_model_prefix": str, "framework": str, "precision": str, "spec_decoding": str,
    "disagg": bool, "scenario_type": str, "is_multinode": bool, "tp": int, "ep": int,
    "dp_attention": str, "kv_offloading": str, "kv_offload_backend": (dict, type(None)),
    "allocated_cpu_dram_gb": int, "num_requests_total": int, "num_requests_successful": int,
    "request_accounting": dict, "pp": int, "dcp_size": int, "pcp_size": int,
    "request_metrics": dict, "server_metrics": dict,
}
# agentic-v3-flatten.ts V3_SCALAR_PATHS (the client-side ones)
APP_SCALAR_PATHS = [
    ("request_metrics", "throughput", "input", "tokens_per_second"),
    ("request_metrics", "throughput", "output", "tokens_per_second"),
    ("request_metrics", "throughput", "total", "tokens_per_second"),
    ("request_metrics", "throughput", "duration_seconds"),
    ("request_metrics", "throughput", "per_gpu", "total_tput_tps"),
    ("request_metrics", "throughput", "per_gpu", "output_tput_tps"),
    ("request_metrics", "throughput", "per_gpu", "input_tput_tps"),
    ("request_metrics", "cache", "theoretical_cache_hit_rate"),
    ("server_metrics", "tokens", "prompt_total"),
    ("server_metrics", "tokens", "generation_total"),
    ("server_metrics", "tokens", "requests_completed"),
]


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        obj = obj[key]
    return obj


def test_an_agentx_run_has_the_fields_and_types_inferencex_writes(
        run_folder: Callable[[str], Path], tmp_path: Path) -> None:
    run = run_folder("agentx")
    out = tmp_path / "agg.json"
    assert export_inferencex(run, out) == [out]
    agg = json.loads(out.read_text())
    assert AGG_TOP_LEVEL_KEYS <= set(agg)
    for key, kind in TYPES.items():
        assert isinstance(agg[key], kind), (key, agg[key])
    assert set(agg["request_accounting"]) == REQUEST_ACCOUNTING_KEYS
    rm = agg["request_metrics"]
    assert set(rm) == REQUEST_METRICS_KEYS
    assert set(rm["latency"]) == REQUEST_LATENCY_KEYS
    assert all(set(rm["latency"][k]) == STAT_KEYS for k in REQUEST_LATENCY_KEYS)
    assert set(rm["tokens"]) == REQUEST_TOKEN_KEYS
    assert set(rm["throughput"]) == REQUEST_THROUGHPUT_KEYS
    assert set(rm["cache"]) == REQUEST_CACHE_KEYS
    sm = agg["server_metrics"]
    assert set(sm) == SERVER_METRICS_KEYS
    assert set(sm["cache"]) == SERVER_CACHE_KEYS
    assert set(sm["kv_cache"]) == SERVER_KV_CACHE_KEYS
    assert set(sm["kv_offload"]) == SERVER_KV_OFFLOAD_KEYS
    assert set(sm["tokens"]) == SERVER_TOKEN_KEYS
    assert set(sm["tokens"]["prompt_by_source"]) == SERVER_PROMPT_SOURCE_KEYS
    for path in APP_SCALAR_PATHS:
        assert isinstance(_at(agg, path), int | float), path


def test_the_figures_are_the_runs(run_folder: Callable[[str], Path], tmp_path: Path) -> None:
    run = run_folder("agentx")
    summary = json.loads((run / "summary.json").read_text())
    export_inferencex(run, tmp_path / "agg.json")
    agg = json.loads((tmp_path / "agg.json").read_text())
    trees = summary["trees"]
    assert agg["conc"] == trees["trees"]["lanes"]["lanes"] == 2
    assert agg["tp"] == trees["gpus"] == 4  # so InferenceX's per-GPU divisor is --gpus
    accounting = agg["request_accounting"]
    assert accounting["records_warmup_dropped"] == summary["warmup"]["requests"] > 0
    assert agg["num_requests_successful"] == summary["counts"]["requests_ok"]
    assert accounting["records_total"] == (summary["counts"]["requests"]
                                           + summary["warmup"]["requests"])
    rm = agg["request_metrics"]
    per_gpu = trees["throughput"]["per_gpu"]
    assert rm["throughput"]["per_gpu"]["total_tput_tps"] == pytest.approx(
        per_gpu["total_tokens_per_s"], rel=1e-4)
    assert rm["latency"]["ttft"]["mean"] == pytest.approx(
        summary["latency_ms"]["ttft"]["mean"] / 1000, abs=1e-5)  # seconds
    latency = rm["latency"]
    assert latency["intvty"]["p90"] == pytest.approx(1 / latency["itl"]["p90"], rel=0.01)
    assert latency["intvty"]["p90"] == pytest.approx(trees["interactivity"]["p90"], rel=0.01)
    assert rm["cache"]["theoretical_cache_hit_rate"] == pytest.approx(
        trees["prefix_hit"]["theoretical"], abs=1e-5)
    assert agg["agentic_bench"]["result"] == summary["result"]


def test_other_runs_are_refused_with_the_reason(run_folder: Callable[[str], Path],
                                                tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not an --agentx run"):
        export_inferencex(run_folder("single"), tmp_path / "agg.json")
    assert not (tmp_path / "agg.json").exists()


def test_an_agentx_sweep_is_one_file_per_concurrency(run_folder: Callable[[str], Path],
                                                     tmp_path: Path) -> None:
    files = export_inferencex(run_folder("agentx-sweep"), tmp_path / "sweep")
    assert [f.name for f in files] == ["agentx_conc1.json", "agentx_conc2.json"]
    assert [json.loads(f.read_text())["conc"] for f in files] == [1, 2]


def test_floats_are_rounded_as_inferencex_rounds() -> None:
    # aggregation_common.py round_floats 71-84
    assert round_floats({"a": [1.0, 0.1234567, 2.0000001, 0.5, float("inf")]}) == \
        {"a": [1, 0.12346, 2, 0.5, float("inf")]}
    assert isinstance(round_floats(3.0), int) and isinstance(round_floats(0.0), float)


INFERENCEX = os.environ.get("AGENTIC_BENCH_INFERENCEX")
OPEN_MAPS = {"error_categories", "cached_tokens_by_source", "raw"}


def _aiperf_record(i: int, *, phase: str = "profiling", error: str | None = None
                   ) -> dict[str, Any]:
    """One line of AIPerf's profile_export.jsonl as process_agentic_result.py reads it
    (request_metrics.py 26-63, 82-104, 237-328): our own values."""
    start = 1_000_000_000 + i * 400_000_000
    return {"metadata": {"conversation_id": f"c{i % 2}", "turn_index": i,
                         "request_start_ns": start, "request_end_ns": start + 900_000_000,
                         "benchmark_phase": phase},
            "metrics": {"input_sequence_length": {"value": 100 + i, "unit": "tokens"},
                        "output_sequence_length": {"value": 20 + i, "unit": "tokens"},
                        "time_to_first_token": {"value": 30.0 + i, "unit": "ms"},
                        "request_latency": {"value": 900.0, "unit": "ms"},
                        "inter_token_latency": {"value": 15.0 + i, "unit": "ms"}},
            "error": error}


def _shape(value: Any) -> Any:
    """Keys and value kinds (numbers as one kind, None as 'null')."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, bool) or value is None or isinstance(value, str | list):
        return type(value).__name__
    return "number"


@pytest.mark.skipif(not INFERENCEX, reason="AGENTIC_BENCH_INFERENCEX does not name an "
                    "InferenceX checkout (its utils/agentic/aggregation processor)")
def test_the_same_shape_as_inferencex_own_processor_writes(
        run_folder: Callable[[str], Path], tmp_path: Path) -> None:
    """InferenceX's own processor on an AIPerf export of ours, against our export: the same
    keys, and values of the same kinds wherever both have a value."""
    artifacts = tmp_path / "results" / "aiperf_artifacts"
    artifacts.mkdir(parents=True)
    lines = [_aiperf_record(i) for i in range(6)]
    lines += [_aiperf_record(6, phase="warmup"), _aiperf_record(7, error="context_length: x")]
    (artifacts / "profile_export.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (artifacts / "profile_export_aiperf.json").write_text(json.dumps(
        {"theoretical_prefix_cache_hit": {"sum": 3, "count": 4}}))
    env = {**os.environ, "RESULT_DIR": str(tmp_path / "results"),
           "AGENTIC_OUTPUT_DIR": str(tmp_path / "out"), "RESULT_FILENAME": "agg",
           "MODEL": "m", "FRAMEWORK": "vllm", "TP": "4", "CONC": "2", "KV_OFFLOADING": "none"}
    res = subprocess.run([sys.executable, "-m", "utils.agentic.aggregation."
                          "process_agentic_result"], cwd=INFERENCEX, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    theirs = _shape(json.loads((tmp_path / "out" / "agg.json").read_text()))
    export_inferencex(run_folder("agentx"), tmp_path / "ours.json")
    ours = _shape(json.loads((tmp_path / "ours.json").read_text()))

    def compare(a: Any, b: Any, path: str) -> None:
        if isinstance(a, dict):
            assert isinstance(b, dict), path
            if path.rsplit(".", 1)[-1] in OPEN_MAPS:  # keys are data (error kinds, sources)
                return
            missing = set(a) - set(b) - {"path"}
            assert not missing, (path, missing)
            for key in a:
                if key in b:
                    compare(a[key], b[key], f"{path}.{key}")
        elif "null" not in (a, b):
            assert a == b, (path, a, b)

    compare(theirs, {k: v for k, v in ours.items() if k != "agentic_bench"}, "$")
