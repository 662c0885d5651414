"""Our options → LoadGen ``TestSettings`` (pure planning, then one small apply step).

Order of precedence, lowest first:

1. quick defaults (one pass over the sessions, no minimum duration, seeds from ``--seed``);
2. with ``--loadgen-conf FILE``: LoadGen's built-in mlperf.conf, then FILE (user.conf style,
   ``model.scenario.key = value``), exactly as ``TestSettings.FromConfig`` reads them — over
   LoadGen's own default for token latencies (off), so the files decide them as they do for an
   MLPerf harness that builds a fresh ``TestSettings`` and reads its user.conf (e.g.
   mlcommons/inference ``e2e-rag/reference_mlperf.py`` 203-208: ``e2e-rag-qna`` is not among
   the models ``loadgen/mlperf.conf`` 96-111 turns them on for, so E2E-RAG runs without);
3. flags the user gave explicitly (``--target-qps``, ``--sessions``, ``--duration``,
   ``--concurrency`` for multi-stream, ``--slo ttft_p99_ms/tpot_p99_ms``) and the mode.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.loadgen import LoadgenOptions
from agentic_bench.units import NS_PER_MS

# MLPerf reference LLM constraints (p99 TTFT / p99 TPOT, ms): llama2-70b Server and Interactive
DEFAULT_TOKEN_LIMITS_MS = {"server": (2000.0, 200.0), "interactive": (450.0, 40.0)}
MULTI_STREAM_SAMPLES = 8  # mlperf.conf's *.MultiStream.samples_per_query


@dataclass
class SettingsPlan:
    scenario: str  # LoadGen TestScenario name
    mode: str  # LoadGen TestMode name
    model: str  # key looked up in mlperf.conf / user.conf
    conf: Path | None
    defaults: dict[str, Any] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)

    def merged(self) -> dict[str, Any]:
        """The values that apply when no config file is read."""
        return {**self.defaults, **self.overrides}


def plan_settings(opts: LoadgenOptions, load: LoadSpec, slos: dict[str, float],
                  qsl_size: int, benchmark: str) -> SettingsPlan:
    opts.check()
    _check_load(load)
    scenario = opts.lg_scenario
    spq = (load.concurrency or MULTI_STREAM_SAMPLES) if scenario == "MultiStream" else 1
    one_pass = max(1, math.ceil(qsl_size / spq))
    qps = opts.target_qps or load.rate
    if scenario == "Server" and qps is None and opts.conf is None:
        raise ConfigError(f"--loadgen mlperf --scenario {opts.scenario} needs --target-qps "
                          "(queries per second LoadGen issues)")
    if scenario == "Offline" and load.duration_s and qps is None:
        raise ConfigError("--loadgen mlperf --scenario offline --duration needs --target-qps "
                          "(LoadGen issues target_qps × duration samples at once)")
    ttft_ms, tpot_ms = DEFAULT_TOKEN_LIMITS_MS.get(opts.scenario, DEFAULT_TOKEN_LIMITS_MS["server"])
    defaults: dict[str, Any] = {
        "min_duration_ms": 0,
        "min_query_count": 1 if load.duration_s and not load.sessions else one_pass,
        "max_query_count": 0,
        "use_token_latencies": opts.token_latencies and opts.conf is None,
        "server_target_qps": qps or 1.0,
        "offline_expected_qps": qps or 1.0,
        "multi_stream_samples_per_query": spq if scenario == "MultiStream"
        else MULTI_STREAM_SAMPLES,
        "ttft_latency": int(ttft_ms * NS_PER_MS),
        "tpot_latency": int(tpot_ms * NS_PER_MS),
        "qsl_rng_seed": load.seed,
        "sample_index_rng_seed": load.seed,
        "schedule_rng_seed": load.seed,
    }
    overrides: dict[str, Any] = {}
    if qps is not None:
        overrides["server_target_qps" if scenario == "Server" else "offline_expected_qps"] = qps
    if load.sessions:  # sessions → LoadGen queries (a MultiStream query is spq sessions)
        overrides["min_query_count"] = math.ceil(load.sessions / spq)
        overrides["max_query_count"] = math.ceil(load.sessions / spq)
    if load.duration_s:
        overrides["min_duration_ms"] = int(load.duration_s * 1000)
    if scenario == "MultiStream" and load.concurrency:
        overrides["multi_stream_samples_per_query"] = load.concurrency
    if "ttft_p99_ms" in slos:
        overrides["ttft_latency"] = int(slos["ttft_p99_ms"] * NS_PER_MS)
    if "tpot_p99_ms" in slos:
        overrides["tpot_latency"] = int(slos["tpot_p99_ms"] * NS_PER_MS)
    mode = "AccuracyOnly" if opts.mode == "accuracy" else "PerformanceOnly"
    return SettingsPlan(scenario, mode, opts.conf_model(benchmark), opts.conf, defaults,
                        overrides)


def _check_load(load: LoadSpec) -> None:
    for name in ("concurrency", "sessions"):
        value = getattr(load, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name} {value}: must be ≥ 1")
    if load.duration_s is not None and load.duration_s <= 0:
        raise ConfigError(f"--duration {load.duration_s}: must be > 0 seconds")
    if load.max_errors is not None:
        raise ConfigError("--max-errors is not available with --loadgen mlperf "
                          "(LoadGen decides when a run ends)")


def build_test_settings(lg: Any, plan: SettingsPlan) -> Any:
    """A ``mlperf_loadgen.TestSettings`` from the plan (``lg`` is the imported module)."""
    ts = lg.TestSettings()
    ts.scenario = getattr(lg.TestScenario, plan.scenario)
    for key, value in plan.defaults.items():
        setattr(ts, key, value)
    if plan.conf is not None:
        _read_conf(ts, plan)
    for key, value in plan.overrides.items():
        setattr(ts, key, value)
    ts.scenario = getattr(lg.TestScenario, plan.scenario)
    ts.mode = getattr(lg.TestMode, plan.mode)
    if ts.min_query_count < 1:  # LoadGen 6.0.17 crashes on Offline with 0 queries
        ts.min_query_count = 1
    return ts


def _read_conf(ts: Any, plan: SettingsPlan) -> None:
    # LoadGen reads its built-in mlperf.conf only on the first user.conf of a process; read it
    # explicitly so every run in one process gets the same settings.
    ts.FromConfig("", plan.model, plan.scenario, 0)
    rc = ts.FromConfig(str(plan.conf), plan.model, plan.scenario, 1)
    if rc != 0:
        raise ConfigError(f"--loadgen-conf {plan.conf}: LoadGen could not read it (code {rc}); "
                          "expected lines like `*.Server.target_qps = 10`")


def settings_snapshot(ts: Any) -> dict[str, Any]:
    """The TestSettings values that matter, for summary.json."""
    keys = ("min_duration_ms", "max_duration_ms", "min_query_count", "max_query_count",
            "server_target_qps", "offline_expected_qps", "multi_stream_samples_per_query",
            "use_token_latencies", "ttft_latency", "tpot_latency", "server_target_latency_ns",
            "performance_sample_count_override", "qsl_rng_seed", "sample_index_rng_seed",
            "schedule_rng_seed")
    out = {k: getattr(ts, k) for k in keys}
    out["scenario"] = ts.scenario.name
    out["mode"] = ts.mode.name
    return out
