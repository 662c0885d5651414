"""MLPerf Edge Agentic artifacts, read back by transcriptions of the reference's *readers*
(mlcommons/endpoints ea332753; ``src/inference_endpoint/`` omitted in the line references).

The summaries are two real runs: ``summary-combined.json`` (3 BFCL samples + 1 coding
conversation on the embedded endpoint, 41 of 44 turns dropped) and ``summary-perf-oracle.json``
(performance phase only, an oracle endpoint, every turn observed).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.tasks.agentic_edge.mlperf_artifacts import (
    build_accuracy_results,
    build_config,
    build_result_summary,
    build_scores,
    redact_url,
    series,
    to_yaml,
    write_artifacts,
)

DATA = Path(__file__).parents[2] / "data" / "mlcommons_edge"
# config/rulesets/mlcommons/models.py 161, 164; rules.py 324
GOLDEN = {"bfcl_overall_accuracy": 86.23, "bfcl_normalized_accuracy": 87.96}
FACTORS = {"bfcl_overall_accuracy": (0.97,), "bfcl_normalized_accuracy": (0.97,)}
MIN_SAMPLES = 995
METRIC_KEYS = {"bfcl_overall_accuracy": "overall_accuracy",  # evaluation/bfcl_v4_metrics.py 32
               "bfcl_normalized_accuracy": "normalized_single_turn_score"}


def _summary(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"summary-{name}.json").read_text())


# ---- transcriptions of the readers -------------------------------------------------------------
def find_accuracy_entry(results: dict[str, Any]) -> dict[str, Any] | None:
    """evaluation/accuracy_results.py 56-75: first entry whose breakdown has subset_scores."""
    scores = results.get("accuracy_scores")
    if not isinstance(scores, list):
        return None
    return next((e for e in scores if isinstance(e, dict) and isinstance(e.get("breakdown"), dict)
                 and "subset_scores" in e["breakdown"]), None)


def find_accuracy_breakdown(results: dict[str, Any]) -> dict[str, Any] | None:
    """evaluation/accuracy_results.py 78-86."""
    entry = find_accuracy_entry(results)
    return None if entry is None else entry.get("breakdown")


def _float(v: Any) -> float | None:  # accuracy_results.py 42-53
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        return None


def check_accuracy(results: dict[str, Any]) -> dict[str, bool]:
    """compliance/checker.py 174-243 (golden x factor on the breakdown, entry score as fallback
    for overall_accuracy; total_samples >= min_samples)."""
    entry = find_accuracy_entry(results)
    if entry is None:
        return {"accuracy_results_present": False}
    block, out = entry["breakdown"], {}
    for golden_key, key in METRIC_KEYS.items():
        measured = _float(block.get(key))
        if measured is None and key == "overall_accuracy":
            measured = _float(entry.get("score"))
        out[f"accuracy:{key}"] = (measured is not None
                                  and measured >= GOLDEN[golden_key] * FACTORS[golden_key][0])
    total = _float(block.get("total_samples"))
    out["min_sample_count"] = total is not None and total >= MIN_SAMPLES
    return out


def check_perf_validity(scores: dict[str, Any]) -> dict[str, bool]:
    """compliance/checker.py 246-270."""
    turns = scores.get("turns")
    if not isinstance(turns, dict):
        return {"perf_turns_present": False}
    return {"no_dropped_turns": turns.get("missing") == 0,
            "all_turns_observed": turns.get("expected") is not None
            and turns.get("observed") == turns.get("expected")}


def _get(d: dict[str, Any], *path: str) -> Any:  # checker.py 102-108
    for key in path:
        if not isinstance(d, dict) or key not in d:
            return None
        d = d[key]
    return d


def check_config_lock(config: dict[str, Any]) -> dict[str, bool]:
    """compliance/checker.py 111-153."""
    seeds = {k: v for k, v in {"m": _get(config, "model_params", "seed"), "d": _get(
        config, "settings", "runtime", "dataloader_random_seed")}.items() if v is not None}
    single = (_get(config, "settings", "client", "num_workers") == 1
              and _get(config, "settings", "client", "max_connections") == 1)
    target = _get(config, "settings", "load_pattern", "target_concurrency")
    if target is not None:
        single = single and target == 1
    return {"temperature==0": _get(config, "model_params", "temperature") == 0,
            "seed==42": bool(seeds) and all(v == 42 for v in seeds.values()),
            "single_stream": single}


def _percentile(metric: dict[str, Any], key: str) -> Any:
    """scripts/publish_submission.py 130-150."""
    perc = metric.get("percentiles", {}) if isinstance(metric, dict) else {}
    return perc.get(key, next((v for k, v in perc.items() if float(k) == float(key)), None))


# scripts/publish_submission.py 81-96: what is copied, from where, to where
PUBLISHED = {"performance/run_1": ("performance/result_summary.json", "config.yaml"),
             "accuracy": ("accuracy/accuracy_results.json", "config.yaml")}

# extra="forbid" field sets of the config schema (config/schema.py; endpoint_client/config.py)
SCHEMA: dict[tuple[str, ...], set[str]] = {
    (): {"name", "version", "type", "submission_ref", "benchmark_mode", "model_params",
         "datasets", "settings", "endpoint_config", "report_dir", "timeout", "verbose",
         "enable_cpu_affinity", "audit"},  # 1047-1100
    ("model_params",): {"name", "temperature", "seed", "top_k", "top_p", "repetition_penalty",
                        "presence_penalty", "frequency_penalty", "chat_template_kwargs",
                        "max_new_tokens", "min_new_tokens", "skip_special_tokens",
                        "osl_distribution", "streaming", "tokenizer_name"},  # 286-345
    ("settings",): {"runtime", "load_pattern", "client", "drain", "warmup", "profiling",
                    "early_stopping", "service_ready_timeout_s"},  # 964-993
    ("settings", "runtime"): {"min_duration_ms", "max_duration_ms", "n_samples_to_issue",
                              "scheduler_random_seed", "dataloader_random_seed"},  # 608-660
    ("settings", "load_pattern"): {"type", "target_qps", "target_concurrency",
                                   "use_legacy_loadgen_qps_metrics"},  # 663-700
    ("endpoint_config",): {"endpoints", "api_key", "api_type"},  # 1009-1044
}
DATASET_KEYS = {"name", "type", "path", "format", "samples", "eval_method", "parser",
                "generate_params", "accuracy_config", "agentic_inference",
                "generation_config_override"}  # 446-500
CLIENT_KEYS = {"num_workers", "log_level", "warmup_connections", "auto_warmup_budget_fraction",
               "max_concurrent_warmup_connects", "max_connections"}  # endpoint_client 79-175


def _steps(n: int) -> list[dict[str, Any]]:
    """n performance requests, one in flight: latency (k+1) ms, TTFT k/4 ms, k+10 tokens."""
    out, t = [], 1_000
    for k in range(n):
        out.append({"type": "step", "phase": "performance", "kind": "llm", "status": "ok",
                    "t_scheduled_ns": t, "t_sent_ns": t, "t_first_token_ns": t + k * 250_000,
                    "t_end_ns": t + (k + 1) * 1_000_000, "tpot_ms": 0.5 + k / 100,
                    "output_tokens": k + 10, "input_tokens": 100 * (k + 1),
                    "finish_reason": "tool_calls" if k % 2 else "stop"})
        t += (k + 1) * 1_000_000
    return out


# ---- tests -------------------------------------------------------------------------------------
def test_nothing_written_without_an_mlperf_phase(tmp_path: Path) -> None:
    summary = _summary("combined")
    summary["accuracy"] = {"metric": "bfcl multi-turn accuracy", "multi_turn": {}}
    assert write_artifacts(tmp_path, summary, []) == []
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["combined", "perf-oracle"])
def test_published_paths_exist_and_verify(tmp_path: Path, name: str) -> None:
    written = write_artifacts(tmp_path, _summary(name), _steps(20))
    rel = {p.relative_to(tmp_path).as_posix() for p in written}
    assert rel == {"accuracy/accuracy_results.json", "scores.json", "config.yaml",
                   "performance/result_summary.json"}
    for sources in PUBLISHED.values():
        assert all((tmp_path / s).is_file() for s in sources)
    perf = json.loads((tmp_path / "performance/result_summary.json").read_text())
    assert perf["qps"] and perf["duration_ns"] and perf["n_samples_issued"]  # 152-183
    assert all(_percentile(perf[m], "99.0") for m in ("latency", "ttft", "tpot"))
    results = json.loads((tmp_path / "accuracy/accuracy_results.json").read_text())
    assert results["accuracy_scores"]  # 186-208


def test_accuracy_only_run(tmp_path: Path) -> None:
    summary = _summary("combined")
    del summary["accuracy"]["inline"]
    rel = {p.relative_to(tmp_path).as_posix() for p in write_artifacts(tmp_path, summary, [])}
    assert rel == {"accuracy/accuracy_results.json", "config.yaml"}
    config = build_config(summary)
    assert [d["type"] for d in config["datasets"]] == ["accuracy"]
    assert config["settings"]["load_pattern"] == {"type": "concurrency", "target_concurrency": 1}
    assert all(check_config_lock(config).values())


def test_accuracy_entry_as_the_readers_see_it() -> None:
    results = build_accuracy_results(_summary("combined"), [])
    entry = find_accuracy_entry(results)
    assert entry is not None and entry["dataset_name"] == "bfcl_v4::function_calling"
    assert {"dataset_name", "extractor", "ground_truth_column", "score", "unit_samples",
            "num_repeats", "total_samples", "duration_s", "complete",
            "dataset_type"} <= set(entry)  # commands/benchmark/accuracy.py 308-329
    block = find_accuracy_breakdown(results)
    assert block == {"overall_accuracy": 33.33, "normalized_single_turn_score": 33.33,
                     "category_scores": {"non_live": 100.0, "live": 0.0, "hallucination": 0.0},
                     "subset_scores": {"simple_python": 100.0, "live_multiple": 0.0,
                                       "live_irrelevance": 0.0},
                     "unscored_subsets": {}, "total_samples": 3, "issued_samples": 3}
    assert entry["score"] == pytest.approx(1 / 3) and results["average_accuracy"] == entry["score"]
    # BFCL first (execute.py 312-364 before 418-446; test_issue43_edge.py)
    assert [e["dataset_type"] for e in results["accuracy_scores"]] == ["accuracy", "performance"]
    assert find_accuracy_entry(build_accuracy_results(_summary("perf-oracle"), [])) is None


def test_three_samples_fail_the_gate_and_a_full_run_passes() -> None:
    assert check_accuracy(build_accuracy_results(_summary("combined"), [])) == {
        "accuracy:overall_accuracy": False, "accuracy:normalized_single_turn_score": False,
        "min_sample_count": False}
    summary = _summary("combined")
    summary["accuracy"].update(overall=0.8365, normalized=0.9, planned=995, completed=995)
    assert all(check_accuracy(build_accuracy_results(summary, [])).values())
    summary["accuracy"]["overall"] = 0.8364  # 83.64 < 0.97 x 86.23 = 83.6431
    assert not check_accuracy(build_accuracy_results(summary, []))["accuracy:overall_accuracy"]


def test_perf_validity_and_scores_shape() -> None:
    assert check_perf_validity(build_scores(_summary("perf-oracle"), [])) == {
        "no_dropped_turns": True, "all_turns_observed": True}
    assert check_perf_validity(build_scores(_summary("combined"), [])) == {
        "no_dropped_turns": False, "all_turns_observed": False}
    records = [{"type": "inline_score", "conversation_id": "sim_7", "mlperf_turn": 3,
                "paired": True, "scorable": False, "issued": True}]
    scores = build_scores(_summary("combined"), records)
    assert list(scores) == ["score", "turns", "domains", "per_turn", "excluded_turns"]
    assert list(scores["turns"]) == ["issued", "expected", "observed", "missing", "scored"]
    assert scores["per_turn"][3] == {"conversation_id": "psf__requests-1921", "repeat": 1,
                                     "turn": 8, "domain": "coding", "missing": True, "score": 0.0}
    assert scores["excluded_turns"] == [{"conversation_id": "sim_7", "turn": 4,
                                         "domain": "workflow", "exclude_reason": "no ground truth"}]


@pytest.mark.parametrize("name", ["combined", "perf-oracle"])
def test_config_lock_and_schema_keys(name: str) -> None:
    config = build_config(_summary(name))
    assert check_config_lock(config) == {"temperature==0": True, "seed==42": True,
                                         "single_stream": True}
    for path, allowed in SCHEMA.items():
        assert set(_get(config, *path) if path else config) <= allowed, path
    assert set(config["settings"]["client"]) <= CLIENT_KEYS
    assert all(set(d) <= DATASET_KEYS for d in config["datasets"])
    assert config["endpoint_config"]["api_key"] is None
    assert config["endpoint_config"]["endpoints"][0].startswith("http://127.0.0.1:")


def test_config_lock_fails_for_a_departing_run() -> None:
    summary = _summary("perf-oracle")
    summary["config"]["overrides"] = {"temperature": 0.7}
    summary["config"]["load"].update(scenario="concurrency", concurrency=4, seed=7)
    assert check_config_lock(build_config(summary)) == {
        "temperature==0": False, "seed==42": False, "single_stream": False}


def test_config_yaml_round_trips(tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    write_artifacts(tmp_path, _summary("combined"), [])
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert config == build_config(_summary("combined"))
    odd = {"a": [], "b": {}, "c": [[1, 2], {"x": None}], "d": "q\"uote: #x", "e": [True, 1.5]}
    assert yaml.safe_load("\n".join(to_yaml(odd))) == odd


def test_no_secret_in_any_artifact(tmp_path: Path) -> None:
    secret = "sk-DO-NOT-LEAK-1234"
    summary = copy.deepcopy(_summary("combined"))
    summary["config"].update(api_key=secret, headers={"Authorization": f"Bearer {secret}"})
    summary["endpoint"]["url"] = f"https://user:{secret}@api.example/v1?api_key={secret}&x=1"
    summary["endpoint"]["api_key"] = secret
    for path in write_artifacts(tmp_path, summary, _steps(3)):
        assert secret not in path.read_text(), path
    url = build_config(summary)["endpoint_config"]["endpoints"][0]
    assert url == "https://<redacted>@api.example?api_key=%3Credacted%3E&x=1"
    assert redact_url("http://h:8080/v1?a=1") == "http://h:8080?a=1"


def test_result_summary_series_as_the_reference_computes_them() -> None:
    np = pytest.importorskip("numpy")
    steps = _steps(37)
    summary = build_result_summary(_summary("perf-oracle"), steps)
    assert list(summary) == [  # metrics/report.py 182-236 (accuracy dropped by to_json 381-383)
        "version", "git_sha", "test_started_at", "n_samples_issued", "n_samples_completed",
        "n_samples_failed", "duration_ns", "state", "complete", "ttft", "tpot", "latency",
        "output_sequence_lengths", "input_sequence_lengths",
        "legacy_loadgen_window_duration_ns", "qps", "tps", "finish_reason_counts", "run_config"]
    latency = [s["t_end_ns"] - s["t_sent_ns"] for s in steps]
    block = summary["latency"]
    grid = [99.9, 99.0, 97.0, 95.0, 90.0, 80.0, 75.0, 50.0, 25.0, 10.0, 5.0, 1.0]
    assert block["percentiles"] == {
        str(p): float(v) for p, v in zip(grid, np.percentile(latency, grid, method="lower"),
                                         strict=True)}
    assert block["median"] == block["percentiles"]["50.0"] and block["max"] == max(latency)
    assert block["std_dev"] == pytest.approx(float(np.std(latency, ddof=1)))
    edges = np.exp(np.linspace(np.log(min(latency)), np.log(max(latency)), 31))
    counts, _ = np.histogram(np.clip(latency, edges[0], edges[-1]), bins=edges)
    assert block["histogram"]["counts"] == [int(c) for c in counts]
    duration = steps[-1]["t_end_ns"] - steps[0]["t_scheduled_ns"]
    assert summary["duration_ns"] == duration
    assert summary["qps"] == pytest.approx(71 / (duration / 1e9))  # phase counts: 71 requests
    assert summary["tps"] == pytest.approx(sum(range(10, 47)) / (duration / 1e9))
    assert summary["finish_reason_counts"]["tool_calls"] == 18
    assert summary["ttft"]["min"] == 0 and series([]) == {}


def test_complete_and_response_counts_as_the_reference_writes_them() -> None:
    """#31 Edge item 6 — the accuracy entries' ``complete`` is the scorer's flag
    (commands/benchmark/accuracy.py 321-324; evaluation/scoring.py 149-153), never cleared by
    the BFCL or inline scorers: true even for an interrupted run. ``result_summary.json`` says
    interrupted / false (ours; the reference says complete after Ctrl-C: a named departure).
    response_counts (accuracy.py 121-147): scored = a reply, empty = a failed request's empty
    COMPLETE, missing = never completed."""
    summary = _summary("combined")
    summary["complete"], summary["stop_reason"] = False, "interrupted"
    summary["accuracy"].update(planned=5, completed=4, answered=3, never_issued=0)
    results = build_accuracy_results(summary, [])
    assert all(e["complete"] is True for e in results["accuracy_scores"])
    entry = find_accuracy_entry(results)
    assert entry is not None
    assert entry["response_counts"] == {"issued": 5, "scored": 3, "empty": 1, "missing": 1}
    perf = build_result_summary(summary, [])
    assert (perf["state"], perf["complete"]) == ("interrupted", False)
