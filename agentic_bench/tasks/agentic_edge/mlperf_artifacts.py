"""MLPerf v6.1 Edge Agentic's own run artifacts, written into an agentic-edge run directory.

References: mlcommons/endpoints ea332753, paths under ``src/inference_endpoint/`` unless rooted.
``scripts/publish_submission.py`` 81-96 copies ``performance/result_summary.json`` + ``config.yaml``
to ``performance/run_1/`` and ``accuracy/accuracy_results.json`` + ``config.yaml`` to
``accuracy/``, then reads ``qps``, ``duration_ns``, ``n_samples_issued``, the ``"99.0"``
percentile of ``latency`` / ``ttft`` / ``tpot`` (152-183) and each entry's ``score`` and
``breakdown.overall_accuracy`` (186-208). ``compliance/checker.py`` 292-324 reads ``config.yaml``,
``accuracy/accuracy_results.json`` and ``scores.json``. Written here:

* ``accuracy/accuracy_results.json`` (``commands/benchmark/accuracy.py`` 386-434):
  ``average_accuracy`` and ``accuracy_scores``. The ``bfcl_v4::function_calling`` entry (308-332):
  ``score`` (overall fraction), ``unit_samples`` = ``total_samples`` = planned, ``num_repeats``,
  ``duration_s`` (accuracy-phase window of the records), ``complete``, ``dataset_type``,
  ``extractor``, ``ground_truth_column``, ``breakdown`` (``evaluation/bfcl_v4_scorer.py``
  394-411: ``round(x * 100, 2)``; ``total_samples`` = completed, ``issued_samples`` = planned),
  ``response_counts`` (121-147; ``scored`` = a reply arrived, ``empty`` = a failed request's
  empty COMPLETE, ``missing`` = issued and never completed: a cancelled request),
  ``output_sequence_lengths`` (86-118; server ``usage`` counts, not the reference tokenizer,
  so no ``osl_tokenize_s``). Then the inline entry
  (``dataset_name``/``dataset_type`` "performance", 295-300) with the IoU score: BFCL first, as
  ``execute.py`` 312-364 / 418-446 order the configs (the checker reads the first entry).
* ``scores.json`` (``evaluation/scoring.py`` 729-754): ``score``, ``turns``, ``domains``,
  ``per_turn`` (``turn`` = the assistant row = client turn + 1, turns being 1..N),
  ``excluded_turns`` (from ``inline_score`` records). Not filled: per-turn ``gt_actions`` /
  ``model_actions`` / ``gt_intents`` / ``model_intent`` (records keep no recorded rows or text).
* ``performance/result_summary.json`` (``metrics/report.py`` 179-236, 376-388, series shape
  82-157; ``async_utils/services/metrics_aggregator/registry.py`` 120-131, 354-403, 411-425:
  percentile grid, ``method="lower"``, 30 log-spaced buckets), performance phase only, in ns:
  ``ttft`` (sent -> first chunk), ``tpot`` (ours: (end - first) / (output_tokens - 1)),
  ``latency`` (sent -> last byte, failed requests included as there), token series from
  ``usage``; a failed request counts completed and failed (ERROR + empty COMPLETE there);
  ``duration_ns`` = first scheduled -> last end of the phase's records (wrong across
  ``--resume`` segments, whose clocks differ); on MLCommons' conversations the reference's
  tracked counts and window instead (:mod:`.perf_window`: ``n_samples_*`` over every issued
  turn, aborted ones included, ``duration_ns`` to the last completion, ``qps`` = completed /
  duration); ``qps``, ``tps``, ``finish_reason_counts``,
  ``run_config`` (``commands/benchmark/pipeline.py`` 162-166). Not filled: ``git_sha`` (null),
  ``test_started_at`` (0, as there), ``early_stopping_percentiles`` (omitted),
  ``legacy_loadgen_window_duration_ns`` (null; Poisson only). Not written without a coding phase.

``complete``, two meanings: in ``accuracy_results.json`` it is the scorer's flag
(``commands/benchmark/accuracy.py`` 321-324, ``evaluation/scoring.py`` 149-153), which the BFCL
and inline scorers never set false — so ``true`` here too, interrupted run or not (as there).
In ``result_summary.json`` the reference writes ``"state": "complete"`` even after Ctrl-C (its
metrics aggregator ignores SIGINT: ``metrics_aggregator/__main__.py`` 290-320; ``metrics/
report.py`` 339-362), false only after SIGTERM, a drain timeout or a missing final snapshot;
ours says ``"interrupted"`` / false for any run that did not complete — a named departure
(docs/agentic-edge.md), stricter on purpose.
* ``config.yaml`` (``config/schema.py`` 286-345, 446-500, 608-700, 1009-1100; written by
  ``commands/benchmark/execute.py`` 499, redaction 1453-1514): ``model_params`` (name,
  temperature, seed, max_new_tokens, streaming), ``datasets``, ``settings`` (runtime seeds,
  load_pattern, client: one worker, connections = requests in flight), ``endpoint_config``
  (URL without ``/v1``, userinfo and secret query values redacted, ``api_key`` null). Only
  these fields are copied, so no secret of the summary reaches it; stdlib block-YAML emitter.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agentic_bench.metrics.declarations import field_of, ttft_ns
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.records.llm import record_timestamps
from agentic_bench.tasks.agentic_edge.data import SUBSET_CATEGORY
from agentic_bench.tasks.agentic_edge.gates import reported
from agentic_bench.tasks.agentic_edge.perf_window import tracked
from agentic_bench.transport.url import redact_url as redact_endpoint

BFCL_NAME = "bfcl_v4::function_calling"
PERCENTILES = (99.9, 99.0, 97.0, 95.0, 90.0, 80.0, 75.0, 50.0, 25.0, 10.0, 5.0, 1.0)
BUCKETS = 30
FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter", "function_call")
BFCL_GENERATE_PARAMS = {"categories": ["non_live", "live", "hallucination"],
                        "category_sample_pct": {"non_live": 62, "live": 10, "hallucination": 10},
                        "subset_floor": 25}


def _steps(records: list[dict[str, Any]], phase: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("type") == "step" and r.get("phase") == phase
            and r.get("kind", "llm") == "llm"]


def _window_ns(records: list[dict[str, Any]], phase: str) -> int | None:
    rows = [r for r in records if r.get("phase") == phase and r.get("type") in ("step", "session")]
    starts: list[int] = [s for r in rows
                         if (s := r.get("t_scheduled_ns", r.get("t_sent_ns"))) is not None]
    ends: list[int] = [e for r in rows if (e := r.get("t_end_ns")) is not None]
    return max(ends) - min(starts) if starts and ends and max(ends) > min(starts) else None


def series(values: Iterable[float]) -> dict[str, Any]:
    """The reference's exact-path rollup of one series ({} when empty)."""
    vals = sorted(values)
    n = len(vals)
    if n == 0:
        return {}
    total, sum_sq = sum(vals), float(sum(v * v for v in vals))  # sum_sq is a float there
    std = math.sqrt(max(0.0, (sum_sq - total * total / n) / (n - 1))) if n > 1 else 0.0
    perc = {str(p): float(vals[math.floor(p / 100 * (n - 1))]) for p in PERCENTILES}
    lo = max(float(vals[0]), 1.0)
    step = (math.log(max(float(vals[-1]), lo * 10.0)) - math.log(lo)) / BUCKETS
    edges = [math.exp(math.log(lo) + i * step) for i in range(BUCKETS + 1)]
    counts = [0] * BUCKETS
    for v in vals:
        counts[min(max(bisect.bisect_right(edges, v) - 1, 0), BUCKETS - 1)] += 1
    return {"total": total, "min": vals[0], "max": vals[-1], "median": perc["50.0"],
            "avg": total / n, "std_dev": std, "percentiles": perc,
            "histogram": {"buckets": [[edges[i], edges[i + 1]] for i in range(BUCKETS)],
                          "counts": counts}}


