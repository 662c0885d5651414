"""Scored episodes under load (#47): task goodput and pass^k on simulated endpoints whose
accuracy and latency are known in advance, run through the closed-loop runner.

The endpoint double answers a task right with probability ``p`` — decided by a hash of the
question and the request's ``seed``, so trial t (seed 42 + t) is an independent, repeatable
draw — and takes ``settle + base + slope × (requests in flight − 1)`` ms: latency that rises
with load.
"""

from __future__ import annotations

import asyncio
import random
from time import perf_counter_ns
from typing import Any

import pytest

from agentic_bench import api
from agentic_bench.contracts import ExecContext, Workload
from agentic_bench.load import LoadRunner, LoadSpec
from agentic_bench.metrics.scored_tasks import task_goodput_block
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.run.trials import with_trials
from agentic_bench.transport import ChatResult


class ScoredSim:
    """Right with probability ``p`` per (question, seed); latency rising with load."""

    def __init__(self, p: float, *, base_ms: float = 0.0, slope_ms: float = 0.0,
                 settle_ms: float = 0.0) -> None:
        self.p, self.base_ms, self.slope_ms, self.settle_ms = p, base_ms, slope_ms, settle_ms
        self.in_flight = 0
        self.seeds: list[int] = []

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        t0 = perf_counter_ns()
        self.in_flight += 1
        try:
            if self.settle_ms:  # the other streams' requests of this wave arrive meanwhile
                await asyncio.sleep(self.settle_ms / 1000)
            load = self.in_flight
            await asyncio.sleep((self.base_ms + self.slope_ms * (load - 1)) / 1000)
        finally:
            self.in_flight -= 1
        seed = int(body.get("seed", 0))
        self.seeds.append(seed)
        question = body["messages"][-1]["content"]
        right = random.Random(f"{question}|{seed}").random() < self.p
        t1 = perf_counter_ns()
        return ChatResult(t_sent_ns=t0, t_first_byte_ns=t1, t_first_token_ns=t1, t_end_ns=t1,
                          token_times_ns=[t1], content="right" if right else "wrong",
                          finish_reason="stop", output_tokens=1, chunks=1)

    async def aclose(self) -> None:
        return None


async def one_turn(rec: Any, session: Any) -> str:
    rec.start_turn()
    result = await rec.llm({"messages": [{"role": "user", "content": session.turns[0].user}]},
                           0, 0)
    rec.end_turn(0)
    return str(result.content)


def exact(session: Any, outcome: str) -> dict[str, Any]:
    return {"correct": outcome == session.references.answer}


def tasks_workload(n: int) -> Workload:
    return api.simple_workload("scored", [api.make_session(f"task-{i}", [f"question {i}"],
                                                           answer="right") for i in range(n)],
                               one_turn, exact)


def drive(workload: Workload, sim: ScoredSim, concurrency: int,
          slos: dict[str, float]) -> tuple[dict[str, Any], float]:
    """Run every session of ``workload`` in a closed loop; the tasks block and the duration."""
    records: list[dict[str, Any]] = []
    ctx = ExecContext(sim, records.append, perf_counter_ns(), ReplayOptions(model="m"))
    runner = LoadRunner(LoadSpec(scenario="concurrency", concurrency=concurrency),
                        workload.source, workload.make_executor(ctx))
    t0 = perf_counter_ns()
    asyncio.run(runner.run())
    duration_s = (perf_counter_ns() - t0) / 1e9
    block = task_goodput_block(records, slos, duration_s)
    assert block is not None
    return block, duration_s


def test_oracle_sim_counts_every_task_and_pass_hat_k_is_one() -> None:
    block, duration = drive(with_trials(tasks_workload(10), 3, 42), ScoredSim(1.0), 4, {})
    assert block["scored"] == block["correct"] == block["correct_within_slo"] == 30
    assert block["task_goodput_per_s"] == round(30 / duration, 6)
    assert block["pass_hat_k"] == block["pass_at_k"] == 1.0
    assert block["pass_k"]["k"]["3"]["pass_hat_k_interval"] == [1.0, 1.0]
    assert block["causes"] == {}


def test_wrong_with_probability_p_gives_pass_hat_k_near_p_to_the_k() -> None:
    """p = 0.7, 60 tasks × 3 trials, each trial an independent draw (its own seed): pass^k's
    expectation is p^k (0.7, 0.49, 0.343) and pass@k's 1 − (1 − p)^k (0.7, 0.91, 0.973); each
    must lie within its bootstrap interval, and the accuracy's Wilson interval must hold p."""
    p, k_max = 0.7, 3
    sim = ScoredSim(p)
    block, _ = drive(with_trials(tasks_workload(60), k_max, 42), sim, 8, {})
    assert sorted(set(sim.seeds)) == [42, 43, 44]  # trial t sends seed 42 + t
    lo, hi = block["accuracy_interval"]
    assert lo <= p <= hi
    for k in range(1, k_max + 1):
        row = block["pass_k"]["k"][str(k)]
        lo, hi = row["pass_hat_k_interval"]
        assert lo <= p ** k <= hi, (k, row)
        lo, hi = row["pass_at_k_interval"]
        assert lo <= 1 - (1 - p) ** k <= hi, (k, row)
    # every wrong answer was answered in time: all not counted are "wrong"
    assert block["causes"] == {"wrong": block["scored"] - block["correct"]}
    assert block["correct_within_slo"] == block["correct"]


