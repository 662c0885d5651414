"""``replay --agentx``: the InferenceX AgentX scenario — its defaults, its locked rules and the
departures a run makes from it.

The scenario is AIPerf's ``agentx`` preset over its locked ``inferencex-agentx-mvp`` rules
(``common/scenario/inferencex_agentx_mvp.py``; the preset ``AGENTX`` is the copy of the locked
spec with InferenceX's defaults, documented for AIPerf v0.14.0 and shipped in agentx-harness
1.0.12, the newest on PyPI — InferenceX pins 1.0.14), as InferenceX runs it
(``benchmarks/benchmark_lib.sh`` ``build_replay_cmd`` at 843c6254, lines 1958-2137, the line
numbers below; the same flags in the newer ``inferencex-e2e/benchmarks/benchmark_lib.sh``;
``inferencex-e2e/docs/agentx-standalone.md``). docs/agentx.md "Rules against the current
references" has the table, each row with its file and line.

Defaults ``--agentx`` sets (an explicit option wins): lanes (``--scenario concurrency``),
trajectory start 0.25:0.75, 10 warm-up requests per lane, seed 42 and a measured phase of
3,600 s (the preset's, which InferenceX runs), an idle-gap cap of 10 s (the locked spec's), a
per-tree idle cap of 300 s and the live failed-request abort at 10 % (the preset's).
Locked rules — breaking one makes the run INVALID, as AIPerf's ``--unsafe-override`` does:
recorded timing (no ``--think-time`` scaling: ``forbid_ignore_trace_delays``), replies held to
their recorded length (``require_ignore_eos``; no ``--max-tokens``), the first-user cache bust
(``require_cache_bust``), the 10 s idle cap (``system_idle_gap_cap_seconds``), a measured phase
of at least 900 s (``min_benchmark_duration_seconds``). Departures are named and leave the
verdict alone (a per-tree idle cap or a failed-request threshold other than the preset's is
one). After the run the latency coverage row (``minimum_profile_metric_coverage_ratio``,
:func:`agentic_bench.metrics.trees.coverage_rows`) joins the verdict. The declared
``--spec-decode-policy`` is recorded here and judged after the run against what the server
reported (:mod:`agentic_bench.metrics.speculation_rows`).
"""

from __future__ import annotations

from typing import Any

# Where each value is pinned (agentx-harness 1.0.12 wheel, aiperf/common/scenario/
# inferencex_agentx_mvp.py: the locked spec at lines 7-40, the ``agentx`` preset at 43-70;
# InferenceX benchmark_lib.sh at 843c6254; AIPerf 0.13.0 wheel, same path, for what changed).
SCENARIO = "inferencex-agentx-mvp"  # the locked spec's name (line 8); the preset is "agentx"
PRESET = "agentx"  # agentx-harness 1.0.12 line 45; AIPerf v0.14.0 `--scenario agentx`
# trajectory start: preset lines 47-48; InferenceX benchmark_lib.sh 2026-2027
# warm-up requests per lane: preset line 55; InferenceX benchmark_lib.sh 1975, 2033
TRAJECTORY, WARMUP_PER_LANE = "0.25:0.75", 10
MVP_TRAJECTORY = "0:1"  # the locked spec's own default (lines 34-35), without the preset
IDLE_CAP_S = 10.0  # system_idle_gap_cap_seconds, the locked spec line 36 (0.13.0 line 36)
MIN_DURATION_S = 900.0  # min_benchmark_duration_seconds, the locked spec line 32
# the preset's profile (line 46; InferenceX agentx-standalone.md "one-hour profile",
# DURATION=3600); AIPerf 0.13.0 had no preset: its spec's 1,800 s was ours until #46
DEFAULT_DURATION_S = 3600.0
MVP_DEFAULT_DURATION_S = 1800.0  # default_benchmark_duration_seconds, the locked spec line 33
PUBLISHED_DURATION_S = 3600.0  # InferenceX's matrix default
SEED = 42  # preset line 53; InferenceX benchmark_lib.sh 2017
# per-tree (root + subagents) idle-gap cap: preset line 57; InferenceX benchmark_lib.sh 1797,
# 2038. AIPerf 0.13.0 forbade it (forbid_trace_idle_gap_cap, line 37); 1.0.12 dropped that
TRACE_IDLE_CAP_S = 300.0
# live abort: preset line 54; InferenceX benchmark_lib.sh 2022; the rule itself in
# records/records_manager.py 583-593 (floor max(concurrency, 10)) and 694-755
LIVE_FAILED_REQUEST_THRESHOLD = 0.10
# minimum_profile_metric_coverage_ratio, the locked spec line 39; computed in
# metrics/accumulator.py 360-404, judged in records/records_manager.py 1729-1840
PROFILE_METRIC_COVERAGE = 0.95
# the preset's other pinned values, named in docs/agentx.md, not rebuilt here:
WARMUP_GRACE_S = 1800.0  # preset line 56; InferenceX benchmark_lib.sh 2044
NUM_DATASET_ENTRIES = 393  # preset line 60; InferenceX benchmark_lib.sh 2102
# InferenceX resolve_trace_source: 062126 for 1M-context families, its -256k variant otherwise
CORPUS = "semianalysisai/cc-traces-weka-062126"


