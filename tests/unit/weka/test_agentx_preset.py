"""--agentx: the scenario's defaults (an explicit option wins), its locked rules and the
departures a run makes (agentx-harness 1.0.12 / AIPerf 0.14 common/scenario/
inferencex_agentx_mvp.py, the ``agentx`` preset; InferenceX benchmarks/benchmark_lib.sh
build_replay_cmd). tests/unit/weka/test_agentx_references.py transcribes each rule."""

from __future__ import annotations

from agentic_bench.cli.replay_cmd import parse_replay_args
from agentic_bench.options.agentx import scenario_rules


def test_defaults_and_explicit_values() -> None:
    plain = parse_replay_args(["t.json"])
    assert (plain.trajectory_start, plain.warmup_requests_per_lane, plain.idle_gap_cap,
            plain.duration, plain.scenario) == ("0:0", 1, None, None, "single-stream")
    ax = parse_replay_args(["t.json", "--agentx", "--concurrency", "8"])
    assert (ax.trajectory_start, ax.warmup_requests_per_lane, ax.idle_gap_cap, ax.duration,
            ax.scenario, ax.seed) == ("0.25:0.75", 10, 10.0, 3600.0, "concurrency", 42)
    mine = parse_replay_args(["t.json", "--agentx", "--concurrency", "8", "--duration", "3600",
                              "--trajectory-start", "0:1"])
    assert (mine.duration, mine.trajectory_start) == (3600.0, "0:1")


def test_locked_rules_and_departures() -> None:
    canonical = scenario_rules(parse_replay_args(
        ["cc-traces-weka-062126/traces.jsonl", "--agentx", "--concurrency", "8",
         "--duration", "3600"]))
    assert canonical["violations"] == []
    # #46 item 6: the per-tree idle cap and the live abort are rebuilt, so InferenceX's own
    # run departs in nothing; another per-tree cap or threshold is named (not judged)
    assert canonical["departures"] == []
    other = scenario_rules(parse_replay_args(
        ["cc-traces-weka-062126/traces.jsonl", "--agentx", "--concurrency", "8",
         "--trace-idle-gap-cap", "60", "--failed-request-threshold", "0.2"]))
    assert other["violations"] == []
    assert [d.split(" (")[0] for d in other["departures"]] == [
        "a per-tree idle-gap cap of 60 s", "a live failed-request abort above 0.2"]
    broken = scenario_rules(parse_replay_args(
        ["mine.jsonl", "--agentx", "--concurrency", "8", "--duration", "300",
         "--think-time", "none", "--honor-eos", "--cache-bust", "none", "--idle-gap-cap",
         "30", "--max-tokens", "16"]))
    assert len(broken["violations"]) == 6
    assert any("at least 900 s" in v for v in broken["violations"])
    departures = " | ".join(broken["departures"])
    assert "corpus mine.jsonl" in departures and "300 s" in departures
