"""A run (or each point of a sweep) as an llm-d Benchmark Report v0.2.1.

Format: PyPI ``llmd-benchmark-report`` 0.2.1, ``llmd_benchmark_report/schema_v0_2.py`` (the
pydantic models of the whole 0.2 line, ``VERSION = "0.2.1"``; ``extra="forbid"`` everywhere
but ``Observability`` and the ``generic`` stack component), ``br_v0_2_json_schema.json`` and
``br_v0_2_example.yaml``; ``core.import_benchmark_report(path)`` reads and validates a file
(JSON or YAML). What goes where:

* ``run``: ``uid`` (a UUID5 of the run's start and command line), ``eid`` (shared by the points
  of one sweep), ``time`` (start, end, ISO-8601 duration), ``description``, ``keywords``.
* ``scenario.stack``: one ``generic`` component, the endpoint (model, redacted URL, kind) — the
  serving engine, its hardware and parallelism are not known to the client.
* ``scenario.load``: ``tool`` agentic-bench, ``source`` (``sampled`` for a text trace,
  ``random`` for prompts synthesised to recorded token counts), input/output lengths
  (distribution ``other``: mean, min, max, std), ``multi_turn`` (requests per session),
  ``rate_qps`` (server) or ``concurrency`` (single-stream 1, closed loop; unset for an
  offline or trace-timed load), the options as ``native.args``.
* ``results.request_performance.aggregate``: requests (total, failures, input and output
  lengths), latency (TTFT, TPOT, ITL — per chunk gap, NTPOT = request latency / output tokens,
  request latency; ms), throughput (input, output, total tokens/s; requests/s).
* ``results.session_performance.sessions``: counts, ``session_rate``, ``session_duration``,
  requests (events), cancelled requests and input/output tokens per session.
* ``results.observability``: ``cache_hit_rate`` of the endpoint when the server reported
  cached tokens, and — the schema's extra-permitted area, where llm-d's own converters put
  result metrics the schema has no slot for (``native_to_br0_2.py`` ``import_eval_containers``)
  — ``agentic_bench``: per-turn latency, per-tree figures (AgentX ``trees``), goodput,
  interactivity, prefix-cache figures, stage times, fan-out, the verdict and its constraints,
  accuracy, energy and the sweep point.
"""

from __future__ import annotations

import datetime
import json
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from agentic_bench.errors import UsageError
from agentic_bench.export.run_folder import RunFolder, Target, open_target, request_of
from agentic_bench.metrics.percentiles import percentile
from agentic_bench.metrics.summary_model import Stats

VERSION = "0.2.1"
# summary.json latency block → Statistics keys
_STAT_KEYS = ("mean", "min", "p50", "p90", "p95", "p99", "max")
# summary.json blocks kept whole in the extension (observability.agentic_bench)
_EXTENSION_BLOCKS = ("result", "constraints", "complete", "stop_reason", "goodput",
                     "interactivity", "prefix_cache", "stages_ms", "fanout", "trees", "agentx",
                     "warmup", "accuracy", "tool_calls", "energy", "roles", "slos")


def _from_summary(block: Stats | None, units: str, scale: float = 1.0
                  ) -> dict[str, Any] | None:
    """A summary.json statistics block as a Statistics object (None when it has no mean)."""
    if block is None or block.given("mean") is None:
        return None
    out: dict[str, Any] = {"units": units}
    for key in _STAT_KEYS:
        value = block.given(key)
        if isinstance(value, int | float):
            out[key] = value * scale
    return out


def _from_values(data: list[float], units: str) -> dict[str, Any] | None:
    """Statistics of raw values (mean, stddev, min, percentiles, max)."""
    if not data:
        return None
    s = sorted(data)
    mean = sum(s) / len(s)
    out: dict[str, Any] = {"units": units, "mean": mean,
                           "stddev": (sum((v - mean) ** 2 for v in s) / len(s)) ** 0.5,
                           "min": s[0], "max": s[-1]}
    for p in (10, 25, 50, 75, 90, 95, 99):
        out[f"p{p}"] = percentile(s, p)
    return out


def _rate(value: Any, units: str) -> dict[str, Any] | None:
    return {"units": units, "mean": float(value)} if isinstance(value, int | float) else None


