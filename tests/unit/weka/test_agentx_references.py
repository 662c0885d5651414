"""#46 item 6: each AgentX rule of ours against a transcription of the current references.

References (values transcribed, never code; docs/agentx.md "Rules against the current
references" has the table):

- agentx-harness 1.0.12 (PyPI wheel; InferenceX pins 1.0.14, not on PyPI here),
  ``aiperf/common/scenario/inferencex_agentx_mvp.py``: the locked ``inferencex-agentx-mvp``
  spec at lines 7-40 and the ``agentx`` preset (``--scenario agentx``, the scenario AIPerf
  v0.14.0's tutorial "InferenceX AgentX MVP Benchmark" documents) at lines 43-70;
- AIPerf 0.13.0 (PyPI wheel), the same file, for what changed;
- SemiAnalysisAI/InferenceX ``benchmarks/benchmark_lib.sh`` at 843c6254 (``build_replay_cmd``)
  and ``inferencex-e2e/benchmarks/benchmark_lib.sh`` ``resolve_trace_source`` (stored copy).
"""

from __future__ import annotations

from agentic_bench.cli.replay_cmd import parse_replay_args
from agentic_bench.options import agentx
from agentic_bench.options.agentx import scenario_rules

# agentx-harness 1.0.12 aiperf/common/scenario/inferencex_agentx_mvp.py, transcribed
LOCKED_SPEC = {  # lines 7-40
    "name": "inferencex-agentx-mvp",  # line 8
    "min_benchmark_duration_seconds": 900,  # line 32
    "default_benchmark_duration_seconds": 1800,  # line 33
    "default_trajectory_start": (0.0, 1.0),  # lines 34-35
    "system_idle_gap_cap_seconds": 10.0,  # line 36
    "minimum_profile_metric_coverage_ratio": 0.95,  # line 39
    "accepts_weka_trace_loader": True,  # require_loader, line 29
}
AGENTX_PRESET = {  # lines 43-70
    "name": "agentx",  # line 45
    "default_benchmark_duration_seconds": 3600,  # line 46
    "default_trajectory_start": (0.25, 0.75),  # lines 47-48
    "random_seed": 42,  # line 53
    "failed_request_threshold": 0.10,  # line 54
    "warmup_requests_per_lane": 10,  # line 55
    "warmup_grace_period": 1800,  # line 56
    "trace_idle_gap_cap_seconds": 300,  # line 57
    "conversation_num_dataset_entries": 393,  # line 60
}
# AIPerf 0.13.0, the same file: forbid_trace_idle_gap_cap=True (line 37), no agentx preset
AIPERF_0_13_FORBIDS_TRACE_IDLE_CAP = True


def _ax(*extra: str) -> object:
    return parse_replay_args(["cc-traces-weka-062126/traces.jsonl", "--agentx",
                              "--concurrency", "8", *extra])


def test_measured_phase_defaults_to_the_agentx_preset_profile() -> None:
    """Changed: ``--agentx`` measures 3,600 s unless told — the ``agentx`` preset's default
    (agentx-harness 1.0.12 inferencex_agentx_mvp.py line 46; InferenceX
    inferencex-e2e/docs/agentx-standalone.md, "a one-hour profile"), not the locked spec's
    1,800 s (line 33), which was ours under AIPerf 0.13.0 (no preset there)."""
    assert agentx.DEFAULT_DURATION_S == AGENTX_PRESET["default_benchmark_duration_seconds"]
    assert agentx.MVP_DEFAULT_DURATION_S == LOCKED_SPEC["default_benchmark_duration_seconds"]
    assert _ax().duration == 3600.0
    rules = scenario_rules(_ax())
    assert not any("measured phase" in d for d in rules["departures"])
    short = scenario_rules(_ax("--duration", "1800"))
    assert short["violations"] == []  # over the 900-s floor: a departure, not a violation
    assert any("1800 s" in d and "agentx preset" in d for d in short["departures"])


def test_minimum_duration_is_still_900_s() -> None:
    """Unchanged: min_benchmark_duration_seconds 900 (agentx-harness 1.0.12
    inferencex_agentx_mvp.py line 32; AIPerf 0.13.0 line 32)."""
    assert agentx.MIN_DURATION_S == LOCKED_SPEC["min_benchmark_duration_seconds"]
    assert any("at least 900 s" in v
               for v in scenario_rules(_ax("--duration", "899"))["violations"])
    assert not scenario_rules(_ax("--duration", "900"))["violations"]


def test_trajectory_start_is_the_preset_range() -> None:
    """Changed reference, same value: t* in 0.25-0.75 of the tree's span is now the
    ``agentx`` preset's own default (agentx-harness 1.0.12 inferencex_agentx_mvp.py lines
    47-48; InferenceX benchmark_lib.sh 2026-2027), the locked spec's default staying 0:1
    (lines 34-35); t* is drawn uniformly over the recorded time span
    (``timing/trajectory_source.py`` 615-626), seeded per (seed, trace, lane) (line 179)."""
    lo, hi = AGENTX_PRESET["default_trajectory_start"]
    assert agentx.TRAJECTORY == f"{lo:g}:{hi:g}" and _ax().trajectory_start == "0.25:0.75"
    mlo, mhi = LOCKED_SPEC["default_trajectory_start"]
    assert agentx.MVP_TRAJECTORY == f"{mlo:g}:{mhi:g}"
    d = scenario_rules(_ax("--trajectory-start", "0:1"))["departures"]
    assert any("trajectory start 0:1" in x and "agentx preset: 0.25:0.75" in x for x in d)


