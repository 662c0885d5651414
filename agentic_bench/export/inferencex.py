"""An ``--agentx`` run (or each point of an ``--agentx`` sweep) as InferenceX's aggregated
agentic result: the ``agg`` JSON of a ``bmk_agentic_*`` artifact, which InferenceX-app ingests.

Format: SemiAnalysisAI/InferenceX at 843c6254 (2026-08-21), ``utils/agentic/aggregation/``:
``process_agentic_result.py`` ``build_agg`` (194-274: the top-level keys, their types and the
defaults written when a variable is unset — ``""``, ``0``, ``"none"``, ``"false"``), ``_gpu_shape``
(98-114: single node, ``num_gpus = tp × pp × pcp_size``, the per-GPU divisor),
``request_metrics.py`` (``compute_request_metrics`` 367-393 and the parts it calls: latency in
seconds, stats ``mean p50 p75 p90 p95 std`` — population std —, values ≤ 0 left out,
``intvty`` = 1 / each ITL statistic, ``e2e_norm_intvty`` from E2EL / OSL, ``qps`` over 1-s
windows of request ends, token distributions, throughput over first start → last end,
``load_records_with_accounting`` 26-63: warm-up and failed records dropped and counted),
``aggregation_common.py`` (``percentile`` 11-20: linear; ``round_floats`` 71-84: 5 places, an
integral float ≥ 1 written as an int) and ``backends/base.py`` ``empty_server_metrics`` (50-98).
The key sets are those ``test_process_agentic_result.py`` (38-144) holds stable. InferenceX-app
reads the file with ``packages/db/src/etl/agentic-v3-flatten.ts`` (at 0fff2b54).

From our records: each measured LLM request is one AIPerf record; its ``ttft_ms``,
``request_ms`` (E2EL) and ``tpot_ms`` — (end − first token) / (output − 1), which is AIPerf's
per-request ``inter_token_latency`` and its ``full_response_inter_token_latency`` alike
(docs/metrics.md, ``trees``) — and its ``input_tokens``, ``output_tokens`` and recorded
``output_tokens_target`` (``output_expected``). ``conc`` = the lanes, ``tp`` = ``--gpus``
(so InferenceX's per-GPU divisor is ours), ``theoretical_cache_hit_rate`` =
``trees.prefix_hit.theoretical``; the server block from ``--server-metrics`` scrapes when there
were any. What only the serving side knows (hardware, framework, precision, image, recipe) is
written as InferenceX writes an unset variable. Our own figures the format has no key for
(verdict, departures, per-tree and subagent figures, turn latency, lanes) are under
``agentic_bench``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from agentic_bench.errors import UsageError
from agentic_bench.export.run_folder import Request, RunFolder, open_target, requests, stats

STAT_KEYS = ("mean", "p50", "p75", "p90", "p95", "std")
LATENCY_KEYS = ("ttft", "e2el", "itl", "tpot", "intvty", "e2e_norm_intvty", "full_response_itl",
                "full_response_intvty")


def round_floats(value: Any, places: int = 5) -> Any:
    """Every finite float rounded to ``places``; one that rounds to an integer ≥ 1 becomes an
    int (InferenceX ``round_floats``)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return value
        rounded = round(value, places)
        return int(rounded) if abs(rounded) >= 1 and rounded.is_integer() else rounded
    if isinstance(value, dict):
        return {k: round_floats(v, places) for k, v in value.items()}
    if isinstance(value, list):
        return [round_floats(v, places) for v in value]
    return value


def _stats(data: list[float]) -> dict[str, float]:
    """``mean p50 p75 p90 p95 std`` of ``data`` ({} when empty)."""
    found = stats(data, keys=("p50", "p75", "p90", "p95"))
    return {k: found[k] for k in STAT_KEYS} if found else {}


def _positive(data: list[float]) -> list[float]:
    return [v for v in data if math.isfinite(v) and v > 0]


def _inverted(block: dict[str, float], per_request: list[float]) -> dict[str, float]:
    """Interactivity: 1 / each statistic of a per-token latency (slow tail: P90 interactivity
    = 1 / P90 ITL); ``std`` over the per-request inverses."""
    out = {k: 1.0 / block[k] for k in STAT_KEYS[:-1] if block.get(k, 0) > 0}
    inverses = [1.0 / v for v in per_request if v > 0]
    if inverses:
        mean = sum(inverses) / len(inverses)
        out["std"] = math.sqrt(sum((v - mean) ** 2 for v in inverses) / len(inverses))
    return out


