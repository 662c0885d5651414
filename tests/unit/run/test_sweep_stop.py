"""#42 item 7, the windows a subprocess test cannot aim at: an interrupt while a sweep point
sets up or writes its outputs (outside its segment's handlers), between two points, or taken by
a segment whose run then ends for another reason — each stops the sweep, and the sweep's
handlers go back to what they were; a segment puts back the handlers it replaced."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.contracts import SessionSource, Workload
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.parser import resolve
from agentic_bench.run import search, segments, sweep
from agentic_bench.run.command import interrupted


def workload() -> Workload:
    def never(_: Any) -> Any:
        raise AssertionError

    return Workload("replay", SessionSource(3, never), never)


def options(out: Path, **given: Any) -> CommonOptions:
    return resolve(CommonOptions, {"endpoint": "http://127.0.0.1:9/v1", "scenario": "concurrency",
                                   "out": str(out), "quiet": True, **given})


def summary(out: Path, stop_reason: str = "done") -> dict[str, Any]:
    dist = {"p50": 1.0, "p99": 2.0}
    return {"result": "VALID" if stop_reason == "done" else "INVALID", "stop_reason": stop_reason,
            "latency_ms": {"ttft": dist, "tpot": dist, "request": dist},
            "throughput": {"requests_per_s": 1.0, "output_tokens_per_s": 1.0,
                           "sessions_per_s": 1.0},
            "goodput": {"sessions_per_s": 1.0, "sessions": 1},
            "counts": {"errors": 0, "sessions": 1}, "out_dir": str(out)}


def fake_points(monkeypatch: pytest.MonkeyPatch,
                during: Callable[[int], str]) -> list[float]:
    """Points run as ``during(n)`` says (n: the point's number from 1): "done", "signal" (a
    SIGINT while it sets up), or a stop reason after a segment's handler took a signal."""
    ran: list[float] = []

    def run_workload(_: Workload, point: CommonOptions, __: str | None) -> dict[str, Any]:
        assert point.concurrency is not None and point.out is not None
        ran.append(point.concurrency)
        how = during(len(ran))
        if how == "signal":
            os.kill(os.getpid(), signal.SIGINT)
            raise AssertionError("the sweep's handler ends the point")
        if how != "done":
            segments._HITS[0] += 1  # what a segment's handler counts
        return summary(point.out, "done" if how == "done" else how)

    monkeypatch.setattr(sweep, "run_workload", run_workload)
    return ran


def test_an_interrupt_while_a_point_sets_up_stops_the_sweep(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ran = fake_points(monkeypatch, lambda n: "signal" if n == 2 else "done")
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    opts = options(tmp_path, sweep="concurrency=1,2,4")
    assert opts.sweep is not None
    result = sweep.run_sweep(workload(), opts, opts.sweep, "replay")
    assert ran == [1, 2]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    stop = result["interrupted"]
    assert stop["after_point"] == 2 and stop["of"] == 3 and stop["cut_short"]
    assert not stop["summary_written"] and stop["out_dir"] == str(tmp_path / "concurrency-2")
    assert "after point 2 of 3 (concurrency=2, cut short)" in stop["note"]
    assert f"agentic-bench replay --resume {tmp_path}" in stop["note"]
    written = json.loads((tmp_path / "sweep.json").read_text())
    assert [p["concurrency"] for p in written["points"]] == [1] and written["interrupted"]
    assert interrupted(stop) == 130  # Ctrl-C's code: the point wrote no summary


def test_an_interrupt_between_points_starts_no_further_one(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ran = fake_points(monkeypatch, lambda n: "done")
    shown = sweep.sweep_point

    def then_sigterm(*args: Any) -> dict[str, Any]:
        os.kill(os.getpid(), signal.SIGTERM)  # after point 1, before point 2
        return shown(*args)

    monkeypatch.setattr(sweep, "sweep_point", then_sigterm)
    opts = options(tmp_path, sweep="concurrency=1,2,4")
    assert opts.sweep is not None
    result = sweep.run_sweep(workload(), opts, opts.sweep, "replay")
    assert ran == [1]
    stop = result["interrupted"]
    assert stop["after_point"] == 1 and not stop["cut_short"]
    assert "after point 1 of 3 (concurrency=1, ran to its end)" in stop["note"]
    assert [p.get("interrupted") for p in result["points"]] == [None]


def test_a_signal_the_segment_took_stops_the_sweep_whatever_the_stop_reason(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The first requests all failed as the Ctrl-C came: the run says all_failed, not
    interrupted, and the sweep stops all the same."""
    ran = fake_points(monkeypatch, lambda n: "all_failed")
    opts = options(tmp_path, sweep="concurrency=1,2,4")
    assert opts.sweep is not None
    result = sweep.run_sweep(workload(), opts, opts.sweep, "replay")
    assert ran == [1]
    assert result["points"][0]["interrupted"] and result["interrupted"]["summary_written"]
    assert interrupted(result["interrupted"]) == 3  # an interrupted run's code


def test_a_search_stops_at_the_interrupted_probe(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    ran = fake_points(monkeypatch, lambda n: "interrupted" if n == 2 else "done")
    opts = options(tmp_path, search="concurrency=1:64", slo=["ttft_p99_ms=100"],
                   search_max_runs=1)  # one run a load: 1 of 1 session stays undecided
    assert opts.search_spec is not None
    result = search.run_search(workload(), opts, opts.search_spec, "replay")
    assert ran == [1, 2]
    assert result["capacity"] is None and result["interrupted"]["after_point"] == 2
    assert "search interrupted after probe 2 (concurrency=2, cut short)" in \
        result["interrupted"]["note"]
    assert [p.get("interrupted") for p in result["points"]] == [None, True]


def test_resume_keeps_finished_points_and_starts_the_rest_anew(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ran = fake_points(monkeypatch, lambda n: "done")
    for n, reason in ((1, "done"), (2, "interrupted")):
        folder = tmp_path / f"concurrency-{n}"
        folder.mkdir()
        (folder / "records.jsonl").write_text("{}\n")
        (folder / "summary.json").write_text(json.dumps(summary(folder, reason)))
    seen: list[tuple[float, Path | None]] = []
    real = sweep.point_options

    def point_options(*args: Any) -> CommonOptions:
        point = real(*args)
        seen.append((point.concurrency or 0, point.resume or point.out))
        return point

    monkeypatch.setattr(sweep, "point_options", point_options)
    opts = options(tmp_path, sweep="concurrency=1,2,4", resume=str(tmp_path))
    assert opts.sweep is not None
    result = sweep.run_sweep(workload(), opts, opts.sweep, "replay")
    assert ran == [2, 4] and "interrupted" not in result
    # the interrupted point is resumed, the one never started runs anew in its folder
    assert seen == [(2, tmp_path / "concurrency-2"), (4, tmp_path / "concurrency-4")]
    assert real(workload(), opts, "concurrency", 4.0, tmp_path / "concurrency-4").resume is None


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_segment_puts_back_the_handlers_it_replaced(loop: str) -> None:
    def mine(signum: int, frame: Any) -> None:
        raise AssertionError

    async def segment() -> None:
        segments._install_signals(asyncio.Event(), None)
        segments._remove_signals()

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, mine)
        if loop == "uvloop":
            uvloop = pytest.importorskip("uvloop")
            uvloop.run(segment())
        else:
            asyncio.run(segment())
        assert signal.getsignal(signal.SIGINT) is mine and signal.getsignal(signal.SIGTERM) is mine
    finally:
        for sig, handler in zip((signal.SIGINT, signal.SIGTERM), before, strict=True):
            signal.signal(sig, handler)