def _load(summary: Summary | dict[str, Any]) -> dict[str, Any]:
    typed = Summary.of(summary)
    load: dict[str, Any] = typed.config.get("load") or typed.scenario
    return load


def _in_flight(load: dict[str, Any]) -> int | None:
    if load.get("scenario", "single-stream") == "single-stream":
        return 1
    concurrency: int | None = load.get("concurrency")
    return concurrency


def run_config(summary: Summary | dict[str, Any], coding: bool) -> dict[str, Any]:
    """``result_summary.json``'s ``run_config`` (the load pattern and warmup as dumped there)."""
    load = _load(summary)
    seed = load.get("seed", 42)
    kind = ("agentic_inference" if coding else
            "poisson" if load.get("scenario") == "server" else "concurrency")
    return {"load_pattern": {"type": kind, "target_qps": load.get("rate") if kind == "poisson"
                             else None, "target_concurrency": None if kind == "poisson"
                             else _in_flight(load), "use_legacy_loadgen_qps_metrics": True},
            "warmup": {"enabled": False, "n_requests": None, "salt": False, "drain": False,
                       "warmup_random_seed": 42},
            "scheduler_random_seed": seed, "dataloader_random_seed": seed}


def _ttft_ns(r: dict[str, Any]) -> float | None:
    """A step's TTFT in ns: the declared one (metrics/declarations.py) over the record's
    instants, as the summary's; the recorded ``ttft_ms`` where the record has no instants."""
    stamps = record_timestamps(r)
    span = None if stamps is None else ttft_ns(stamps)
    if span is not None:
        return float(span)
    ms = r.get(field_of("ttft"))
    return None if ms is None else round(ms * 1e6)