def _qps(ends_ns: list[int]) -> dict[str, Any]:
    ends = sorted(t / 1e9 for t in ends_ns)
    if len(ends) < 2 or ends[-1] <= ends[0]:
        return {}
    counts: list[float] = []
    current = ends[0]
    while current + 1.0 <= ends[-1]:
        counts.append(float(sum(1 for t in ends if current <= t < current + 1.0)))
        current += 1.0
    block = _stats(counts) if counts else {"mean": len(ends) / (ends[-1] - ends[0])}
    return {"window_seconds": 1.0, "samples": len(counts), **block}


def empty_server_metrics() -> dict[str, Any]:
    """The server block with nothing known (``backends/base.py`` ``empty_server_metrics``)."""
    return {
        "present": False, "adapter": "none", "metric_count": 0,
        "cache": {k: None for k in (
            "gpu_cache_hit_rate", "cpu_cache_hit_rate", "external_cache_hit_rate",
            "overall_cache_hit_rate", "prefix_cache_hits", "prefix_cache_queries",
            "external_prefix_cache_hits", "external_prefix_cache_queries")}
        | {"cached_tokens_by_source": {}} | {k: None for k in (
            "frontend_cache_hit_rate", "router_kv_hit_rate", "router_shared_cache_hit_rate",
            "frontend_cached_tokens", "frontend_input_tokens")},
        "kv_cache": {k: None for k in ("gpu_usage_pct", "gpu_total_tokens", "cpu_usage_pct",
                                       "cpu_used_tokens", "cpu_total_tokens")},
        "kv_offload": {k: None for k in (
            "bytes_gpu_to_cpu", "bytes_cpu_to_gpu", "time_gpu_to_cpu", "time_cpu_to_gpu",
            "bandwidth_gpu_to_cpu_bytes_per_second", "bandwidth_cpu_to_gpu_bytes_per_second")},
        "tokens": {"prompt_total": None, "generation_total": None, "requests_completed": None,
                   "prompt_by_source": {"gpu_cache_hit": None, "cpu_or_external_cache_hit": None,
                                        "computed": None, "raw": {}}},
        "sources": [],
    }


def _server_metrics(run: RunFolder, good: list[Request]) -> tuple[dict[str, Any], list[str]]:
    block, warnings = empty_server_metrics(), []
    scraped = (run.summary.server_metrics or {}).get("sources") or {}
    if not scraped:
        warnings.append("no server metrics scraped (agentic-bench --server-metrics URL)")
    else:
        url, source = next(iter(scraped.items()))
        if len(scraped) > 1:
            warnings.append(f"{len(scraped)} scraped sources: the server block is {url}'s")
        metrics = source.get("metrics") or {}
        block.update(present=True, adapter="agentic-bench", metric_count=len(metrics),
                     sources=[url])
        rate = (source.get("prefix_cache_hit_rate") or {}).get("value")
        block["cache"].update(
            gpu_cache_hit_rate=rate,
            prefix_cache_hits=(metrics.get("prefix_cache_hits") or {}).get("increase"),
            prefix_cache_queries=(metrics.get("prefix_cache_queries") or {}).get("increase"))
        block["kv_cache"]["gpu_usage_pct"] = (metrics.get("kv_cache_usage") or {}).get("max")
    block["tokens"].update(
        prompt_total=sum(q.input_tokens or 0 for q in good),
        generation_total=sum(q.output_tokens or 0 for q in good),
        requests_completed=len(good))
    return block, warnings


