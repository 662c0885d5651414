"""#46 item 6: the three AgentX rules rebuilt after "Rules against the current references" —
each transcribed from agentx-harness 1.0.12 (PyPI wheel; InferenceX pins 1.0.14, not on PyPI),
the file and lines cited in each test:

- the per-tree idle cap (``trace_idle_gap_cap_seconds`` 300, the ``agentx`` preset line 57):
  ``timing/replay_dependencies.py`` 148-161 (per-tree state), 195-219 (a request on the wire
  disarms; the tree's initial idle is watched), 265-325 (re-armed when the tree's last request
  ends; on expiry only that tree's pending timers move, the earliest to now), 253-261 (a timer
  registered past an expired cap fires at once); ``common/loop_scheduler.py`` 397-439
  (``cap_pending_delay_for_group``: uniform shift, spacing kept); ``timing/phase/runner.py``
  225-238 (profiling phase only);
- the live failed-request abort (``failed_request_threshold`` 0.10, preset line 54):
  ``records/records_manager.py`` 583-593 (floor max(concurrency, 10)), 694-755 (failed /
  total records of the profiling phase, ``rate > threshold``, once; a ProfileCancelCommand),
  790-818 (context overflows skipped before the count); ``config/phases.py`` 269-285;
- latency coverage (``minimum_profile_metric_coverage_ratio`` 0.95, the locked spec line 39):
  ``metrics/accumulator.py`` 360-404 (last first-token / last end of a response with an ITL,
  minus the phase start, over the configured duration, clamped to [0, 1]; ITL needs OSL ≥ 2,
  ``metrics/types/inter_token_latency_metric.py`` 49-51), ``common/models/record_models.py``
  441-446 (either signal suffices), ``records/records_manager.py`` 1729-1770 (not for a
  cancelled run nor a phase under the scenario's minimum duration).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from time import perf_counter_ns
from typing import Any

import pytest

from agentic_bench.cli.replay_cmd import parse_replay_args
from agentic_bench.contracts import SessionOutcome, SessionSource, SessionTicket
from agentic_bench.load.clock import LaneClock, TreeClock
from agentic_bench.load.lanes import LaneRunner
from agentic_bench.metrics.early_stop import FirstFailures
from agentic_bench.metrics.trees import TreesTally, coverage_rows
from agentic_bench.options import agentx
from agentic_bench.options.load import LaneSpec
from agentic_bench.trace.weka import WekaCorpus, weka_session
from tests.conftest import run_cli, start_sim

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"
PRESET_TRACE_IDLE_CAP_S = 300  # inferencex_agentx_mvp.py line 57
PRESET_FAILED_REQUEST_THRESHOLD = 0.10  # line 54
LOCKED_COVERAGE = 0.95  # line 39
GRACE_FLOOR_MIN = 10  # records_manager.py 590-592: max(concurrency, 10)


def _ax(*extra: str) -> Any:
    return parse_replay_args(["cc-traces-weka-062126/traces.jsonl", "--agentx",
                              "--concurrency", "8", *extra])


# -- the per-tree idle cap ------------------------------------------------------------------

def test_agentx_sets_the_per_tree_idle_cap_and_another_value_is_a_departure() -> None:
    assert agentx.TRACE_IDLE_CAP_S == PRESET_TRACE_IDLE_CAP_S
    assert _ax().trace_idle_gap_cap == 300.0
    assert _ax().lane_spec().trace_idle_gap_cap_s == 300.0
    assert parse_replay_args(["t.json"]).lane_spec().trace_idle_gap_cap_s is None
    assert not [d for d in agentx.scenario_rules(_ax())["departures"] if "per-tree" in d]
    mine = agentx.scenario_rules(_ax("--trace-idle-gap-cap", "30"))
    assert mine["violations"] == []  # a preset default (cli_defaults), not a locked rule
    assert [d for d in mine["departures"] if "per-tree idle-gap cap of 30 s" in d]


def test_an_idle_tree_waits_at_most_the_cap_while_another_tree_keeps_the_run_busy() -> None:
    """replay_dependencies.py 295-325 with loop_scheduler.py 397-439: the idle tree's waits
    all move by one amount, the earliest to the cap's expiry; the busy tree's do not move."""
    async def scenario() -> tuple[dict[str, float], LaneClock]:
        clock = LaneClock(None, 0.1)  # no whole-run cap: only the per-tree one acts
        busy, idle = clock.tree(), clock.tree()
        t0 = perf_counter_ns()
        ends: dict[str, float] = {}
        busy.request_started()  # one of busy's requests stays in flight 0.6 s

        async def sleeper(tree: TreeClock, name: str, seconds: float) -> None:
            await tree.sleep_until(t0 + int(seconds * 1e9), None)
            ends[name] = (perf_counter_ns() - t0) / 1e9

        async def reply() -> None:
            await asyncio.sleep(0.6)
            busy.request_done()

        await asyncio.gather(sleeper(idle, "first", 2.0), sleeper(idle, "second", 2.2),
                             sleeper(busy, "busy", 0.4), reply())
        busy.close()
        idle.close()
        return ends, clock

    ends, clock = asyncio.run(scenario())
    assert ends["first"] < 1.0  # 2 s of nothing in flight in its tree: moved to ~the cap
    assert ends["second"] - ends["first"] == pytest.approx(0.2, abs=0.1)  # spacing kept
    assert ends["busy"] >= 0.39  # the tree with a request in flight is never moved
    assert clock.skipped_s == 0.0 and clock.jumps == 0
    assert clock.tree_jumps == 1 and clock.trees_capped == 1
    assert clock.tree_skipped_ns / 1e9 == pytest.approx(1.9, abs=0.15)


def test_a_request_in_flight_in_the_tree_disarms_its_cap() -> None:
    """replay_dependencies.py 195-205: a request of the tree on the wire cancels the watchdog;
    the idle clock starts again when the tree's last request ends (265-278)."""
    async def scenario() -> float:
        tree = LaneClock(None, 0.05).tree()
        tree.request_started()
        t0 = perf_counter_ns()
        await tree.sleep_until(t0 + int(0.3 * 1e9), None)
        tree.request_done()
        tree.close()
        return (perf_counter_ns() - t0) / 1e9

    assert asyncio.run(scenario()) >= 0.29


