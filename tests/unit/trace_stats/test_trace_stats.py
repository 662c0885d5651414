from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest

from agentic_bench.cli import traces_cmd
from agentic_bench.cli.errors import run_command
from agentic_bench.trace import TraceFile
from agentic_bench.trace.model import Session
from agentic_bench.trace.stats import render_stats, shared_block_fraction, trace_stats

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "traces" / "sample.jsonl"
MOONCAKE = ROOT / "tests" / "data" / "importers" / "mooncake.jsonl"


def session(sid: str, user: str, offset: float | None = None, **llm: object) -> Session:
    data = {"schema_version": "1", "session_id": sid, "turns": [
        {"user": user, "steps": [{"kind": "llm", **llm}]}]}
    if offset is not None:
        data["start_offset_s"] = offset
    return Session.model_validate(data)


def test_shared_block_fraction_counts_whole_prefix_hits() -> None:
    assert shared_block_fraction([]) == (0, 0)
    assert shared_block_fraction([[1, 2, 3], [1, 2, 4], [9, 2, 3]]) == (2, 9)
    # a block matching an earlier one at another depth is not a prefix hit
    assert shared_block_fraction([[1, 2], [2, 1]]) == (0, 4)
    assert shared_block_fraction([["ab", "c"], ["ab", "cd"]], weight=len) == (2, 7)


def test_sample_trace_stats() -> None:
    stats = trace_stats(TraceFile(SAMPLE))
    assert (stats["sessions"], stats["turns"], stats["requests"]) == (3, 6, 8)
    assert stats["tool_calls"]["total"] == 2
    assert stats["tool_calls"]["by_name"] == {"get_weather": 1, "search_flights": 1}
    assert stats["input_tokens"]["source"] == {"usage": 6, "estimate": 2}
    assert stats["output_tokens"]["count"] == 8
    assert stats["think_time_s"]["count"] == 3 and stats["tool_step_ms"]["count"] == 2
    assert 0.3 < stats["prefix_sharing"]["ratio"] < 0.9
    text = render_stats(stats, "sample")
    assert "prefix sharing" in text and "estimate = chars/4" in text


def test_estimates_and_prefix_ratio_of_identical_sessions() -> None:
    a = session("a", "x" * 400, output={"content": "y" * 40})
    b = session("b", "x" * 400, output={"content": "y" * 40})
    stats = trace_stats([a, b], block_chars=16)
    request_chars = len("<user>" + "x" * 400)
    assert stats["input_tokens"]["p50"] == math.ceil(request_chars / 4)
    assert stats["input_tokens"]["source"] == {"estimate": 2}
    assert stats["output_tokens"]["p50"] == 10
    assert stats["prefix_sharing"]["ratio"] == pytest.approx(0.5)
    c = session("c", "z" * 400)
    assert trace_stats([a, c])["prefix_sharing"]["ratio"] == 0.0
    assert trace_stats([c])["output_tokens"]["source"] == {"unknown": 1}


def test_order_follows_start_offsets() -> None:
    late = session("late", "q" * 200, offset=5.0, usage={"input_tokens": 7})
    early = session("early", "q" * 200 + "tail", offset=1.0, usage={"input_tokens": 9})
    stats = trace_stats([late, early], block_chars=8)
    assert stats["arrival_span_s"] == 4.0
    shared = stats["prefix_sharing"]["shared_chars"]
    assert shared == len("<user>" + "q" * 200) // 8 * 8  # late repeats early's full blocks


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    traces_cmd.register(parser.add_subparsers())
    return parser


def test_traces_stats_cli(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parser().parse_args(["traces", "stats", str(SAMPLE), "--json"])
    assert run_command(args.func, args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "native" and data["sessions"] == 3
    args = _parser().parse_args(["traces", "stats", str(MOONCAKE)])
    assert run_command(args.func, args) == 0
    out = capsys.readouterr().out
    assert "(mooncake)" in out and "sessions 48" in out
    args = _parser().parse_args(["traces", "stats", "/nonexistent.jsonl"])
    assert run_command(args.func, args) == 2


def test_traces_group_accepts_new_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    def configure(p: argparse.ArgumentParser) -> None:
        p.add_argument("name")
        p.set_defaults(func=lambda a: print(f"built {a.name}") or 0)

    traces_cmd.add_traces_subcommand("build-test", configure, help="test only")
    try:
        args = _parser().parse_args(["traces", "build-test", "x"])
        assert run_command(args.func, args) == 0
        assert capsys.readouterr().out == "built x\n"
    finally:
        traces_cmd._SUBCOMMANDS.pop("build-test")
    args = _parser().parse_args(["traces"])
    assert run_command(args.func, args) == 2