def build_agg(run: RunFolder) -> dict[str, Any]:
    """InferenceX's ``agg`` JSON of one ``--agentx`` run (rounded as InferenceX rounds)."""
    s = run.summary
    steps = requests(run.records())
    good = [q for q in steps if q.ok and not q.warmup]
    categories = Counter(q.error_type for q in steps if q.error_type is not None)
    accounting = {
        "records_total": len(steps), "records_profiled": len(good),
        "records_dropped_total": len(steps) - len(good),
        "records_warmup_dropped": sum(1 for q in steps if q.warmup),
        "records_error_dropped": sum(categories.values()),
        "error_categories": dict(sorted(categories.items()))}

    def seconds(values: list[float | None]) -> list[float]:
        return _positive([v / 1000.0 for v in values if v is not None])

    itls = seconds([q.tpot_ms for q in good])
    ratios = _positive([q.request_ms / 1000.0 / q.output_tokens for q in good
                        if q.request_ms is not None and q.output_tokens])
    itl_block, ratio_block = _stats(itls), _stats(ratios)
    latency = {"ttft": _stats(seconds([q.ttft_ms for q in good])),
               "e2el": _stats(seconds([q.request_ms for q in good])), "itl": itl_block,
               "tpot": itl_block, "intvty": _inverted(itl_block, itls),
               "e2e_norm_intvty": _inverted(ratio_block, ratios),
               "full_response_itl": itl_block, "full_response_intvty": _inverted(itl_block, itls)}
    inputs = [float(q.input_tokens) for q in good if q.input_tokens is not None]
    outputs = [float(q.output_tokens) for q in good if q.output_tokens is not None]
    expected = [float(q.output_target) for q in good if q.output_target is not None]
    gpus = run.gpus
    throughput: dict[str, Any] = {}
    starts = [q.sent_ns for q in good if q.sent_ns is not None]
    ends = [q.end_ns for q in good if q.end_ns is not None]
    if starts and ends and max(ends) > min(starts):
        window = (max(ends) - min(starts)) / 1e9
        rates = {"input": sum(inputs) / window, "output": sum(outputs) / window,
                 "total": (sum(inputs) + sum(outputs)) / window}
        throughput = {**{k: {"tokens_per_second": v} for k, v in rates.items()},
                      "duration_seconds": window,
                      "per_gpu": {"total_tput_tps": rates["total"] / gpus,
                                  "output_tput_tps": rates["output"] / gpus,
                                  "input_tput_tps": rates["input"] / gpus}}
    trees = s.trees or {}
    server, warnings = _server_metrics(run, good)
    workload = s.workload
    agg: dict[str, Any] = {
        "hw": "", "conc": int(run.concurrency() or 0), "image": "", "recipe_fingerprint": "",
        "model": run.model, "infmax_model_prefix": "", "framework": "", "precision": "",
        "spec_decoding": "none", "disagg": False, "scenario_type": "agentic-coding",
        "is_multinode": False, "tp": gpus, "ep": 1, "dp_attention": "false",
        "kv_offloading": "none", "kv_offload_backend": None, "allocated_cpu_dram_gb": 0,
        "num_requests_total": len(steps), "num_requests_successful": len(good),
        "request_accounting": accounting, "pp": 1, "dcp_size": 1, "pcp_size": 1,
        "dataset": {"source_type": "local_file", "loader": "agentic-bench weka",
                    "hf_dataset_name": None, "hf_split": None, "path": workload.get("trace"),
                    "num_dataset_entries": workload.get("trace_sessions")},
        "request_metrics": {
            "qps": _qps(ends), "latency": latency,
            "tokens": {"input": _stats(inputs), "output_actual": _stats(outputs),
                       "output_expected": _stats(expected)},
            "throughput": throughput,
            "cache": {"theoretical_cache_hit_rate": (trees.get("prefix_hit") or {}).get(
                "theoretical")}},
        "server_metrics": server,
        "kv_cache_pool_tokens": server["kv_cache"]["gpu_total_tokens"],
        "warnings": warnings,
        "agentic_bench": {
            "result": s.given("result"), "constraints": s.constraint_rows(),
            "agentx": s.agentx, "trees": trees.get("trees"),
            "context_overflow": trees.get("context_overflow"),
            "prompt_tokens": trees.get("prompt_tokens"), "replies": trees.get("replies"),
            "turn_latency_ms": s.latency_block("turn"),
            "session_latency_ms": s.latency_block("session"),
            "source_run": run.label, "command_line": s.command_line,
            "started_at": s.started_at},
    }
    rounded: dict[str, Any] = round_floats(agg)
    return rounded


def export_inferencex(run_dir: Path, out: Path) -> list[Path]:
    """One ``--agentx`` run: ``out`` is the JSON file. An ``--agentx`` sweep: ``out`` is a
    folder with ``agentx_conc<N>.json`` per point (InferenceX writes one file per
    concurrency). Any other run is refused with the reason."""
    target = open_target(run_dir)
    for run in target.points:
        if not run.agentx:
            raise UsageError(
                f"{run.path}: not an --agentx run. InferenceX's agentic result describes an "
                "AgentX replay of agent trees (lanes, mid-trajectory starts, warm-up, per-GPU "
                "throughput); run `agentic-bench replay TRACE --agentx --concurrency N` (a "
                "Weka trace) and export that folder")
        if run.concurrency() is None:
            raise UsageError(f"{run.path}: an --agentx run without lanes (--concurrency)")
    if target.kind == "run":
        if out.is_dir():
            raise UsageError(f"{out}: a folder; give the JSON file's name")
        paths = [(target.points[0], out)]
    else:
        if out.exists() and not out.is_dir():
            raise UsageError(f"{out}: a {target.kind} exports one file per point: give a "
                             "folder")
        names = [f"agentx_conc{p.concurrency()}.json" for p in target.points]
        if len(set(names)) != len(names):
            raise UsageError(f"{run_dir}: two points at one concurrency (a search's repeats): "
                             "export the point folders one by one")
        paths = [(p, out / n) for p, n in zip(target.points, names, strict=True)]
    bodies = [(path, build_agg(run)) for run, path in paths]
    for path, body in bodies:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    return [path for path, _ in bodies]


__all__ = ["build_agg", "empty_server_metrics", "export_inferencex", "round_floats"]