def test_warm_up_seed_and_system_idle_cap_unchanged() -> None:
    """Unchanged: 10 warm-up requests per lane (preset line 55; InferenceX benchmark_lib.sh
    1975, 2033), seed 42 (preset line 53; benchmark_lib.sh 2017), the whole-run idle cap 10 s
    locked (system_idle_gap_cap_seconds, line 36)."""
    assert agentx.WARMUP_PER_LANE == AGENTX_PRESET["warmup_requests_per_lane"]
    assert agentx.SEED == AGENTX_PRESET["random_seed"]
    assert agentx.IDLE_CAP_S == LOCKED_SPEC["system_idle_gap_cap_seconds"]
    ax = _ax()
    assert (ax.warmup_requests_per_lane, ax.seed, ax.idle_gap_cap) == (10, 42, 10.0)
    assert any("--idle-gap-cap 30" in v
               for v in scenario_rules(_ax("--idle-gap-cap", "30"))["violations"])


def test_per_tree_idle_cap_is_rebuilt_at_the_preset_value() -> None:
    """Changed, now rebuilt: the ``agentx`` preset sets a per-tree idle-gap cap of 300 s
    (trace_idle_gap_cap_seconds, agentx-harness 1.0.12 inferencex_agentx_mvp.py line 57;
    InferenceX benchmark_lib.sh 1797, 2038) where AIPerf 0.13.0 forbade one
    (forbid_trace_idle_gap_cap, line 37). ``--agentx`` sets it (``--trace-idle-gap-cap``);
    its behaviour is transcribed in test_agentx_live_rules.py. No departure on InferenceX's
    own run; another value is one."""
    assert AIPERF_0_13_FORBIDS_TRACE_IDLE_CAP
    assert agentx.TRACE_IDLE_CAP_S == AGENTX_PRESET["trace_idle_gap_cap_seconds"]
    for opts in (_ax(), _ax("--duration", "900", "--seed", "7")):
        assert opts.trace_idle_gap_cap == 300.0  # type: ignore[attr-defined]
        assert not [x for x in scenario_rules(opts)["departures"] if "per-tree" in x]
    d = [x for x in scenario_rules(_ax("--trace-idle-gap-cap", "0"))["departures"]
         if "per-tree" in x]
    assert len(d) == 1 and "300 s" in d[0]


def test_corpus_rule_names_what_the_locked_spec_accepts() -> None:
    """Corrected: the locked spec's require_loader admits the generic ``weka_trace`` loader
    (agentx-harness 1.0.12 and AIPerf 0.13.0 inferencex_agentx_mvp.py line 29), so a local
    corpus is not invalid there; InferenceX still runs cc-traces-weka-062126 or its -256k
    variant (inferencex-e2e/benchmarks/benchmark_lib.sh resolve_trace_source), loading its
    393 trees (preset line 60; benchmark_lib.sh 2102)."""
    assert LOCKED_SPEC["accepts_weka_trace_loader"]
    assert agentx.NUM_DATASET_ENTRIES == AGENTX_PRESET["conversation_num_dataset_entries"]
    d = scenario_rules(parse_replay_args(["mine.jsonl", "--agentx", "--concurrency", "8"]))
    corpus = [x for x in d["departures"] if x.startswith("corpus mine.jsonl")]
    assert len(corpus) == 1 and "weka_trace" in corpus[0] and "invalid" not in corpus[0]
    assert not any(x.startswith("corpus") for x in scenario_rules(_ax())["departures"])


def test_pinned_values_we_do_not_rebuild_are_transcribed() -> None:
    """Named, not rebuilt (docs/agentx.md): warm-up grace 1,800 s (preset line 56). Rebuilt
    since (test_agentx_live_rules.py): the live failed-request threshold 0.10 (line 54) and
    the profile metric coverage 0.95 (locked spec line 39)."""
    assert agentx.WARMUP_GRACE_S == AGENTX_PRESET["warmup_grace_period"]
    assert agentx.LIVE_FAILED_REQUEST_THRESHOLD == AGENTX_PRESET["failed_request_threshold"]
    assert agentx.PROFILE_METRIC_COVERAGE == LOCKED_SPEC["minimum_profile_metric_coverage_ratio"]
    assert agentx.PRESET == AGENTX_PRESET["name"] and agentx.SCENARIO == LOCKED_SPEC["name"]
    rules = scenario_rules(_ax())
    assert rules["failed_request_threshold"] == AGENTX_PRESET["failed_request_threshold"]
    assert rules["min_latency_coverage"] == LOCKED_SPEC["minimum_profile_metric_coverage_ratio"]
