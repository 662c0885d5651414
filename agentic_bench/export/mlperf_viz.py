"""A run, or every point of a sweep or search, as the MLPerf Endpoints v1.0 results tree that
``mlperf-viz`` reads: ``OUT/results/<System>/<Model>/r<N>/`` per point.

Format: PyPI ``mlperf-viz`` 2.0.0 (package ``mlperf_endpoints_visualizer``): ``discover.py``
(``discover_v10``: every ``results/<system>/<model>/`` holding ``r<N>`` folders, N the
concurrency), ``bundle.py`` (``_build_curve_v10``: reads ``result_summary.json`` — required —,
``system_desc.json``, ``point.yaml``, optional ``config.yaml`` and ``accuracy_results.json``)
and ``adapt.py`` (``result_summary_to_flat``: ``duration_ns``, ``n_samples_issued|completed|
failed``, ``output_sequence_lengths.total``, the ``ttft`` / ``tpot`` blocks' ``percentiles``
("50.0", "90.0", ...) and ``total`` in ns, ``state``, ``version``, ``qps``, ``tps``;
``accuracy_from_results``: ``accuracy_scores[].score``; ``point.yaml``'s ``concurrency``,
``run_date``, ``model_name``, ``dataset_name``, ``output_token_average``). The stat blocks follow
mlcommons/endpoints' ``result_summary.json`` (``metrics/report.py``; total, min, max, median,
avg, std_dev, percentiles with ``method="lower"``), as our agentic-edge task writes it
(``tasks/agentic_edge/mlperf_artifacts.py``).

A run that wrote endpoints' own artifacts (``performance/result_summary.json``,
``accuracy/accuracy_results.json``: agentic-edge) is copied as written; any other run's are
built from its records. ``r<N>``: 1 for single-stream, the concurrency of a closed loop; a paced
or offline run has none, so its point is keyed by the peak of sessions in flight (said in
``point.yaml``); two points with the same N are refused. System = the endpoint's host (or
``embedded``), Model = the served model's name.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from agentic_bench.errors import UsageError
from agentic_bench.export.run_folder import RunFolder, open_target, requests

PERCENTILES = (99.9, 99.0, 97.0, 95.0, 90.0, 80.0, 75.0, 50.0, 25.0, 10.0, 5.0, 1.0)
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    return _SLUG.sub("-", text).strip("-") or "unknown"


def series(data: list[float]) -> dict[str, Any]:
    """An endpoints stat block of ``data``: total, min, max, median, avg, sample std_dev and the
    percentile grid taken as the ``lower`` rank ({} when empty)."""
    vals = sorted(data)
    n = len(vals)
    if not n:
        return {}
    total = math.fsum(vals)
    mean = total / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / (n - 1)) if n > 1 else 0.0
    grid = {str(p): vals[math.floor(p / 100 * (n - 1))] for p in PERCENTILES}
    return {"total": total, "min": vals[0], "max": vals[-1], "median": grid["50.0"],
            "avg": mean, "std_dev": std, "percentiles": grid}


def result_summary(run: RunFolder) -> dict[str, Any]:
    """``result_summary.json`` built from the run's measured LLM requests (ns)."""
    s = run.summary
    steps = [q for q in requests(run.records()) if not q.warmup]
    good = [q for q in steps if q.ok]
    starts = [q.scheduled_ns if q.scheduled_ns is not None else q.sent_ns for q in steps
              if q.sent_ns is not None]
    ends = [q.end_ns for q in steps if q.end_ns is not None]
    duration = (max(ends) - min(starts)) if starts and ends and max(ends) > min(starts) else None
    if duration is None and s.duration_s:
        duration = round(float(s.duration_s) * 1e9)
    osl = series([float(q.output_tokens) for q in good if q.output_tokens])
    failed = sum(1 for q in steps if not q.ok)
    reasons = [str(q.finish_reason) for q in good]
    seconds = duration / 1e9 if duration else None
    return {
        "version": str(s.versions.get("agentic-bench", "unknown")),
        "git_sha": None,
        "n_samples_issued": len(steps),
        "n_samples_completed": len(steps),
        "n_samples_failed": failed,
        "duration_ns": duration,
        "state": "complete" if s.complete else "interrupted",
        "complete": bool(s.complete),
        "ttft": series([q.ttft_ms * 1e6 for q in good if q.ttft_ms is not None]),
        "tpot": series([q.tpot_ms * 1e6 for q in good if q.tpot_ms is not None]),
        "latency": series([q.request_ms * 1e6 for q in steps if q.request_ms is not None]),
        "output_sequence_lengths": osl,
        "input_sequence_lengths": series([float(q.input_tokens) for q in steps
                                          if q.input_tokens is not None]),
        "qps": len(good) / seconds if seconds else None,
        "tps": osl.get("total", 0) / seconds if seconds and osl else None,
        "finish_reason_counts": {k: reasons.count(k) for k in sorted(set(reasons))},
        "run_config": {"type": "agentic-bench " + run.scenario,
                       "load_pattern": {"type": run.scenario,
                                        "target_concurrency": run.concurrency(),
                                        "target_qps": run.load.get("rate")},
                       "scheduler_random_seed": run.load.get("seed")},
    }


