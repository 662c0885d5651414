"""Read LoadGen's own files back: the verdict, early stopping, latencies, the accuracy log.

``mlperf_log_detail.txt`` is machine-readable (one ``:::MLLOG {json}`` per line) and is the
source of every number; ``mlperf_log_summary.txt`` gives the human verdict lines and the early
stopping text exactly as LoadGen printed them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, TypedDict

from agentic_bench.units import NS_PER_MS

SUMMARY_FILE = "mlperf_log_summary.txt"
DETAIL_FILE = "mlperf_log_detail.txt"
ACCURACY_FILE = "mlperf_log_accuracy.json"
LOG_FILES = (SUMMARY_FILE, DETAIL_FILE, ACCURACY_FILE)
_PCT = re.compile(r"^result_(first_token_)?(\d+\.\d+)_percentile_latency_ns$")
_TPOT_PCT = re.compile(r"^result_time_per_output_token_(\d+\.\d+)_percentile_ns$")
_SATISFIED = re.compile(r"^\s*(.+?) satisfied\s*:\s*(\S+)")
_STAT = re.compile(r"^([A-Za-z][^:]*?)\s*:\s*(.+)$")


def parse_detail(path: Path) -> dict[str, Any]:
    """Every ``:::MLLOG`` key → value (the last one wins), plus ``errors`` and ``warnings``."""
    values: dict[str, Any] = {}
    errors: list[str] = []
    warnings: list[str] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.startswith(":::MLLOG "):
            continue
        try:
            entry = json.loads(line[len(":::MLLOG "):])
        except json.JSONDecodeError:
            continue
        key = entry.get("key")
        if not key or key == "loadgen_file_sha1":
            continue
        meta = entry.get("metadata") or {}
        if meta.get("is_error"):
            errors.append(f"{key}: {entry.get('value')}")
        elif meta.get("is_warning"):
            warnings.append(f"{key}: {entry.get('value')}")
        values[key] = entry.get("value")
    values["errors"] = errors
    values["warnings"] = warnings
    return values


class PrintedSummary(TypedDict):
    """``mlperf_log_summary.txt`` as LoadGen printed it (not our ``summary.json``): the verdict,
    each "... satisfied" line, each early stopping block's lines, the ``key : value`` stats."""

    result: str | None
    satisfied: dict[str, bool]
    early_stopping: dict[str, list[str]]
    stats: dict[str, Any]


def parse_summary(text: str) -> PrintedSummary:
    """Verdict, the "... satisfied" lines, early stopping blocks and ``key : value`` stats."""
    out = PrintedSummary(result=None, satisfied={}, early_stopping={}, stats={})
    block: list[str] | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("Result is"):
            out["result"] = line.split(":", 1)[1].strip()
            block = None
        elif (m := _SATISFIED.match(line)) is not None:
            out["satisfied"][_slug(m.group(1))] = m.group(2).lower() == "yes"
        elif line.endswith("Early Stopping Result:"):
            name = line[: -len("Early Stopping Result:")].strip().lower() or "latency"
            block = out["early_stopping"].setdefault(name, [])
        elif block is not None and line.startswith(" "):
            block.append(line.strip())
        elif not line or line.startswith("="):
            block = None
        elif (m := _STAT.match(line)) is not None:
            out["stats"][m.group(1).strip()] = _number(m.group(2).strip())
    return out


def parse_accuracy_log(path: Path) -> list[dict[str, Any]]:
    """Entries of ``mlperf_log_accuracy.json`` with ``data`` decoded from hex to bytes."""
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8").strip()
    if not text:
        return []
    entries: list[dict[str, Any]] = json.loads(text)
    for e in entries:
        e["data"] = bytes.fromhex(e.get("data") or "")
    return entries


def loadgen_result(out: Path) -> dict[str, Any]:
    """The LoadGen block of summary.json, from the files LoadGen wrote into ``out``."""
    detail = parse_detail(out / DETAIL_FILE) if (out / DETAIL_FILE).is_file() else {}
    text = (out / SUMMARY_FILE).read_text(errors="replace") if (out / SUMMARY_FILE).is_file() \
        else ""
    printed = parse_summary(text)
    result: dict[str, Any] = {
        "result": printed["result"] or detail.get("result_validity"),
        "scenario": detail.get("effective_scenario"),
        "mode": detail.get("effective_test_mode"),
        "constraints": _constraints(detail, printed),
        "invalid_reason": detail.get("result_invalid_reason") or None,
        "early_stopping": {k: " ".join(v) for k, v in printed["early_stopping"].items() if v},
        "query_count": detail.get("result_query_count"),
        "latency_ms": _latency(detail, ""),
        "first_token_ms": _latency(detail, "first_token_"),
        "tpot_ms": _tpot(detail),
        "samples_per_s": _first(detail, "result_completed_samples_per_sec",
                                "result_samples_per_second", "result_qps_with_loadgen_overhead"),
        "tokens_per_s": _first(detail, "result_completed_tokens_per_second",
                               "result_tokens_per_second"),
        "errors": detail.get("errors", []),
        "warnings": detail.get("warnings", []),
        "files": [name for name in LOG_FILES if (out / name).is_file()],
        "version": detail.get("loadgen_version"),
    }
    if "result_mean_query_latency_ns" in detail:  # MultiStream: per query of N samples
        result["query_latency_ms"] = {
            k: _ms(detail.get(f"result_{k}_query_latency_ns")) for k in ("mean", "min", "max")}
    return result


def _constraints(detail: dict[str, Any], printed: PrintedSummary) -> dict[str, bool | None]:
    found = {
        "performance": detail.get("result_perf_constraints_met"),
        "min_duration": detail.get("result_min_duration_met"),
        "min_queries": detail.get("result_min_queries_met"),
        "early_stopping": detail.get("early_stopping_met"),
    }
    names = {"performance_constraints": "performance", "early_stopping": "early_stopping",
             "min_duration": "min_duration", "min_queries": "min_queries"}
    for slug, ok in printed["satisfied"].items():
        key = names.get(slug)
        if key is not None and found.get(key) is None:
            found[key] = ok
    return {k: v for k, v in found.items() if v is not None}


def _latency(detail: dict[str, Any], prefix: str) -> dict[str, float | None] | None:
    mean = detail.get(f"result_{prefix}mean_latency_ns")
    if mean is None:
        return None
    out: dict[str, float | None] = {
        "mean": _ms(mean), "min": _ms(detail.get(f"result_{prefix}min_latency_ns")),
        "max": _ms(detail.get(f"result_{prefix}max_latency_ns"))}
    for key, value in detail.items():
        m = _PCT.match(key)
        if m is not None and (m.group(1) or "") == prefix:
            out[_pct_name(m.group(2))] = _ms(value)
    return out


def _tpot(detail: dict[str, Any]) -> dict[str, float | None] | None:
    mean = detail.get("result_time_to_output_token_mean")
    if mean is None:
        return None
    out: dict[str, float | None] = {
        "mean": _ms(mean), "min": _ms(detail.get("result_time_to_output_token_min")),
        "max": _ms(detail.get("result_time_to_output_token_max"))}
    for key, value in detail.items():
        if (m := _TPOT_PCT.match(key)) is not None:
            out[_pct_name(m.group(1))] = _ms(value)
    return out


def _pct_name(p: str) -> str:
    value = float(p)
    return f"p{int(value)}" if value.is_integer() else f"p{value:g}"


def _first(detail: dict[str, Any], *keys: str) -> Any:
    return next((detail[k] for k in keys if k in detail), None)


def _ms(ns: Any) -> float | None:
    return None if ns is None else float(ns) / NS_PER_MS


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text
