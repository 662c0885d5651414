"""Each load scenario end to end against the simulator (small and fast)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def run(cli, sim, trace: Path, out: Path, *args: str) -> tuple[dict, list[dict]]:
    res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(out), "--quiet", *args)
    assert res.returncode in (0, 3), res.stderr
    recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    return json.loads((out / "summary.json").read_text()), recs


def sessions(recs: list[dict]) -> list[dict]:
    return sorted((r for r in recs if r["type"] == "session"), key=lambda r: r["t_scheduled_ns"])


def test_single_multi_offline(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "30", "--itl-ms", "1", "--output-tokens", "4")
    trace = trace_factory(8)
    s, recs = run(cli, sim, trace, tmp_path / "ss")
    ss = sessions(recs)
    assert s["counts"]["sessions"] == 8
    assert all(b["t_scheduled_ns"] >= a["t_end_ns"] for a, b in itertools.pairwise(ss))
    s, recs = run(cli, sim, trace, tmp_path / "ms", "--scenario", "multi-stream",
                  "--concurrency", "4")
    starts = sorted({r["t_scheduled_ns"] for r in sessions(recs)})
    assert len(starts) == 2  # two lockstep batches of 4
    s, recs = run(cli, sim, trace, tmp_path / "off", "--scenario", "offline",
                  "--concurrency", "8")
    ss = sessions(recs)
    assert max(r["t_scheduled_ns"] for r in ss) - min(r["t_scheduled_ns"] for r in ss) < 20e6


def test_trace_timed_and_turn_timeout(sim_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "10", "--itl-ms", "1", "--output-tokens", "4")
    trace = tmp_path / "timed.jsonl"
    rows = [{"schema_version": "1", "session_id": f"s{i}", "start_offset_s": off,
             "turns": [{"user": "q", "steps": [{"kind": "llm"}]}]}
            for i, off in enumerate([0.0, 0.3, 0.6])]
    trace.write_text("".join(json.dumps(r) + "\n" for r in rows))
    s, recs = run(cli, sim, trace, tmp_path / "tt", "--scenario", "trace-timed")
    ss = sessions(recs)
    gaps = [(b["t_scheduled_ns"] - a["t_scheduled_ns"]) / 1e9 for a, b in itertools.pairwise(ss)]
    assert gaps == pytest.approx([0.3, 0.3], abs=0.01)
    slow = sim_factory("--ttft-ms", "500", "--itl-ms", "1", "--output-tokens", "4")
    s, recs = run(cli, slow, trace, tmp_path / "to", "--turn-timeout", "0.2")
    assert s["counts"]["missing_turns"] == 3 and s["result"] == "INVALID"
    assert {r["status"] for r in recs if r["type"] == "turn"} == {"timeout"}


def test_duration_and_max_errors(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "20", "--itl-ms", "1", "--output-tokens", "4")
    s, _ = run(cli, sim, trace_factory(5), tmp_path / "d", "--scenario", "concurrency",
               "--concurrency", "2", "--duration", "1")
    assert s["stop_reason"] == "duration" and 10 < s["counts"]["sessions"] < 200
    failing = sim_factory("--fail-rate", "1.0")
    s, _ = run(cli, failing, trace_factory(50, name="f.jsonl"), tmp_path / "e",
               "--max-errors", "5")
    assert s["stop_reason"] == "max_errors" and s["counts"]["errors"] == 5


def test_a_run_whose_requests_all_fail_stops_and_says_why(sim_factory, trace_factory, cli,
                                                          tmp_path: Path) -> None:
    """#30 item 4: a run in which every request failed ran to its end and the banner read
    "complete: True · failed: missing_turns", the cause only near the bottom of the report."""
    failing = sim_factory("--fail-rate", "1.0")
    res = cli("replay", str(trace_factory(200, name="many.jsonl")), "--endpoint", failing.url,
              "--scenario", "concurrency", "--concurrency", "2", "--out", str(tmp_path / "f"))
    assert res.returncode == 3
    s = json.loads((tmp_path / "f" / "summary.json").read_text())
    assert s["stop_reason"] == "all_failed" and not s["complete"]
    assert 8 <= s["counts"]["requests"] < 20  # stopped after the first 8, not 200
    n = s["counts"]["requests"]
    assert s["failure"] == f"{n}/{n} requests failed: HTTP 500: injected failure"
    assert "stopping: the first 8 requests all failed" in res.stderr
    text = (tmp_path / "f" / "summary.txt").read_text()
    head = text.split("Complete")[0]
    assert f"{n}/{n} requests failed: HTTP 500" in head  # in the banner, not at the bottom
    assert f"{n}/{n} requests failed" in res.stdout
    html = (tmp_path / "f" / "report.html").read_text()
    verdict = html[html.index('id="section-verdict"'):html.index("</section>")]
    assert "requests failed: HTTP 500" in verdict
    off = cli("replay", str(trace_factory(12, name="few.jsonl")), "--endpoint", failing.url,
              "--stop-after-failures", "0", "--out", str(tmp_path / "g"), "--quiet")
    s = json.loads((tmp_path / "g" / "summary.json").read_text())
    assert off.returncode == 3 and s["counts"]["requests"] == 12 and s["stop_reason"] == "done"