class _Waiting:
    """A tree that waits 1.5 s on its lane's clock and sends nothing."""

    def __init__(self) -> None:
        self.clocks: list[Any] = []

    async def __call__(self, ticket: SessionTicket) -> SessionOutcome:
        assert ticket.lane is not None and ticket.lane.clock is not None
        self.clocks.append(ticket.lane.clock)
        await ticket.lane.clock.sleep_until(perf_counter_ns() + int(1.5e9), None)
        return SessionOutcome(ticket.session_id, "ok", 1, 1, 0, 0)


def test_the_lanes_record_sums_what_the_cap_skipped_over_the_trees() -> None:
    trees = [weka_session(t) for t in WekaCorpus(DATA / "corpus.jsonl")]
    ex = _Waiting()
    runner = LaneRunner(LaneSpec(lanes=2, trace_idle_gap_cap_s=0.05),
                        SessionSource(2, lambda i: trees[i % 2]), ex)
    began = perf_counter_ns()
    asyncio.run(runner.run())
    assert (perf_counter_ns() - began) / 1e9 < 1.0  # neither tree idled its 1.5 s
    record = runner.lanes_record()
    assert record["trace_idle_gap_cap_s"] == 0.05
    assert record["trees_idle_capped"] == 2 and record["tree_jumps"] == 2
    assert record["tree_skipped_s"] == pytest.approx(2 * 1.45, abs=0.3)  # summed over trees
    assert len({id(c) for c in ex.clocks}) == 2  # one clock per tree


# -- the live failed-request abort ----------------------------------------------------------

def _llm(status: str = "ok", **extra: Any) -> dict[str, Any]:
    return {"type": "step", "kind": "llm", "status": status, **extra}


def test_the_live_abort_waits_for_the_floor_and_fires_above_the_ratio() -> None:
    assert agentx.LIVE_FAILED_REQUEST_THRESHOLD == PRESET_FAILED_REQUEST_THRESHOLD
    assert _ax().failed_request_threshold == 0.10
    said: list[str | None] = []
    watch = FirstFailures(0, said.append, threshold=0.10, floor=max(8, GRACE_FLOOR_MIN))
    for _ in range(9):
        watch.observe(_llm("error"))  # 9/9 failed, under the floor of 10: not armed
    assert not watch.triggered
    for record in (_llm("error", warmup=True), _llm("error", context_overflow=True),
                   _llm("retried")):
        watch.observe(record)  # warm-up, overflows and retried attempts are not counted
    assert not watch.triggered and watch.responses == 9
    watch.observe(_llm("error"))
    assert watch.triggered and watch.reason == "failed_request_threshold"
    assert said and "10/10 measured requests failed" in str(said[0])


def test_the_ratio_must_be_exceeded_not_reached() -> None:
    """records_manager.py 723: ``rate <= threshold`` goes on."""
    watch = FirstFailures(0, lambda _: None, threshold=0.10, floor=10)
    for status in ["error"] + ["ok"] * 9:
        watch.observe(_llm(status))
    assert not watch.triggered  # 1/10 = 10 %
    watch.observe(_llm("error"))
    assert watch.triggered  # 2/11 = 18 %


