"""Capacity under uncertainty (#44 item 5): each probe is decided from the interval of its goodput
fraction — PASS, FAIL or UNSURE — and the search answers a range where the evidence is no
sharper than that, never a single number it does not support."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.contracts import SessionSource, Workload
from agentic_bench.metrics.intervals import fraction_interval, goodput_fraction_interval
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.load import SearchSpec
from agentic_bench.options.parser import resolve
from agentic_bench.run import search, sweep
from agentic_bench.run.search import Decision, answer_of, bisect_capacity, decide

P, F, U = Decision.PASS, Decision.FAIL, Decision.UNSURE


def scripted(table: dict[float, Decision], seen: list[float]):  # type: ignore[no-untyped-def]
    def judge(v: float) -> Decision:
        seen.append(v)
        return table[v]
    return judge


def test_a_probe_is_decided_by_where_its_interval_lies() -> None:
    assert decide((0.95, 1.0), 0.95) is P  # wholly at or above
    assert decide((0.80, 0.949), 0.95) is F  # wholly below
    assert decide((0.90, 0.99), 0.95) is U  # straddles
    assert decide(None, 0.95) is U
    # 40 of 40 sessions cannot show 0.95 at 95 % confidence; 80 of 80 can
    assert decide(fraction_interval(40, 40), 0.95) is U
    assert decide(fraction_interval(80, 80), 0.95) is P


def test_undecided_loads_between_a_pass_and_a_fail_give_a_range() -> None:
    table = {v: P if v <= 4 else U if v <= 7 else F for v in range(1, 65)}
    seen: list[float] = []
    found = bisect_capacity(SearchSpec("concurrency", 1, 64), scripted(table, seen))
    assert seen == [1, 2, 4, 8, 6, 5, 7]  # doubling, the pass edge, then the fail edge
    assert (found.verdict, found.answer) == ("indeterminate", "indeterminate between 4 and 8")
    assert (found.capacity, found.lower, found.upper) == (4, 4, 8)
    assert "concurrency 5, 6, 7 undecided" in found.reason


def test_nothing_failing_above_an_undecided_load_is_at_least() -> None:
    table = {v: P if v <= 3 else U for v in range(1, 17)}
    seen: list[float] = []
    found = bisect_capacity(SearchSpec("concurrency", 1, 16), scripted(table, seen))
    assert seen == [1, 2, 4, 8, 16, 3]
    assert (found.answer, found.capacity, found.upper) == ("at least 3", 3, None)
    assert "4, 8, 16 above it undecided" in found.reason


def test_nothing_passing_is_indeterminate_or_none() -> None:
    below = bisect_capacity(SearchSpec("concurrency", 2, 16),
                            scripted({2: U, 4: F, 3: U}, []))
    assert (below.answer, below.capacity, below.upper) == ("indeterminate below 4", None, 4)
    assert "may be below LO" in below.reason
    blank = bisect_capacity(SearchSpec("concurrency", 1, 4), scripted({1: U, 2: U, 4: U}, []))
    assert (blank.verdict, blank.answer, blank.capacity) == ("indeterminate", "indeterminate",
                                                             None)
    none = bisect_capacity(SearchSpec("concurrency", 1, 4), scripted({1: F}, []))
    assert (none.verdict, none.answer) == ("none", "none in range")


def test_a_pass_above_a_fail_is_said() -> None:
    # the search never probes above a failing load, but decisions read back may disagree
    found = answer_of(SearchSpec("concurrency", 1, 8), {1: P, 2: F, 4: P, 8: F})
    assert found.answer == "capacity 1" and "4 passed above a failing load" in found.reason


# --- the search itself, on fake runs: a point answer would be wrong, the search gives a range

TRUE_CAPACITY = 5  # the fraction of the scripted system is ≥ 0.9 up to concurrency 5
MET_OF_40 = {1: [40], 2: [40], 4: [39, 39], 8: [30], 6: [37, 35, 36], 5: [35, 37, 38],
             7: [34, 33, 34]}  # sessions meeting the SLOs, of 40, in each run of a load


def fake_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    ran: list[tuple[int, str]] = []

    def run_workload(_: Workload, point: CommonOptions, __: str | None) -> dict[str, Any]:
        assert point.concurrency is not None and point.out is not None
        runs = MET_OF_40[point.concurrency]
        met = runs[sum(1 for c, _ in ran if c == point.concurrency)]
        ran.append((point.concurrency, point.out.name))
        dist = {"p50": 1.0, "p99": 2.0}
        summary = {"result": "VALID", "stop_reason": "done", "out_dir": str(point.out),
                   "latency_ms": {"ttft": dist, "tpot": dist, "request": dist},
                   "throughput": {"requests_per_s": 1.0, "output_tokens_per_s": 1.0,
                                  "sessions_per_s": 1.0},
                   "goodput": {"sessions_per_s": met / 40, "sessions": met},
                   "counts": {"errors": 0, "sessions": 40}}
        point.out.mkdir(parents=True, exist_ok=True)
        (point.out / "summary.json").write_text(json.dumps(summary))
        return summary

    monkeypatch.setattr(sweep, "run_workload", run_workload)
    return ran


def options(**given: Any) -> CommonOptions:
    return resolve(CommonOptions, {"endpoint": "http://127.0.0.1:9/v1", "scenario": "concurrency",
                                   "quiet": True, "search": "concurrency=1:16",
                                   "search_fraction": 0.9, "slo": ["ttft_p99_ms=145"],
                                   **given})


def workload() -> Workload:
    def never(_: Any) -> Any:
        raise AssertionError

    return Workload("replay", SessionSource(3, never), never)


def test_the_search_answers_a_range_where_the_point_answer_is_wrong(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ran = fake_runs(monkeypatch)
    opts = options(out=str(tmp_path))
    assert opts.search_spec is not None and opts.search_spec.max_runs == 3
    result = search.run_search(workload(), opts, opts.search_spec, "replay")
    # the point rule on the same loads' first runs: 6 passes (37/40) and 7 fails, so it would
    # answer 6 — above the true capacity, 5
    first = {c: runs[0] / 40 >= 0.9 for c, runs in MET_OF_40.items()}
    point = bisect_capacity(opts.search_spec, lambda v: first[int(v)])
    assert point.capacity == 6 != TRUE_CAPACITY
    # the intervals: 5 and 6 stay undecided over 3 runs, 7 fails once pooled — a range
    assert (result["answer"], result["verdict"]) == ("indeterminate between 4 and 7",
                                                     "indeterminate")
    assert result["lower"] <= TRUE_CAPACITY < result["upper"]
    assert result["capacity"] == 4  # a load the evidence supports
    assert "concurrency 5, 6 undecided" in result["reason"]
    assert [c for c, _ in ran] == [1, 2, 4, 4, 8, 6, 6, 6, 5, 5, 5, 7, 7, 7]
    assert [name for c, name in ran if c == 4] == ["concurrency-4", "concurrency-4-r2"]
    by_load = {p["concurrency"]: p for p in result["points"]}
    assert by_load[6]["decision"] == "unsure" and by_load[6]["point_meets"]
    assert by_load[6]["pooled"] == {"met": 108, "sessions": 120, "runs": 3}
    assert by_load[6]["interval"] == [0.8333, 0.9419]
    assert by_load[4]["decision"] == "pass" and by_load[7]["decision"] == "fail"
    saved = json.loads((tmp_path / "search.json").read_text())
    assert saved["answer"] == result["answer"] and saved["upper"] == 7
    html = (tmp_path / "sweep.html").read_text()
    assert "Concurrency: indeterminate between 4 and 7 at ttft p99 &lt;= 145 ms" in html
    assert "UNSURE: 108/120 [0.833, 0.942], 3 run(s)" in html
    # --resume reads every finished run back: the same decisions, nothing run again
    again = search.run_search(workload(), options(resume=str(tmp_path)),
                              opts.search_spec, "replay")
    assert len(ran) == 14 and again["answer"] == result["answer"]


def test_the_goodput_fraction_has_its_interval_in_the_summary() -> None:
    summary = {"counts": {"sessions": 120}, "goodput": {"sessions": 108}}
    assert goodput_fraction_interval(summary) == [0.8333, 0.9419]
    assert goodput_fraction_interval({"counts": {"sessions": 0}}) is None
