"""#44 item 3 for repeated runs: ``compare A B`` where a side is a ``--repeat`` folder
(``repeat.json`` beside ``rep-1/`` … ``rep-N/``, shaped as run/repeat.py writes them) judges
each metric across the runs, shows each side's mean and between-run spread, keeps the gate's
exit codes (0 / 3 / 4) and refuses repetitions that did different work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.reporting.ab_compare import load_side, side_run_names, side_verdicts

WORKLOAD = {"benchmark": "replay", "trace": "traces/sample.jsonl", "trace_sessions": 3}


def _summary(p99: float, rps: float) -> dict[str, Any]:
    """The parts of a real summary.json compare reads (a --repeat 3 run on the simulator)."""
    return {"schema": "agentic-bench/summary", "benchmark": "replay", "complete": True,
            "duration_s": 0.25, "result": "VALID", "counts": {"errors": 0},
            "latency_ms": {"ttft": {"count": 8, "mean": p99 / 2, "p50": p99 / 2,
                                    "p90": p99 * 0.9, "p99": p99}},
            "throughput": {"requests_per_s": rps, "output_tokens_per_s": rps * 8},
            "workload": {"trace": WORKLOAD["trace"], "trace_sessions": 3},
            "intervals": {"latency_ms": {"ttft": {"p99": [p99 * 0.95, p99 * 1.05]}}}}


def _repeat_folder(root: Path, p99s: list[float], rps: float = 30.0,
                   max_tokens: list[int | None] | None = None) -> Path:
    root.mkdir(parents=True)
    for k, p99 in enumerate(p99s, 1):
        rep = root / f"rep-{k}"
        rep.mkdir()
        (rep / "summary.json").write_text(json.dumps(_summary(p99, rps + k / 10)))
        tokens = (max_tokens or [None] * len(p99s))[k - 1]
        head = {"type": "run", "record_version": 2, "benchmark": "replay", "workload": WORKLOAD,
                "options": {"trace": WORKLOAD["trace"], "max_tokens": tokens, "seed": 42,
                            "repeat": 1, "endpoint": f"http://{root.name}/v1"}}
        (rep / "records.jsonl").write_text(json.dumps(head) + "\n")
    (root / "repeat.json").write_text(json.dumps({"schema": "agentic-bench/repeat",
                                                  "runs": len(p99s)}))
    return root


def test_a_repeat_folder_is_one_side_of_its_repetitions(tmp_path: Path) -> None:
    folder = _repeat_folder(tmp_path / "a", [100.0, 101.0, 99.0, 98.0, 102.0, 97.0, 100.0,
                                             103.0, 99.0, 101.0])
    side = load_side(folder, "repeat.json")
    assert side.repeated and [r.name for r in side.runs][:3] == ["rep-1", "rep-2", "rep-3"]
    assert side.runs[-1].name == "rep-10"  # in order of K, not of the name's letters
    assert side_run_names(["a"], [side])[9] == "a/rep-10"
    single = load_side(folder / "rep-1", "repeat.json")
    assert not single.repeated and single.runs == (folder / "rep-1",)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "repeat.json").write_text("{}")
    from agentic_bench.errors import UsageError

    with pytest.raises(UsageError, match="without a finished repetition"):
        load_side(tmp_path / "empty", "repeat.json")


def test_side_verdicts_across_runs(tmp_path: Path) -> None:
    a = load_side(_repeat_folder(tmp_path / "a", [100.0, 101.0, 99.0]), "repeat.json")
    b = load_side(_repeat_folder(tmp_path / "b", [110.0, 111.0, 109.0]), "repeat.json")
    sums = [[json.loads((r / "summary.json").read_text()) for r in s.runs] for s in (a, b)]

    def no_sessions(*_: Any) -> Any:
        raise AssertionError("repeat sides are judged from the runs' values, not sessions")

    [rows] = side_verdicts([a, b], sums, ["ttft_p99_ms", "requests_per_s"], 0.05, no_sessions)
    assert [r["verdict"] for r in rows] == ["WORSE", "SAME"]
    assert rows[0]["a_values"] == [100.0, 101.0, 99.0] and "Welch t" in rows[0]["test"]


def _compare(tmp_path: Path, capsys: pytest.CaptureFixture[str], a: Path, b: Path,
             *extra: str) -> tuple[int, str]:
    from agentic_bench.cli.main import main

    code = main(["compare", str(a), str(b), "--metric", "ttft_p99_ms", "--threshold", "5%",
                 "--gate", "--out", str(tmp_path / "cmp"), *extra])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_compare_gate_on_repeat_folders(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    a = _repeat_folder(tmp_path / "a", [100.0, 101.0, 99.0])
    worse = _repeat_folder(tmp_path / "worse", [110.0, 111.0, 109.0])
    same = _repeat_folder(tmp_path / "same", [100.2, 99.8, 100.6])
    wide = _repeat_folder(tmp_path / "wide", [90.0, 112.0, 125.0])
    code, out = _compare(tmp_path, capsys, a, worse)
    assert code == 3 and "gate: WORSE (exit 3)" in out, out
    assert "across 3 vs 3 runs, Welch t on log values" in out
    assert "A 100.00 ± 1.00 sd (3 runs), B 110.00 ± 1.00 sd (3 runs)" in out
    assert "a/rep-3" in out and "worse/rep-1" in out  # the headline table shows every run
    html = (tmp_path / "cmp" / "compare.html").read_text()
    assert "100.00 ± 1.00 sd (3 runs)" in html and "Welch t on log values" in html
    code, out = _compare(tmp_path, capsys, a, same)
    assert code == 0 and "ttft_p99_ms  SAME" in out, out
    code, out = _compare(tmp_path, capsys, a, wide)
    assert code == 4 and "ttft_p99_ms  INCONCLUSIVE" in out, out
    code, out = _compare(tmp_path, capsys, a, wide, "--inconclusive", "pass")
    assert code == 0, out
    # one side a single run: judged against the repeated side's spread, and said so — 10 %
    # apart, yet the interval (t at 2 degrees of freedom) reaches into the 5 % threshold
    code, out = _compare(tmp_path, capsys, worse / "rep-1", a)
    assert "across 1 vs 3 runs" in out and "one run on a side" in out
    assert code == 4 and "B/A 0.909 [0.865, 0.955] straddles" in out, out


def test_repetitions_that_did_different_work_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _repeat_folder(tmp_path / "a", [100.0, 101.0, 99.0])
    other = _repeat_folder(tmp_path / "other", [100.0, 101.0, 99.0], max_tokens=[None, 4, None])
    code, out = _compare(tmp_path, capsys, a, other)
    assert code == 2 and "other/rep-2: --max-tokens 4 vs None" in out, out
    code, out = _compare(tmp_path, capsys, a, other, "--allow-different-workloads")
    assert code == 0 and "ttft_p99_ms  SAME" in out, out