def preset_defaults(options: Any) -> dict[str, Any]:
    """The option defaults ``--agentx`` sets (nothing without it)."""
    if not getattr(options, "agentx", False):
        return {}
    return {"scenario": "concurrency", "trajectory_start": TRAJECTORY,
            "warmup_requests_per_lane": WARMUP_PER_LANE, "idle_gap_cap": IDLE_CAP_S,
            "duration": DEFAULT_DURATION_S, "seed": SEED,
            "trace_idle_gap_cap": TRACE_IDLE_CAP_S,
            "failed_request_threshold": LIVE_FAILED_REQUEST_THRESHOLD,
            "stop_after_failures": 0}  # AgentX judges errors by its own rules


def scenario_rules(options: Any) -> dict[str, Any]:
    """The locked rules a run breaks (``violations``: each makes it INVALID) and the
    departures it makes (``departures``: named, not judged)."""
    violations: list[str] = []
    if str(options.think_time) != "recorded":
        violations.append(f"--think-time {options.think_time}: the scenario replays recorded "
                          "timing (forbid_ignore_trace_delays)")
    if options.honor_eos:
        violations.append("--honor-eos: the scenario holds replies to their recorded length "
                          "(require_ignore_eos)")
    if options.max_tokens is not None:
        violations.append(f"--max-tokens {options.max_tokens}: replies are the recorded "
                          "length")
    if options.cache_bust == "none":
        violations.append("--cache-bust none: the scenario requires first-user "
                          "(require_cache_bust)")
    if options.idle_gap_cap != IDLE_CAP_S:
        violations.append(f"--idle-gap-cap {options.idle_gap_cap}: the scenario locks "
                          f"{IDLE_CAP_S:g} s (system_idle_gap_cap_seconds)")
    if options.duration is None or options.duration < MIN_DURATION_S:
        violations.append(f"--duration {options.duration}: a measured phase of at least "
                          f"{MIN_DURATION_S:g} s (min_benchmark_duration_seconds)")
    departures: list[str] = []
    if options.trajectory_start != TRAJECTORY:
        departures.append(f"trajectory start {options.trajectory_start} (InferenceX and the "
                          f"{PRESET} preset: {TRAJECTORY}; the locked spec's own default "
                          f"{MVP_TRAJECTORY})")
    if options.warmup_requests_per_lane != WARMUP_PER_LANE:
        departures.append(f"{options.warmup_requests_per_lane} warm-up requests per lane "
                          f"(InferenceX and the {PRESET} preset: {WARMUP_PER_LANE})")
    if options.duration is not None and options.duration != PUBLISHED_DURATION_S:
        departures.append(f"a measured phase of {options.duration:g} s (InferenceX publishes "
                          f"{PUBLISHED_DURATION_S:g} s, the {PRESET} preset's default; the "
                          f"locked spec's own default is {MVP_DEFAULT_DURATION_S:g} s)")
    if "cc-traces-weka" not in str(options.trace):
        departures.append(f"corpus {options.trace} (InferenceX: {CORPUS} or its -256k variant; "
                          "AIPerf's locked spec also admits a local Weka trace, weka_trace)")
    if options.tokenizer != "server":
        departures.append(f"prompts written with the tokenizer {options.tokenizer} (InferenceX: "
                          "the served model's)")
    if options.max_context is not None:
        departures.append(f"requests over {options.max_context} tokens dropped (--max-context)")
    if options.history == "live":
        departures.append("--history live: the model's replies are fed back (InferenceX "
                          "replays the recorded ones)")
    if options.seed != SEED:
        departures.append(f"seed {options.seed} (InferenceX and the {PRESET} preset: {SEED})")
    tree_cap = getattr(options, "trace_idle_gap_cap", None)
    if tree_cap != TRACE_IDLE_CAP_S:  # the preset's default, not locked: named, not judged
        what = "no per-tree idle-gap cap" if tree_cap is None else \
            f"a per-tree idle-gap cap of {tree_cap:g} s"
        departures.append(f"{what} (InferenceX and the {PRESET} preset: {TRACE_IDLE_CAP_S:g} "
                          "s, trace_idle_gap_cap_seconds)")
    threshold = getattr(options, "failed_request_threshold", None)
    if threshold != LIVE_FAILED_REQUEST_THRESHOLD:
        what = "no live failed-request abort" if threshold is None else \
            f"a live failed-request abort above {threshold:g}"
        departures.append(f"{what} (InferenceX and the {PRESET} preset: "
                          f"{LIVE_FAILED_REQUEST_THRESHOLD:g}, failed_request_threshold)")
    return {"scenario": SCENARIO, "violations": violations, "departures": departures,
            "duration_s": options.duration, "min_duration_s": MIN_DURATION_S,
            "failed_request_threshold": threshold,
            "min_latency_coverage": PROFILE_METRIC_COVERAGE,
            # checked against the server's reports after the run (metrics/speculation_rows.py)
            "spec_decode_policy": getattr(options, "spec_decode_policy", None)}


__all__ = ["CORPUS", "DEFAULT_DURATION_S", "IDLE_CAP_S", "LIVE_FAILED_REQUEST_THRESHOLD",
           "MIN_DURATION_S", "MVP_DEFAULT_DURATION_S", "MVP_TRAJECTORY", "NUM_DATASET_ENTRIES",
           "PRESET", "PROFILE_METRIC_COVERAGE", "PUBLISHED_DURATION_S", "SCENARIO", "SEED",
           "TRACE_IDLE_CAP_S", "TRAJECTORY", "WARMUP_GRACE_S", "WARMUP_PER_LANE",
           "preset_defaults", "scenario_rules"]
