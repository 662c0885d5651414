"""``agentic-bench report DIR`` on a saved run reproduces the run's own summary numbers, and
``compare`` prints ratios against the first run."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from agentic_bench.cli.errors import run_command

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
SAME = ("counts", "latency_ms", "stages_ms", "throughput", "goodput", "tool_calls",
        "constraints", "result", "complete", "duration_s", "harness")


def command(*argv: str) -> int:
    from agentic_bench.cli import compare_cmd, report_cmd

    parser = argparse.ArgumentParser(prog="agentic-bench")
    sub = parser.add_subparsers()
    report_cmd.register(sub)
    compare_cmd.register(sub)
    args = parser.parse_args(list(argv))
    return run_command(args.func, args)


def saved_run(sim_factory, cli, out: Path, *extra: str) -> dict:
    sim = sim_factory("--ttft-ms", "15", "--itl-ms", "2", "--fail-rate", "0.1", "--seed", "3")
    res = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url,
              "--sessions", "18", "--scenario", "concurrency", "--concurrency", "3",
              "--think-time", "scaled:0.02", "--slo", "ttft_p99_ms=1000", "--out", str(out),
              "--quiet", *extra)
    assert res.returncode in (0, 3), res.stderr
    return json.loads((out / "summary.json").read_text())


def test_report_reproduces_the_run_summary(sim_factory, cli, tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    original = saved_run(sim_factory, cli, out)
    assert original["counts"]["errors"] > 0 and original["counts"]["requests"] > 20
    text_before = (out / "summary.txt").read_text()
    assert command("report", str(out)) == 0
    again = json.loads((out / "summary.json").read_text())
    for key in SAME:
        assert again[key] == original[key], key
    assert again == original
    assert (out / "summary.txt").read_text() == text_before
    html = (out / "report.html").read_text()
    assert 'id="plot-ttft-cdf"' in html and original["result"] in html
    assert "wrote summary.json, summary.txt and report.html" in capsys.readouterr().out


def test_report_without_summary_json(sim_factory, cli, tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    original = saved_run(sim_factory, cli, out)
    (out / "summary.json").unlink()
    assert command("report", str(out)) == 0
    again = json.loads((out / "summary.json").read_text())
    for key in ("counts", "latency_ms", "stages_ms", "tool_calls"):
        assert again[key] == original[key], key
    # segment lines carry the run's duration, so rates match too
    assert again["duration_s"] == pytest.approx(original["duration_s"])
    assert again["throughput"] == pytest.approx(original["throughput"])
    assert again["complete"] is True
    assert "regenerated" in again
    assert "no summary.json" in capsys.readouterr().err


def test_report_needs_records(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert command("report", str(tmp_path / "empty")) == 2
    assert "no records.jsonl" in capsys.readouterr().err


def test_compare_two_runs(sim_factory, cli, tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    sa = saved_run(sim_factory, cli, a)
    saved_run(sim_factory, cli, b, "--concurrency", "2")
    assert command("compare", str(a), str(b), "--out", str(tmp_path / "cmp")) == 0
    text = capsys.readouterr().out
    ttft = next(line for line in text.splitlines() if line.startswith("TTFT p50"))
    assert ttft.split()[3] == f"{sa['latency_ms']['ttft']['p50']:.2f}"
    assert ttft.endswith("x)")
    # which options differ, from the run records (each run had its own simulator port)
    differ = text[text.index("options that differ:"):].splitlines()
    assert any(line.split() == ["--concurrency", "3", "2"] for line in differ), differ
    assert any(line.split()[0] == "--endpoint" for line in differ)
    assert not any(line.split()[0] in ("--out", "--quiet", "--sessions") for line in differ[1:])
    html = (tmp_path / "cmp" / "compare.html").read_text()
    assert 'id="table-option-differences"' in html and "--concurrency" in html