def test_task_goodput_falls_at_the_slo_where_the_latency_model_crosses_it() -> None:
    """Latency model: settle 5 ms + base 10 ms + slope 100 ms per other request in flight.
    A closed loop of c streams over 12 one-request tasks runs in waves of c (12 is a multiple
    of 1, 3 and 4), every request meeting c − 1 others: session latency L(c) = 15 + 100(c − 1)
    ms, so L(1) = 15, L(3) = 215, L(4) = 315. Under --slo session_p99_ms=60 a task counts
    while L(c) <= 60, i.e. c <= 1 + 45/100 = 1.45: at c = 1 every correct task counts (45 ms
    of margin), at c = 3 and 4 none does (155 ms over) — all of them "slo" — whatever the
    machine's own delay. With p = 1 (the oracle) the accuracy stays 100 % at every load."""
    slos = {"session_p99_ms": 60.0}
    counted = {}
    for c in (1, 3, 4):
        sim = ScoredSim(1.0, base_ms=10, slope_ms=100, settle_ms=5)
        block, duration = drive(tasks_workload(12), sim, c, slos)
        assert block["accuracy"] == 1.0
        counted[c] = block["correct_within_slo"]
        assert block["task_goodput_per_s"] == round(counted[c] / duration, 6)
        if c > 1:
            assert block["causes"] == {"slo": 12}
    assert counted == {1: 12, 3: 0, 4: 0}


def test_records_carry_their_trial_and_tasks_repeat_in_trial_order() -> None:
    records, _ = asyncio.run(api.run_offline(with_trials(tasks_workload(3), 2, 7),
                                             ScoredSim(1.0)))
    sessions = [r for r in records if r["type"] == "session"]
    assert [s["trial"] for s in sessions] == [0, 0, 0, 1, 1, 1]
    assert [s["session_id"].rsplit("#", 1)[0] for s in sessions] == \
        ["task-0", "task-1", "task-2"] * 2
    assert all("trial" in r for r in records if "session_id" in r)


def test_one_trial_leaves_the_workload_as_it_is() -> None:
    workload = tasks_workload(3)
    assert with_trials(workload, 1, 42) is workload


def test_a_search_can_keep_task_goodput_instead_of_goodput() -> None:
    from agentic_bench.errors import ConfigError
    from agentic_bench.metrics.summary_model import Summary
    from agentic_bench.run.search import objective_counts

    summary = Summary.of({"counts": {"sessions": 20}, "goodput": {"sessions": 18},
                          "tasks": {"scored": 20, "correct": 15, "correct_within_slo": 12}})
    assert objective_counts(summary, "goodput") == (18, 20)
    assert objective_counts(summary, "task-goodput") == (12, 20)
    with pytest.raises(ConfigError, match="scored benchmark"):
        objective_counts(Summary.of({"counts": {"sessions": 3}}), "task-goodput")


def test_trials_over_the_first_n_tasks() -> None:
    workload = with_trials(tasks_workload(10), 3, 42, sessions=4)
    assert workload.source.size == 12
    assert [workload.source(i).session_id for i in range(12)] == \
        [f"task-{i}" for i in range(4)] * 3


def test_a_duration_run_cycling_past_k_trials_scores_pass_k_on_trials_0_to_k_minus_1() -> None:
    """--trials 2 over 3 tasks under --duration: the closed loop cycles on past the 6
    sessions, so tasks get unequal trial counts (3 or more each, trials 2, 3... with their own
    seeds). pass^k must still be over trials 0 and 1 of every task — n = 2 each — and the
    later sessions counted apart; the p = 0.5 endpoint makes a task's later trials differ."""
    records: list[dict[str, Any]] = []
    workload = with_trials(tasks_workload(3), 2, 42)
    sim = ScoredSim(0.5, base_ms=1.0)
    ctx = ExecContext(sim, records.append, perf_counter_ns(), ReplayOptions(model="m"))
    runner = LoadRunner(LoadSpec(scenario="concurrency", concurrency=2, duration_s=0.3),
                        workload.source, workload.make_executor(ctx))
    asyncio.run(runner.run())
    trials = [r["trial"] for r in records if r["type"] == "sample"]
    assert len(trials) > 7 and max(trials) >= 2  # it did cycle on (else the test shows nothing)
    block = task_goodput_block(records, {}, 0.3, trials=2)
    assert block is not None and block["trials"] == 2
    per_task = block["pass_k"]["per_task"]
    assert {r["n"] for r in per_task.values()} == {2}
    assert block["pass_k"]["tasks"] + block["tasks_fewer_trials"] == 3
    assert block["extra_trials"] == sum(t >= 2 for t in trials) == block["scored"] - 2 * len(
        per_task)
    firsts = {(r["session_id"].rsplit("#", 1)[0], r["trial"]): r["correct"]
              for r in records if r["type"] == "sample" and r["trial"] < 2}
    for task, row in per_task.items():
        assert row["c"] == firsts[(task, 0)] + firsts[(task, 1)]