def build_result_summary(given: Summary | dict[str, Any],
                         records: list[dict[str, Any]]) -> dict[str, Any]:
    summary = Summary.of(given)
    steps = _steps(records, "performance")
    ok = [r for r in steps if r.get("status") == "ok"]
    counts = (summary.phases.get("performance") or {}).get("counts") or {}

    def delta(r: dict[str, Any], start: str, end: str, ms_key: str) -> float | None:
        if r.get(start) is not None and r.get(end) is not None:
            return float(r[end] - r[start])
        return None if r.get(ms_key) is None else round(r[ms_key] * 1e6)

    latency = [delta(r, "t_sent_ns", "t_end_ns", field_of("request")) for r in steps]
    ttft = [_ttft_ns(r) for r in steps]
    osl = series(r["output_tokens"] for r in ok if r.get("output_tokens"))
    issued = counts.get("requests", len(steps))
    completed, failed = issued, counts.get("errors", 0)
    duration = _window_ns(records, "performance")
    # MLCommons' conversations: the reference's tracked samples and QPS window (perf_window.py)
    if (window := tracked(records)) is not None:
        issued, completed, failed = window["issued"], window["completed"], window["failed"]
        duration = window["duration_ns"]
    if duration is None and summary.duration_s:
        duration = round(summary.duration_s * 1e9)
    # a completed request without a finish_reason (an error event dropped from its stream)
    # is counted under none (metrics_aggregator/aggregator.py 415-420)
    reasons = [r["finish_reason"] for r in ok if isinstance(r.get("finish_reason"), str)]
    finish = {k: reasons.count(k) for k in FINISH_REASONS}
    finish["other"] = len(reasons) - sum(finish.values())
    return {
        "version": str(summary.versions.get("agentic-bench", "unknown")),
        "git_sha": None, "test_started_at": 0, "n_samples_issued": issued,
        "n_samples_completed": completed, "n_samples_failed": failed,
        "duration_ns": duration, "state": "complete" if summary.complete else "interrupted",
        "complete": summary.complete,
        "ttft": series(v for v in ttft if v is not None),
        "tpot": series(r["tpot_ms"] * 1e6 for r in ok if r.get("tpot_ms") is not None),
        "latency": series(v for v in latency if v is not None),
        "output_sequence_lengths": osl,
        "input_sequence_lengths": series(r["input_tokens"] for r in steps
                                         if r.get("input_tokens") is not None),
        "legacy_loadgen_window_duration_ns": None,
        "qps": completed / (duration / 1e9) if duration else None,
        "tps": osl.get("total", 0) / (duration / 1e9) if duration and osl else None,
        "finish_reason_counts": finish, "run_config": run_config(given, True)}


def build_scores(summary: Summary | dict[str, Any],
                 records: list[dict[str, Any]]) -> dict[str, Any]:
    inline = (Summary.of(summary).accuracy or {}).get("inline") or {}
    per_turn = []
    for row in inline.get("per_turn", []):
        out = {"conversation_id": row["conversation_id"], "repeat": row.get("repeat", 1),
               "turn": row.get("turn", row.get("client_turn", 0) + 1), "domain": row["domain"]}
        per_turn.append({**out, **({"missing": True} if row.get("missing") else {}),
                         "score": row["score"]})
    result = {"score": inline.get("score"), "turns": dict(inline.get("turns") or {}),
              "domains": inline.get("domains") or {}, "per_turn": per_turn}
    latest = {(r["conversation_id"], int(r["mlperf_turn"])): r
              for r in records if r.get("type") == "inline_score"}
    excluded = [{"conversation_id": cid, "turn": turn + 1,
                 "domain": "workflow" if re.match(r"sim_\d+$", cid) else "coding",
                 "exclude_reason": "no ground truth"}
                for (cid, turn), r in sorted(latest.items()) if r.get("paired")
                and not r.get("scorable")]
    return {**result, "excluded_turns": excluded} if excluded else result


