"""``replay --agentx``: the InferenceX AgentX scenario — its defaults, its locked rules and the
departures a run makes from it.

The scenario is AIPerf 0.13's ``inferencex-agentx-mvp`` (``common/scenario/
inferencex_agentx_mvp.py``) as InferenceX runs it (SemiAnalysisAI/InferenceX
``benchmarks/benchmark_lib.sh`` ``build_replay_cmd``, lines 1958-2137). Defaults ``--agentx``
sets (an explicit option wins): lanes (``--scenario concurrency``), trajectory start
0.25:0.75 and 10 warm-up requests per lane (InferenceX's flags), an idle-gap cap of 10 s and a
measured phase of 1,800 s (the scenario's), seed 42 (both). Locked rules — breaking one makes
the run INVALID, as AIPerf's ``--unsafe-override`` does: recorded timing (no ``--think-time``
scaling: ``forbid_ignore_trace_delays``), replies held to their recorded length
(``require_ignore_eos``; no ``--max-tokens``), the first-user cache bust
(``require_cache_bust``), the 10 s idle cap, a measured phase of at least 900 s
(``min_benchmark_duration_seconds``). Departures are named and leave the verdict alone. The
declared ``--spec-decode-policy`` is recorded here and judged after the run against what the
server reported (:mod:`agentic_bench.metrics.speculation_rows`).
"""

from __future__ import annotations

from typing import Any

SCENARIO = "inferencex-agentx-mvp"
TRAJECTORY, WARMUP_PER_LANE = "0.25:0.75", 10  # InferenceX benchmark_lib.sh 2026-2033
IDLE_CAP_S, DEFAULT_DURATION_S, MIN_DURATION_S = 10.0, 1800.0, 900.0  # the AIPerf scenario
PUBLISHED_DURATION_S = 3600.0  # InferenceX's matrix default
SEED = 42
CORPUS = "semianalysisai/cc-traces-weka-062126"


def preset_defaults(options: Any) -> dict[str, Any]:
    """The option defaults ``--agentx`` sets (nothing without it)."""
    if not getattr(options, "agentx", False):
        return {}
    return {"scenario": "concurrency", "trajectory_start": TRAJECTORY,
            "warmup_requests_per_lane": WARMUP_PER_LANE, "idle_gap_cap": IDLE_CAP_S,
            "duration": DEFAULT_DURATION_S, "seed": SEED,
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
        departures.append(f"trajectory start {options.trajectory_start} (InferenceX: "
                          f"{TRAJECTORY}; the AIPerf scenario's default 0:1)")
    if options.warmup_requests_per_lane != WARMUP_PER_LANE:
        departures.append(f"{options.warmup_requests_per_lane} warm-up requests per lane "
                          f"(InferenceX: {WARMUP_PER_LANE})")
    if options.duration is not None and options.duration != PUBLISHED_DURATION_S:
        departures.append(f"a measured phase of {options.duration:g} s (InferenceX publishes "
                          f"{PUBLISHED_DURATION_S:g} s; the scenario's default is "
                          f"{DEFAULT_DURATION_S:g} s)")
    if "cc-traces-weka" not in str(options.trace):
        departures.append(f"corpus {options.trace} (InferenceX: {CORPUS} or its -256k variant; "
                          "AIPerf's scenario marks any other corpus invalid)")
    if options.tokenizer != "server":
        departures.append(f"prompts written with the tokenizer {options.tokenizer} (InferenceX: "
                          "the served model's)")
    if options.max_context is not None:
        departures.append(f"requests over {options.max_context} tokens dropped (--max-context)")
    if options.history == "live":
        departures.append("--history live: the model's replies are fed back (InferenceX "
                          "replays the recorded ones)")
    if options.seed != SEED:
        departures.append(f"seed {options.seed} (InferenceX: {SEED})")
    return {"scenario": SCENARIO, "violations": violations, "departures": departures,
            "duration_s": options.duration, "min_duration_s": MIN_DURATION_S,
            # checked against the server's reports after the run (metrics/speculation_rows.py)
            "spec_decode_policy": getattr(options, "spec_decode_policy", None)}


__all__ = ["CORPUS", "DEFAULT_DURATION_S", "IDLE_CAP_S", "MIN_DURATION_S", "SCENARIO",
           "TRAJECTORY", "WARMUP_PER_LANE", "preset_defaults", "scenario_rules"]