def _length(data: list[float]) -> dict[str, Any]:
    """A SequenceLength of observed values (distribution ``other``)."""
    if not data:
        return {"distribution": "other", "value": 0}
    mean = sum(data) / len(data)
    return {"distribution": "other", "value": mean,
            "std_dev": (sum((v - mean) ** 2 for v in data) / len(data)) ** 0.5,
            "min": int(min(data)), "max": max(1, int(max(data)))}


def _clean(value: Any) -> Any:
    """Nones dropped from mappings (the schema's optional fields are absent, not null)."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


class _Scan:
    """What the report needs from the records, in one pass."""

    def __init__(self, run: RunFolder) -> None:
        self.inputs: list[float] = []
        self.outputs: list[float] = []
        self.ntpot: list[float] = []
        self.cancelled = 0
        self.synthesized = False
        self.sessions: dict[str, dict[str, float]] = defaultdict(
            lambda: {"in": 0.0, "out": 0.0, "cancelled": 0.0})
        self.events: list[float] = []
        for r in run.records():
            if r.get("type") == "session":
                self.events.append(float(r.get("requests") or 0))
                continue
            q = request_of(r)
            if q is None or q.warmup:
                continue
            session = self.sessions[q.session_id]
            if q.status == "cancelled":
                self.cancelled += 1
                session["cancelled"] += 1
            self.synthesized = self.synthesized or q.synthesized
            if not q.ok:
                continue
            if q.input_tokens is not None:
                self.inputs.append(float(q.input_tokens))
                session["in"] += q.input_tokens
            if q.output_tokens is not None:
                self.outputs.append(float(q.output_tokens))
                session["out"] += q.output_tokens
                if q.output_tokens > 0 and q.request_ms is not None:
                    self.ntpot.append(q.request_ms / q.output_tokens)


def build_report(run: RunFolder, *, experiment: str | None = None,
                 point: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Benchmark Report of one run as a plain dict (validate it with the package's
    ``load_benchmark_report``)."""
    s = run.summary
    scan = _Scan(run)
    counts, latency, throughput = s.counts, s.latency_ms, s.throughput
    duration = float(s.duration_s or 0.0)
    started = s.started_at
    start = datetime.datetime.fromisoformat(started) if isinstance(started, str) else None
    command = str(s.command_line or "")
    versions = s.versions
    endpoint = s.endpoint
    load = run.load
    concurrency = run.concurrency()
    keywords = ["agentic-bench", str(s.benchmark or "run"), run.scenario]
    if run.agentx:
        keywords.append("agentx")
    input_rate = sum(scan.inputs) / duration if duration else None
    output_rate = throughput.given("output_tokens_per_s")
    blocks = s.to_dict()  # the blocks the extension keeps whole, as summary.json has them
    extension = {k: blocks[k] for k in _EXTENSION_BLOCKS if blocks.get(k) is not None}
    extension.update(turn_latency_ms=s.latency_block("turn"),
                     session_latency_ms=s.latency_block("session"), counts=counts.to_dict(),
                     workload=s.given("workload"), folder=run.label, point=point)
    prefix = s.prefix_cache or {}
    components = None
    if isinstance(prefix.get("hit_rate"), int | float):
        components = [{"component_label": "endpoint", "aggregate": {
            "cache_hit_rate": {"units": "fraction", "mean": prefix["hit_rate"]}}}]
    report = {
        "version": VERSION,
        "run": {
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"agentic-bench:{started}:{command}:"
                                  f"{run.label}")),
            "eid": experiment,
            "time": {"start": start.isoformat() if start else None,
                     "end": (start + datetime.timedelta(seconds=duration)).isoformat()
                     if start else None,
                     "duration": f"PT{duration:.6f}S"},
            "description": f"agentic-bench {s.given('benchmark', 'run')}: {command}".strip(),
            "keywords": keywords,
        },
        "scenario": {
            "stack": [{
                "metadata": {"label": "endpoint", "cfg_id": run.config_id(),
                             "description": "the OpenAI-compatible endpoint under test"},
                "standardized": {"kind": "generic", "tool": str(endpoint.kind or "url"),
                                 "tool_version": "unknown", "model": run.model,
                                 "url": endpoint.url},
                "native": {"args": {}, "config": endpoint.to_dict() or None},
            }],
            "load": {
                "metadata": {"cfg_id": run.config_id(),
                             "description": f"{s.given('benchmark', 'run')} "
                             f"{s.workload.get('trace') or ''}".strip()},
                "standardized": {
                    "tool": "agentic-bench",
                    "tool_version": str(versions.get("agentic-bench") or "unknown"),
                    "parallelism": max(1, int(run.options.get("workers") or 1)),
                    "source": "random" if scan.synthesized else "sampled",
                    "input_seq_len": _length(scan.inputs),
                    "output_seq_len": _length(scan.outputs) if scan.outputs else None,
                    "multi_turn": {"enabled": True,
                                   "max_turns": _length(scan.events) if scan.events else None},
                    "rate_qps": load.get("rate") if run.scenario == "server" else None,
                    "concurrency": concurrency,
                },
                "native": {"args": run.options or None, "config": s.given("config")},
            },
        },
        "results": {
            "request_performance": {"aggregate": {
                "requests": {
                    "total": counts.requests,
                    "failures": counts.errors,
                    "incomplete": scan.cancelled or None,
                    "input_length": _from_values(scan.inputs, "count"),
                    "output_length": _from_values(scan.outputs, "count"),
                },
                "latency": {
                    "time_to_first_token": _from_summary(latency.get("ttft"), "ms"),
                    "normalized_time_per_output_token": _from_values(scan.ntpot, "ms/token"),
                    "time_per_output_token": _from_summary(latency.get("tpot"), "ms/token"),
                    "inter_token_latency": _from_summary(latency.get("itl"), "ms/token"),
                    "request_latency": _from_summary(latency.get("request"), "ms"),
                },
                "throughput": {
                    "input_token_rate": _rate(input_rate, "tokens/s"),
                    "output_token_rate": _rate(output_rate, "tokens/s"),
                    "total_token_rate": _rate((input_rate or 0) + output_rate, "tokens/s")
                    if input_rate is not None and isinstance(output_rate, int | float) else None,
                    "request_rate": _rate(throughput.given("requests_per_s"), "queries/s"),
                },
            }},
            "session_performance": {"sessions": {
                "total": counts.sessions,
                "succeeded": counts.sessions_ok,
                "failed": counts.sessions - counts.sessions_ok,
                "total_events": counts.requests,
                "total_events_completed": counts.requests_ok,
                "total_events_cancelled": scan.cancelled,
                "session_rate": _rate(throughput.given("sessions_per_s"), "queries/s"),
                "session_duration": _from_summary(latency.get("session"), "s", 1e-3),
                "events_per_session": _from_values(scan.events, "count"),
                "events_cancelled_per_session": _from_values(
                    [v["cancelled"] for v in scan.sessions.values()], "count"),
                "input_tokens_per_session": _from_values(
                    [v["in"] for v in scan.sessions.values()], "count"),
                "output_tokens_per_session": _from_values(
                    [v["out"] for v in scan.sessions.values()], "count"),
            }},
            "observability": {"components": components, "agentic_bench": extension},
        },
    }
    cleaned: dict[str, Any] = _clean(report)
    # the extension keeps its nulls (a figure the run could not compute is null there)
    cleaned["results"]["observability"]["agentic_bench"] = extension
    return cleaned


def _dump(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix in (".yaml", ".yml"):
        text = yaml.safe_dump(report, sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(report, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")


def export_llmd_report(run_dir: Path, out: Path) -> list[Path]:
    """One report: ``out`` is the file (``.yaml``/``.yml``: YAML, else JSON). A sweep or
    search folder: ``out`` is a folder with one report per point (``<point>.json``)."""
    target: Target = open_target(run_dir)
    if target.kind == "run":
        if out.is_dir():
            raise UsageError(f"{out}: a folder; give the report's file name "
                             "(.json, or .yaml for YAML)")
        _dump(build_report(target.points[0]), out)
        return [out]
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: a {target.kind} exports one report per point: give a folder")
    experiment = str(uuid.uuid5(uuid.NAMESPACE_URL, f"agentic-bench:{target.path.resolve()}"))
    reports = [(p, build_report(p, experiment=experiment,
                                point={"key": target.key, "folder": p.label}))
               for p in target.points]
    written = []
    for point, report in reports:
        path = out / f"{point.label}.json"
        _dump(report, path)
        written.append(path)
    return written


__all__ = ["VERSION", "build_report", "export_llmd_report"]