def build_accuracy_results(given: Summary | dict[str, Any],
                           records: list[dict[str, Any]]) -> dict[str, Any]:
    summary = Summary.of(given)
    acc = summary.accuracy or {}
    # BFCL first, the inline performance entry after it: commands/benchmark/execute.py 312-364
    # appends the accuracy datasets' configs, then 418-446 the performance one, and
    # accuracy.py 260-377 scores and appends them in that order
    entries: list[dict[str, Any]] = [bfcl_entry(acc, records)] if acc.get("planned") else []
    if acc.get("inline"):
        turns = acc["inline"].get("turns") or {}
        window = _window_ns(records, "performance")
        entries.append({"dataset_name": "performance", "extractor": None,
                        "ground_truth_column": None, "score": acc["inline"].get("score"),
                        "unit_samples": summary.workload.get(
                            "performance_requests", turns.get("issued", 0)),
                        "num_repeats": 1,
                        "total_samples": (summary.phases.get("performance")
                                          or {}).get("counts", {}).get("requests", 0),
                        "duration_s": round((window or 0) / 1e9, 3), "complete": True,
                        "dataset_type": "performance"})
    scores = [e["score"] for e in entries if e["dataset_type"] != "performance"
              and isinstance(e["score"], int | float)]
    head = {"average_accuracy": sum(scores) / len(scores)} if scores else {}
    return {**head, "accuracy_scores": entries}


