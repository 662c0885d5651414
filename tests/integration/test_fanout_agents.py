"""Fan-out agents (#21 item 5) against the real simulator: a synthetic coordinator trace whose
subagents run at once (nested), each with its own history, joined before the coordinator's
merge call. The branches' requests overlap in time, the merge waits for the join, every call
is recorded with its branch, and the summary's fanout block holds join / branch / spread."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration


def test_subagents_run_at_once_and_join(sim_factory: Callable[..., Any],
                                        cli: Callable[..., Any], tmp_path: Path) -> None:
    trace = tmp_path / "fan.jsonl"
    built = cli("traces", "build", "synthetic", "--fanout", "3", "--depth", "2",
                "--sessions", "2", "--turns", "2", "--out", str(trace))
    assert built.returncode == 0, built.stderr
    assert "104 LLM calls" in built.stdout  # 2 x 2 x (2 + 3 x (2 + 3 x 2))
    again = tmp_path / "again.jsonl"
    cli("traces", "build", "synthetic", "--fanout", "3", "--depth", "2", "--sessions", "2",
        "--turns", "2", "--out", str(again))
    assert again.read_bytes() == trace.read_bytes()  # deterministic
    assert cli("validate", str(trace)).returncode == 0

    sim = sim_factory("--ttft-ms", "40", "--itl-ms", "2", "--output-tokens", "6")
    out = tmp_path / "run"
    res = cli("replay", str(trace), "--endpoint", sim.url, "--think-time", "none",
              "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["requests_ok"] == 104 and summary["counts"]["errors"] == 0
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    llm = [r for r in records if r.get("type") == "step" and r.get("kind") == "llm"]
    top = [r for r in llm if "branch" not in r]
    assert len(top) == 8 and len(llm) - len(top) == 96

    # the three first-level subagents of session 0, turn 0 are in flight together
    first = [r for r in llm if r["session_index"] == 0 and r["turn"] == 0
             and r.get("branch") in ("1.0", "1.1", "1.2") and r["step"] == 0]
    assert len(first) == 3
    assert max(r["t_sent_ns"] for r in first) < min(r["t_end_ns"] for r in first)
    # the merge call (step 2) is sent after every branch of its turn has ended
    for ti in (0, 1):
        ends = [r["t_end_ns"] for r in records if r.get("type") == "branch"
                and r["session_index"] == 0 and r["turn"] == ti]
        merge = next(r for r in top if r["session_index"] == 0 and r["turn"] == ti
                     and r["step"] == 2)
        assert len(ends) == 12 and merge["t_sent_ns"] >= max(ends)
    # a nested branch's path names its parent
    assert any(r.get("branch", "").count("/") == 1 for r in llm)

    fan = summary["fanout"]
    assert fan["groups"] == fan["groups_ok"] == 4 * 4  # 4 turns x (1 + 3 nested) groups
    assert fan["branches"] == fan["branches_ok"] == 4 * 12
    assert fan["width"]["mean"] == 3.0
    turn = summary["latency_ms"]["turn"]["mean"]
    sequential = 26 * summary["latency_ms"]["request"]["mean"]
    assert turn < 0.6 * sequential  # the subagents overlapped
    assert fan["join_ms"]["p50"] >= fan["branch_ms"]["p50"]
    assert "Fan-out   : 16/16 groups ok" in (out / "summary.txt").read_text()
    html = (out / "report.html").read_text()
    assert 'id="table-fanout"' in html and "straggler spread" in html


def test_live_history_refuses_a_fanout_trace(cli: Callable[..., Any], tmp_path: Path) -> None:
    """Live history would skip the branches without a word: refused before anything is sent
    (the endpoint here does not even exist)."""
    trace = tmp_path / "fan.jsonl"
    assert cli("traces", "build", "synthetic", "--sessions", "1", "--out",
               str(trace)).returncode == 0
    res = cli("replay", str(trace), "--history", "live", "--endpoint", "http://127.0.0.1:9/v1")
    assert res.returncode == 2 and "--history live does not replay branches" in res.stderr


def test_an_otel_trace_with_subagents_replays_as_a_fanout(sim_factory: Callable[..., Any],
                                                          cli: Callable[..., Any],
                                                          tmp_path: Path) -> None:
    """A public format with subagents (OpenTelemetry GenAI: invoke_agent spans under the
    coordinator's) imported and replayed: the two researchers run at once and are joined."""
    source = Path(__file__).parents[1] / "data" / "importers" / "otel_genai_subagents.json"
    trace = tmp_path / "t.jsonl"
    res = cli("import", "auto", str(source), "--out", str(trace))
    assert res.returncode == 0 and "(otel-genai)" in res.stdout, res.stderr
    sim = sim_factory("--ttft-ms", "30", "--itl-ms", "1", "--output-tokens", "4")
    out = tmp_path / "run"
    res = cli("replay", str(trace), "--endpoint", sim.url, "--think-time", "none",
              "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["requests_ok"] == 6
    fan = summary["fanout"]
    assert fan["groups_ok"] == 1 and fan["branches_ok"] == 2 and fan["width"]["mean"] == 2.0
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    firsts = [r for r in records if r.get("type") == "step" and r.get("kind") == "llm"
              and r.get("branch") in ("1.0", "1.1") and r["step"] == 0]
    assert max(r["t_sent_ns"] for r in firsts) < min(r["t_end_ns"] for r in firsts)