@pytest.mark.parametrize("workers", [(), ("--workers", "2")], ids=["one-process", "workers"])
def test_a_run_over_the_threshold_stops_early_and_reads_invalid(
        tmp_path: Path, workers: tuple[str, ...]) -> None:
    """On the simulator failing half its requests: the measured phase stops well before its
    900 s, the summary is written from what was measured, the verdict names the abort (lanes
    over worker processes too: the parent counts their records and stops them all)."""
    sim = start_sim("--ttft-ms", "2", "--itl-ms", "0", "--fail-rate", "0.5")
    try:
        out = tmp_path / "run"
        res = run_cli("replay", str(DATA / "corpus.jsonl"), "--endpoint", sim.url,
                      "--tokenizer", "server", "--agentx", "--concurrency", "2",
                      "--duration", "900", "--allow-dataset-wrap", "--out", str(out),
                      "--quiet", *workers, timeout=240)
    finally:
        sim.stop()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == "failed_request_threshold", res.stderr[-2000:]
    assert summary["result"] == "INVALID" and summary["complete"] is False
    rows = {r["name"]: r for r in summary["constraints"]}
    assert rows["failed_request_threshold"]["ok"] is False
    assert rows["not_cancelled"]["ok"] is False  # the abort cancels the profile
    assert "latency_coverage" not in rows  # not judged for a cancelled run
    assert summary["trees"]["trees"]["lanes"]["measured_s"] < 120
    assert "failed-request threshold" in res.stderr
    assert "stopped early" in (out / "summary.txt").read_text()


# -- latency coverage -----------------------------------------------------------------------

def _tally_block(*records: dict[str, Any], start_ns: int = 10**9,
                 duration_s: float = 1000.0) -> dict[str, Any]:
    tally = TreesTally()
    for r in records:
        tally.add_llm(r)
    lanes = {"type": "lanes", "measured_start_ns": start_ns, "duration_s": duration_s}
    return tally.block([lanes])


def test_coverage_is_how_far_into_the_phase_each_signal_reached() -> None:
    at = 10**9  # the measured phase's start on the run clock
    block = _tally_block(
        _llm(t_sent_ns=at, t_first_token_ns=at + 900 * 10**9, t_end_ns=at + 901 * 10**9,
             output_tokens=1),  # one output token: a TTFT, no ITL
        _llm(t_sent_ns=at, t_first_token_ns=at + 10**9, t_end_ns=at + 400 * 10**9,
             output_tokens=5))
    cov = block["latency_coverage"]
    assert cov["ttft"] == pytest.approx(0.9) and cov["itl"] == pytest.approx(0.4)
    rules = {"min_latency_coverage": agentx.PROFILE_METRIC_COVERAGE, "duration_s": 1000.0,
             "min_duration_s": 900.0}
    assert agentx.PROFILE_METRIC_COVERAGE == LOCKED_COVERAGE
    (row,) = coverage_rows(block, rules, cancelled=False)
    assert row["name"] == "latency_coverage" and not row["ok"] and row["value"] == 0.9


def test_either_signal_suffices_and_a_late_itl_passes() -> None:
    at = 10**9
    block = _tally_block(
        _llm(t_sent_ns=at, t_first_token_ns=at + 10**9, t_end_ns=at + 960 * 10**9,
             output_tokens=2),
        _llm(t_sent_ns=at, t_first_token_ns=at + 2000 * 10**9, t_end_ns=at + 2001 * 10**9,
             output_tokens=2, status="error"))  # a failed response is not an observation
    assert block["latency_coverage"]["ttft"] == pytest.approx(0.001)
    rules = {"min_latency_coverage": 0.95, "duration_s": 1000.0, "min_duration_s": 900.0}
    (row,) = coverage_rows(block, rules, cancelled=False)
    assert row["ok"] and row["value"] == pytest.approx(0.96)


def test_coverage_is_not_judged_for_a_cancelled_or_short_run() -> None:
    block = _tally_block()
    assert block["latency_coverage"] == {"ttft": 0.0, "itl": 0.0, "duration_s": 1000.0}
    rules = {"min_latency_coverage": 0.95, "duration_s": 1000.0, "min_duration_s": 900.0}
    assert coverage_rows(block, rules, cancelled=False)[0]["ok"] is False
    assert coverage_rows(block, rules, cancelled=True) == []
    assert coverage_rows(block, {**rules, "duration_s": 600.0}, cancelled=False) == []
    assert coverage_rows(block, {"duration_s": 1000.0}, cancelled=False) == []  # no --agentx


def test_the_verdict_of_a_whole_agentx_run_has_the_coverage_row() -> None:
    """A run that measured its whole 900 s: the verdict judges the coverage its trees block
    carries (metrics/verdict.py → agentx_rows); a server that stalled for the last 10 % of
    the phase fails it."""
    from agentic_bench.metrics.summary_model import Summary
    from agentic_bench.metrics.verdict import evaluate

    rules = agentx.scenario_rules(_ax("--duration", "900"))
    lanes = {"measured_s": 900.0, "starved": 0, "unfilled": 0}

    def rows(coverage: dict[str, float]) -> dict[str, dict[str, Any]]:
        summary = Summary.of({"benchmark": "replay", "stop_reason": "duration",
                              "agentx": rules,
                              "trees": {"error_rate": 0.0, "failed_share": 0.0,
                                        "latency_coverage": coverage,
                                        "trees": {"lanes": lanes}}})
        return {r["name"]: r for r in evaluate(summary, {})}

    stalled = rows({"ttft": 0.9, "itl": 0.88, "duration_s": 900.0})
    assert stalled["latency_coverage"]["ok"] is False
    assert stalled["failed_request_threshold"]["ok"] is True  # not aborted
    assert rows({"ttft": 0.97, "itl": 0.2, "duration_s": 900.0})["latency_coverage"]["ok"]