def bfcl_entry(acc: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    planned, completed = acc["planned"], acc.get("completed", 0)
    subsets = {k: reported(v["accuracy"]) for k, v in (acc.get("subsets") or {}).items()
               if v.get("accuracy") is not None}
    breakdown = {
        "overall_accuracy": reported(acc.get("overall")) or 0.0,
        "normalized_single_turn_score": reported(acc.get("normalized")) or 0.0,
        "category_scores": {k: reported(v["accuracy"])
                            for k, v in (acc.get("categories") or {}).items()
                            if v.get("accuracy") is not None},
        "subset_scores": subsets,
        "unscored_subsets": {k: v for k, v in subsets.items() if k not in SUBSET_CATEGORY},
        "total_samples": completed, "issued_samples": planned}
    issued = planned - acc.get("never_issued", 0)
    window = _window_ns(records, "accuracy")
    entry = {"dataset_name": BFCL_NAME, "extractor": "FunctionCallExtractor",
             "ground_truth_column": "ground_truth", "score": acc.get("overall") or 0.0,
             "unit_samples": planned, "num_repeats": 1, "total_samples": planned,
             "duration_s": round((window or 0) / 1e9, 3), "complete": True,
             "dataset_type": "accuracy", "breakdown": breakdown,
             # commands/benchmark/accuracy.py 121-147: scored = a non-empty reply, empty = a
             # COMPLETE with "" (a failed request), missing = no COMPLETE
             "response_counts": {"issued": issued, "scored": acc.get("answered", completed),
                                 "empty": completed - acc.get("answered", completed),
                                 "missing": issued - completed}}
    sample_sessions = {r["session_id"] for r in records  # the trial the block scored
                       if r.get("type") == "sample" and r.get("category") != "multi_turn"
                       and r.get("trial", 0) == acc.get("scored_trial", 0)}
    osl = series(r["output_tokens"] for r in _steps(records, "accuracy")
                 if r.get("session_id") in sample_sessions and r.get("status") == "ok"
                 and r.get("output_tokens"))
    return {**entry, "output_sequence_lengths": osl} if osl else entry


def redact_url(url: str) -> str:
    """``config/schema.py`` 1470-1499: userinfo and secret query values redacted (our one
    redaction, :func:`agentic_bench.transport.url.redact_url`), and no ``/v1``."""
    parts = urlsplit(redact_endpoint(url, marker="<redacted>"))
    return urlunsplit(parts._replace(path=re.sub(r"/v1/?$", "", parts.path)))


def build_config(given: Summary | dict[str, Any]) -> dict[str, Any]:
    summary = Summary.of(given)
    acc, work, cfg, endpoint = summary.accuracy or {}, summary.workload, summary.config, \
        summary.endpoint
    over, load = cfg.get("overrides") or {}, _load(summary)
    coding = bool(acc.get("inline"))
    datasets: list[dict[str, Any]] = []
    if coding:
        datasets.append({"name": "agentic_coding", "type": "performance",
                         "path": work.get("performance_trace"),
                         "accuracy_config": {"eval_method": "agentic_inference_inline"},
                         "agentic_inference": {
                             "turn_timeout_s": work.get("turn_timeout_s", 600.0),
                             "num_trajectories_to_issue": work.get("performance_sessions")}})
    if acc.get("planned"):
        bfcl: dict[str, Any] = {"name": BFCL_NAME, "type": "accuracy"}
        if str(work.get("sample_selection", "MLPerf")).startswith("MLPerf"):
            bfcl["generate_params"] = BFCL_GENERATE_PARAMS
        if acc["planned"] != 995:
            bfcl["samples"] = acc["planned"]
        datasets.append({**bfcl, "accuracy_config": {
            "eval_method": "bfcl_v4", "ground_truth": "ground_truth",
            "extractor": "function_call_extractor", "num_repeats": 1}})
    pattern = run_config(summary, coding)["load_pattern"]
    url = endpoint.url or cfg.get("endpoint") or "http://localhost"
    return {
        "name": "agentic-bench-" + (summary.benchmark or "agentic-edge"),
        "version": "1.0", "type": "online",
        "model_params": {
            "name": endpoint.model or cfg.get("model") or "unknown",
            "temperature": over.get("temperature", 0), "seed": over.get("seed", 42),
            "max_new_tokens": over.get("max_completion_tokens", over.get("max_tokens", 1024)),
            "streaming": "on"},
        "datasets": datasets,
        "settings": {
            "runtime": {"min_duration_ms": 0,
                        # the performance phase's cap on MLCommons' conversations (0: none)
                        "max_duration_ms": round(((work.get("performance_max_duration_s")
                                                   if coding else load.get("duration_s"))
                                                  or 0) * 1000),
                        "scheduler_random_seed": load.get("seed", 42),
                        "dataloader_random_seed": load.get("seed", 42)},
            "load_pattern": {k: v for k, v in pattern.items()
                             if v is not None and k != "use_legacy_loadgen_qps_metrics"},
            "client": {"num_workers": 1, "max_connections": _in_flight(load) or -1,
                       "warmup_connections": 0}},
        "endpoint_config": {"endpoints": [redact_url(url if "://" in url else "http://" + url)],
                            "api_type": "openai", "api_key": None}}


def _scalar(value: Any) -> str:
    return "null" if value is None else json.dumps(value)


def to_yaml(value: Any, pad: str = "") -> list[str]:
    """Block-style YAML: mappings and sequences nest, scalars are JSON (valid YAML)."""
    if isinstance(value, dict) and value:
        out: list[str] = []
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                out += [f"{pad}{key}:", *to_yaml(item, pad + "  ")]
            else:
                out.append(f"{pad}{key}: {to_yaml(item)[0]}")
        return out
    if isinstance(value, list) and value:
        out = []
        for item in value:
            lines = to_yaml(item, pad + "  ")
            out += [f"{pad}- {lines[0][len(pad) + 2:]}", *lines[1:]]
        return out
    return [pad + ("{}" if value == {} else "[]" if value == [] else _scalar(value))]


def write_artifacts(out_dir: Path, given: Summary | dict[str, Any],
                    records: list[dict[str, Any]]) -> list[Path]:
    """Write the artifacts that apply to this run; return their paths (none: no MLPerf phase)."""
    summary = Summary.of(given)
    acc = summary.accuracy or {}
    if not acc.get("planned") and not acc.get("inline"):
        return []
    out_dir = Path(out_dir)
    files: dict[str, str] = {
        "accuracy/accuracy_results.json": json.dumps(build_accuracy_results(summary, records),
                                                     indent=2)}
    if acc.get("inline"):
        files["scores.json"] = json.dumps(build_scores(summary, records), indent=2)
        files["performance/result_summary.json"] = json.dumps(
            build_result_summary(summary, records), indent=2)
    files["config.yaml"] = "\n".join(
        ["# agentic-bench: this run's configuration in mlcommons/endpoints' schema", "",
         *to_yaml(build_config(summary))]) + "\n"
    written = []
    for rel, text in files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
