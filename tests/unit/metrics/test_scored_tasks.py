"""pass@k / pass^k worked by hand, and task goodput's counting and failure causes from
records (metrics/pass_k.py, metrics/scored_tasks.py)."""

from __future__ import annotations

from typing import Any

import pytest

from agentic_bench.metrics.pass_k import pass_at_k, pass_hat_k, pass_k_block
from agentic_bench.metrics.scored_tasks import task_goodput_block, verdict_of
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.reporting.scored_tasks_view import task_lines


def test_pass_at_k_and_pass_hat_k_worked_by_hand() -> None:
    # n = 5 trials, c = 3 correct.
    # pass@2 = 1 - C(2,2)/C(5,2) = 1 - 1/10 = 0.9; pass^2 = C(3,2)/C(5,2) = 3/10
    assert pass_at_k(5, 3, 2) == pytest.approx(0.9)
    assert pass_hat_k(5, 3, 2) == pytest.approx(0.3)
    # k = 1: both are c / n
    assert pass_at_k(5, 3, 1) == pass_hat_k(5, 3, 1) == pytest.approx(0.6)
    # k = n: pass^n is 1 only when all are correct; pass@n is 1 when any is
    assert pass_hat_k(3, 2, 3) == 0.0 and pass_hat_k(3, 3, 3) == 1.0
    assert pass_at_k(3, 1, 3) == 1.0 and pass_at_k(3, 0, 3) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_pass_k_block_means_over_tasks() -> None:
    # task a: 3/3 -> pass^3 1; task b: 1/3 -> pass^3 0, pass@3 1; task c: 0/3
    block = pass_k_block({"a": [True] * 3, "b": [True, False, False], "c": [False] * 3})
    assert block is not None and block["trials"] == 3 and block["tasks"] == 3
    assert block["k"]["3"]["pass_hat_k"] == pytest.approx(1 / 3, abs=1e-6)
    assert block["k"]["3"]["pass_at_k"] == pytest.approx(2 / 3, abs=1e-6)
    # pass^1 = mean of c/n = (1 + 1/3 + 0) / 3 = 4/9
    assert block["k"]["1"]["pass_hat_k"] == pytest.approx(4 / 9, abs=1e-6)
    lo, hi = block["k"]["1"]["pass_hat_k_interval"]
    assert 0.0 <= lo <= 4 / 9 <= hi <= 1.0
    assert block["per_task"]["b"] == {"n": 3, "c": 1, "pass_at_k": 1.0, "pass_hat_k": 0.0}


def _session(sid: str, *, correct: bool | None, latency: float = 10.0, status: str = "ok",
             step: dict[str, Any] | None = None, trial: int | None = None
             ) -> list[dict[str, Any]]:
    extra = {} if trial is None else {"trial": trial}
    recs = [{"type": "step", "kind": "llm", "session_id": sid, "status": "ok",
             "request_ms": latency, "ttft_ms": 1.0, "finish_reason": "stop", **(step or {}),
             **extra},
            {"type": "turn", "session_id": sid, "status": status, "turn": 0,
             "latency_ms": latency, **extra},
            {"type": "session", "session_id": sid, "status": status, "latency_ms": latency,
             **extra}]
    if correct is not None:
        recs.append({"type": "sample", "session_id": sid, "correct": correct, **extra})
    return recs


def test_task_goodput_counts_correct_tasks_within_the_session_slo_and_names_causes() -> None:
    records = [
        *_session("a#0", correct=True, latency=50),  # counts
        *_session("b#1", correct=True, latency=150),  # correct but too slow: slo
        *_session("c#2", correct=False, latency=50),  # in time, wrong
        *_session("d#3", correct=False, latency=50, status="error",
                  step={"status": "error", "error_type": "timeout"}),
        *_session("e#4", correct=False, latency=50, step={"finish_reason": "length"}),
        *_session("f#5", correct=False, status="error",
                  step={"status": "error", "error_type": "context_overflow"}),
        *_session("g#6", correct=None),  # not scored: not a task
    ]
    block = task_goodput_block(records, {"session_p99_ms": 100.0}, duration_s=2.0)
    assert block is not None
    assert (block["scored"], block["correct"], block["correct_within_slo"]) == (6, 2, 1)
    assert block["task_goodput_per_s"] == 0.5  # 1 task / 2 s
    assert block["causes"] == {"timeout": 1, "context_overflow": 1, "truncated": 1, "slo": 1,
                               "wrong": 1}
    lo, hi = block["within_slo_interval"]
    assert block["task_goodput_interval"] == [round(lo * 3.0, 6), round(hi * 3.0, 6)]
    assert "pass_k" not in block  # one trial
    assert block["slos"] == {"session_p99_ms": 100.0}