def accuracy_results(run: RunFolder) -> dict[str, Any] | None:
    """``accuracy_results.json`` from the summary's headline accuracy (None without one)."""
    headline = (run.summary.accuracy or {}).get("headline")
    if not isinstance(headline, int | float):
        return None
    return {"average_accuracy": headline, "accuracy_scores": [{
        "dataset_name": str(run.summary.benchmark or "run"), "score": headline,
        "dataset_type": "accuracy", "extractor": None, "complete": run.summary.complete}]}


def _system(run: RunFolder) -> str:
    endpoint = run.summary.endpoint
    if endpoint.kind not in (None, "url"):
        return slug(str(endpoint.kind))
    host = urlsplit(str(endpoint.url or "")).netloc.rsplit("@", 1)[-1]
    return slug(host or "endpoint")


def _point_key(run: RunFolder) -> tuple[int, str]:
    fixed = run.concurrency()
    if fixed is not None:
        return fixed, ("single-stream: one session at a time" if run.scenario == "single-stream"
                       else f"--concurrency {fixed} ({run.scenario})")
    load = run.summary.load
    peak = (load.sessions_in_flight.max if load is not None and load.sessions_in_flight
            else None)
    if not isinstance(peak, int | float) or peak < 1:
        raise UsageError(f"{run.path}: a {run.scenario} run has no concurrency and its summary "
                         "no peak of sessions in flight (load.sessions_in_flight.max) to key "
                         "its r<N> point by")
    return int(peak), (f"peak sessions in flight: a {run.scenario} run "
                       f"(rate {run.load.get('rate')}) has no fixed concurrency")


def _point_yaml(run: RunFolder, n: int, source: str, result: dict[str, Any]) -> dict[str, Any]:
    """``point.yaml`` of a run, from its summary and its ``result_summary.json`` (``result``)."""
    s = run.summary
    osl, isl = result.get("output_sequence_lengths") or {}, result.get("input_sequence_lengths")
    completed = result.get("n_samples_completed") or 0
    trace = s.workload.get("trace")
    return {"concurrency": n, "concurrency_source": source,
            "run_date": str(s.started_at or ""), "model_name": run.model,
            "dataset_name": str(trace or s.benchmark or ""),
            "division": "open", "scenario": run.scenario, "rate": run.load.get("rate"),
            "input_token_average": (isl or {}).get("avg"),
            "output_token_average": osl.get("total", 0) / completed if completed and osl
            else None,
            "result": s.given("result"), "source_run": run.label}


def export_mlperf_viz(run_dir: Path, out: Path) -> list[Path]:
    """``out`` is the submission root: ``out/results/<System>/<Model>/r<N>/`` per point."""
    target = open_target(run_dir)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: not a folder (mlperf-viz reads a results tree)")
    keyed: dict[tuple[str, str, int], tuple[RunFolder, str]] = {}
    for run in target.points:
        n, source = _point_key(run)
        key = (_system(run), slug(run.model), n)
        if key in keyed:
            raise UsageError(f"{run.path} and {keyed[key][0].path}: both would be point r{n} of "
                             f"{key[0]}/{key[1]} (mlperf-viz keys a point by its concurrency)")
        keyed[key] = (run, source)
    written: list[Path] = []
    for (system, model, n), (run, source) in keyed.items():
        folder = out / "results" / system / model / f"r{n}"
        folder.mkdir(parents=True, exist_ok=True)
        own = run.path / "performance" / "result_summary.json"
        if own.is_file():
            shutil.copyfile(own, folder / "result_summary.json")
            result = json.loads(own.read_text(encoding="utf-8"))
        else:
            result = result_summary(run)
            (folder / "result_summary.json").write_text(json.dumps(result, indent=2) + "\n",
                                                        encoding="utf-8")
        written.append(folder / "result_summary.json")
        own_acc = run.path / "accuracy" / "accuracy_results.json"
        accuracy = accuracy_results(run)
        if own_acc.is_file():
            shutil.copyfile(own_acc, folder / "accuracy_results.json")
            written.append(folder / "accuracy_results.json")
        elif accuracy is not None:
            (folder / "accuracy_results.json").write_text(json.dumps(accuracy, indent=2) + "\n",
                                                          encoding="utf-8")
            written.append(folder / "accuracy_results.json")
        files = {
            "point.yaml": yaml.safe_dump(_point_yaml(run, n, source, result), sort_keys=False),
            "system_desc.json": json.dumps({
                "system_name": system, "submitter_org_names": None,
                "endpoint_url": run.summary.endpoint.url,
                "model_name": run.model, "division": "open",
                "config_summary": f"agentic-bench {run.summary.given('benchmark', 'run')}, "
                f"{run.scenario}"}, indent=2) + "\n"}
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
            written.append(folder / name)
    return written


__all__ = ["accuracy_results", "export_mlperf_viz", "result_summary", "series"]
