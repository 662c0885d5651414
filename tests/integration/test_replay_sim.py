"""The harness end to end over a real loopback socket against the latency simulator."""

from __future__ import annotations

import itertools
import json
import statistics
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def load(out: Path) -> tuple[dict, list[dict]]:
    summary = json.loads((out / "summary.json").read_text())
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    return summary, records


def test_timings_match_injected_truth(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "100", "--itl-ms", "10", "--output-tokens", "64")
    trace = trace_factory(200)
    out = tmp_path / "run"
    res = cli("replay", str(trace), "--endpoint", sim.url, "--scenario", "concurrency",
              "--concurrency", "8", "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    s, records = load(out)
    lat = s["latency_ms"]
    assert s["counts"]["requests"] == 200 and s["counts"]["errors"] == 0
    assert abs(lat["ttft"]["p50"] - 100) <= 3, lat["ttft"]
    assert abs(lat["itl"]["p50"] - 10) <= 1, lat["itl"]
    assert abs(lat["request"]["p50"] - 730) <= 5, lat["request"]
    assert lat["itl"]["count"] == 200 * 63
    assert s["harness"]["token_source"] == {"usage": 200}
    assert lat["tpot"]["p50"] == pytest.approx(10, abs=0.5)
    for key in ("sessions", "requests", "errors", "missing_turns"):
        assert key in s["counts"]
    assert set(s["throughput"]) == {"requests_per_s", "output_tokens_per_s", "sessions_per_s"}
    assert {"p50", "p99"} <= set(s["harness"]["schedule_lag_ms"])
    assert s["result"] == "VALID" and s["complete"] is True
    steps = [r for r in records if r["type"] == "step"]
    assert len(steps) == 200 and all("schedule_lag_ms" in r for r in steps)
    assert (out / "summary.txt").read_text().count("Result is : VALID") == 1
    ceiling = s["workload"]["prefix_ceiling"]  # computed from the trace before the run
    assert 0 <= ceiling["ratio"] <= 1 and ceiling["block_chars"] == 64
    assert "Prefix reuse ceiling" in (out / "summary.txt").read_text()
    assert s["interactivity"]["e2e_avg_interactivity"] == pytest.approx(
        64 * 200 / sum(r["request_ms"] for r in steps) * 1000)


def test_server_scenario_rate_and_schedule(sim_factory, trace_factory, cli,
                                           tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "8")
    trace = trace_factory(50)
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        res = cli("replay", str(trace), "--endpoint", sim.url, "--scenario", "server",
                  "--rate", "20", "--duration", "30", "--seed", "42", "--out", str(out),
                  "--quiet", timeout=120)
        assert res.returncode == 0, res.stderr
        runs.append(load(out))
        if name == "a":
            s, records = runs[0]
            sends = sorted(r["t_sent_ns"] / 1e9 for r in records if r["type"] == "step")
            achieved = (len(sends) - 1) / (sends[-1] - sends[0])
            assert abs(achieved - 20) / 20 <= 0.05, achieved
            gaps = [b - a for a, b in itertools.pairwise(sends)]
            cv = statistics.pstdev(gaps) / statistics.fmean(gaps)
            assert 0.9 <= cv <= 1.1, cv
            assert s["harness"]["schedule_lag_ms"]["p99"] < 20
            break
    sched = sorted(r["t_scheduled_ns"] for r in runs[0][1] if r["type"] == "step")
    from agentic_bench.load import poisson_arrivals

    expect = [int(t * 1e9) for t in poisson_arrivals(20.0, 42, count=600)]
    assert len(sched) == 600
    # scheduled offsets are the pure generator's schedule, anchored at the runner's start
    start = sched[0] - expect[0]
    assert max(abs((s - start) - e) for s, e in zip(sched, expect, strict=True)) < 2_000_000


def test_live_history_and_tool_matching(sim_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "1", "--output-tokens", "4",
                      "--tool-call", "lookup")
    trace = tmp_path / "t.jsonl"
    session = {"schema_version": "1", "session_id": "x", "tools": [
        {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}],
        "turns": [{"user": "go", "steps": [
            {"kind": "llm", "output": {"tool_calls": [{"name": "lookup",
                                                        "arguments": {"x": 0}}]}},
            {"kind": "tool", "name": "lookup", "arguments": {"x": 0}, "result": "42",
             "duration_ms": 20},
            {"kind": "llm", "output": {"content": "done"}}]}]}
    trace.write_text(json.dumps(session) + "\n")
    out = tmp_path / "rec"
    res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    s, records = load(out)
    assert s["tool_calls"] == {"scored": 2, "matched": 1, "match_rate": 0.5}
    assert s["stages_ms"]["tool"]["p50"] == pytest.approx(20, abs=3)
    out = tmp_path / "live"
    res = cli("replay", str(trace), "--endpoint", sim.url, "--history", "live",
              "--think-time", "none", "--out", str(out), "--quiet")
    s, records = load(out)
    # the sim always calls the tool, so a live turn runs until the 25-step limit
    assert s["counts"]["requests"] == 25
    turn = next(r for r in records if r["type"] == "turn")
    assert turn["unmatched_tool_calls"] == 0 and turn["llm_calls"] == 25


def test_faults_are_records_not_losses(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "100", "--itl-ms", "10", "--output-tokens", "16",
                      "--fail-rate", "0.1", "--hang-rate", "0.1", "--disconnect-rate", "0.1",
                      "--malformed-rate", "0.1", "--seed", "3")
    trace = trace_factory(500)
    out = tmp_path / "f"
    res = cli("replay", str(trace), "--endpoint", sim.url, "--scenario", "concurrency",
              "--concurrency", "16", "--request-timeout", "1.5", "--out", str(out), "--quiet",
              timeout=300)
    assert res.returncode == 3, res.stderr  # missing turns make the run INVALID
    s, records = load(out)
    c = s["counts"]
    steps = [r for r in records if r["type"] == "step"]
    assert len(steps) == 500 and len({r["session_id"] for r in steps}) == 500  # each once
    assert c["requests"] == 500 and c["requests_ok"] + c["errors"] == 500
    assert set(c["errors_by_type"]) == {"http_status", "timeout", "disconnect", "malformed"}
    assert 0.3 * 500 < c["errors"] < 0.5 * 500
    assert c["missing_turns"] == c["errors"]
    disconnects = [r for r in steps if r.get("error_type") == "disconnect"]
    assert any(r.get("output_tokens", 0) > 0 for r in disconnects)  # tokens so far are kept
    lat = s["latency_ms"]
    assert lat["ttft"]["count"] == c["requests_ok"]
    assert abs(lat["ttft"]["p50"] - 100) <= 3 and abs(lat["itl"]["p50"] - 10) <= 1


def test_retries_are_recorded(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "4",
                      "--fail-rate", "0.3", "--seed", "5")
    out = tmp_path / "r"
    res = cli("replay", str(trace_factory(100)), "--endpoint", sim.url, "--retries", "5",
              "--scenario", "concurrency", "--concurrency", "8", "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    s, records = load(out)
    retried = [r for r in records if r.get("status") == "retried"]
    assert s["counts"]["retries"] == len(retried) > 10
    assert s["counts"]["requests"] == s["counts"]["requests_ok"] == 100
    assert all(r["error_type"] == "http_status" for r in retried)
    assert max(r.get("attempt", 0) for r in records if r["type"] == "step") >= 1


def test_transport_from_the_command_line(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "8")
    trace = trace_factory(10)
    for kind, cls in (("aiohttp", "AiohttpChatClient"), (None, "RawChatClient")):
        out = tmp_path / str(kind)
        extra = ["--transport", kind] if kind else []
        res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(out), "--quiet",
                  *extra, env={"AGENTIC_BENCH_TRANSPORT": ""})
        assert res.returncode == 0, res.stderr
        s, _ = load(out)
        assert s["endpoint"]["client"] == cls and s["counts"]["requests_ok"] == 10
        assert s["config"].get("transport") == kind


def test_prefix_cache_model_hit_rate_equals_the_ceiling(sim_factory, cli, tmp_path: Path) -> None:
    """#21 acceptance: a simulator that reports cached tokens for a shared prefix (its
    prefix-cache model counts what the trace's ceiling counts) gives a run hit rate equal to
    the ceiling, on MLCommons' coding conversations and on a fan-out trace; each position row
    carries its within-session ceiling."""
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--output-tokens", "2",
                      "--prefix-cache")
    fan = tmp_path / "fan.jsonl"
    assert cli("traces", "build", "synthetic", "--fanout", "2", "--turns", "2",
               "--sessions", "3", "--out", str(fan)).returncode == 0
    coding = Path(__file__).parents[1] / "data" / "mlcommons_edge" / \
        "agentic_coding_excerpt.jsonl"
    for n, (trace, fmt) in enumerate(((coding, "mlcommons-agentic"), (fan, "native"))):
        out = tmp_path / f"run{n}"
        res = cli("replay", str(trace), "--format", fmt, "--endpoint", sim.url,
                  "--think-time", "none", "--out", str(out), "--quiet")
        assert res.returncode == 0, res.stderr
        summary = json.loads((out / "summary.json").read_text())
        block, ceiling = summary["prefix_cache"], summary["workload"]["prefix_ceiling"]
        assert block["requests_reporting"] == summary["counts"]["requests_ok"]
        assert block["hit_rate"] == pytest.approx(ceiling["ratio"], abs=1e-12)
        assert all("ceiling" in row for row in block["by_request_position"])
        assert block["by_request_position"][0]["ceiling"] == 0.0
    text = (out / "summary.txt").read_text()
    assert "Prefix cache vs ceiling by request position: 0:" in text