def test_no_scored_session_no_block() -> None:
    assert task_goodput_block(_session("a#0", correct=None), {}, 1.0) is None


def test_verdicts_of_each_scored_benchmark() -> None:
    assert verdict_of({"correct": True}) is True  # plugins, tau2
    assert verdict_of({"bfcl_valid": False}) is False  # agentic-edge
    assert verdict_of({"em": 1.0}) is True  # rag-e2e's exact match
    assert verdict_of({"answered": True}) is None


def test_trials_add_pass_k_and_latency_spread_and_the_summary_reads_them_typed() -> None:
    records = [*_session("a#0", correct=True, latency=10, trial=0),
               *_session("a#1", correct=True, latency=30, trial=1),
               *_session("b#2", correct=True, latency=10, trial=0),
               *_session("b#3", correct=False, latency=10, trial=1)]
    block = task_goodput_block(records, {}, 1.0)
    assert block is not None and block["trials"] == 2
    assert block["pass_hat_k"] == 0.5  # a: 2/2 -> 1, b: 1/2 -> C(1,2)/C(2,2) = 0
    assert block["pass_at_k"] == 1.0
    spread = block["latency_across_trials"]
    assert spread["per_task"]["a"] == {"trials": 2, "mean_ms": 20.0, "std_ms": 10.0,
                                       "variance_ms2": 100.0}
    assert spread["max_std_ms"] == 10.0
    summary = Summary.of({"benchmark": "x", "tasks": block})
    assert summary.tasks is not None and summary.tasks.pass_hat() == 0.5
    assert summary.tasks.correct_within_slo == 3
    assert Summary.from_json(summary.to_json()).to_dict() == summary.to_dict()


def test_pass_k_uses_each_tasks_first_k_trials_and_counts_the_tasks_short_of_them() -> None:
    # --trials 2 under --duration: the run cycled on, so task a got a third trial (trial 2,
    # wrong) and task c only its trial 0. pass^2 must be over a and b, trials 0 and 1 each:
    # a 2/2 -> 1, b 1/2 -> 0; mean 0.5 (counting a's trial 2 would make a 2/3 -> pass^2 1/3).
    records = [*_session("a#0", correct=True, trial=0), *_session("b#1", correct=True, trial=0),
               *_session("c#2", correct=True, trial=0), *_session("a#3", correct=True, trial=1),
               *_session("b#4", correct=False, trial=1), *_session("a#6", correct=False, trial=2)]
    block = task_goodput_block(records, {}, 1.0, trials=2)
    assert block is not None and block["trials"] == 2
    assert block["tasks_fewer_trials"] == 1 and block["extra_trials"] == 1
    assert block["pass_k"]["tasks"] == 2 and sorted(block["pass_k"]["per_task"]) == ["a", "b"]
    assert {t: r["n"] for t, r in block["pass_k"]["per_task"].items()} == {"a": 2, "b": 2}
    assert block["pass_hat_k"] == 0.5 and block["pass_at_k"] == 1.0
    assert block["scored"] == 6  # every trial stays in the task counts
    lines = "\n".join(task_lines(Summary.of({"benchmark": "x", "tasks": block}).tasks))
    assert "tasks with < 2 trials: 1 (left out of pass@k/pass^k)" in lines
    assert "1 sessions of trial 2 or later scored" in lines


def test_no_task_with_all_k_trials_gives_no_pass_k_but_says_how_many_fell_short() -> None:
    records = [*_session("a#0", correct=True, trial=0), *_session("b#1", correct=True, trial=0)]
    block = task_goodput_block(records, {}, 1.0, trials=3)
    assert block is not None and block["trials"] == 3 and block["tasks_fewer_trials"] == 2
    assert "pass_k" not in block and "pass_hat_k" not in block
