"""A sweep's points match single runs at the same load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def test_concurrency_sweep_matches_single_runs(sim_factory, trace_factory, cli,
                                               tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "50", "--itl-ms", "5", "--output-tokens", "10")
    trace = trace_factory(24)
    common = ["replay", str(trace), "--endpoint", sim.url, "--scenario", "concurrency",
              "--quiet"]
    res = cli(*common, "--sweep", "concurrency=1,4,8", "--out", str(tmp_path / "sw"))
    assert res.returncode == 0, res.stderr
    sweep = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert [p["concurrency"] for p in sweep["points"]] == [1, 4, 8]
    html = (tmp_path / "sw" / "sweep.html").read_text()
    assert 'id="plot-sweep-latency"' in html and "<svg" in html
    for point in sweep["points"]:
        n = int(point["concurrency"])
        out = tmp_path / f"single-{n}"
        # a point cycles the trace to 10 sessions per stream (at least one pass) so it holds
        # its load; the same options run alone give the same figures
        sessions = str(max(24, 10 * n))
        assert cli(*common, "--concurrency", str(n), "--sessions", sessions, "--out",
                   str(out)).returncode == 0
        single = json.loads((out / "summary.json").read_text())
        assert single["counts"]["requests"] == int(sessions)
        assert not point.get("short") and point["in_flight_max"] == n
        # each run is within ±3 ms of the injected truth, so two runs agree within 6 ms
        assert point["ttft_p50_ms"] == pytest.approx(single["latency_ms"]["ttft"]["p50"], abs=6)
        assert point["requests_per_s"] == pytest.approx(
            single["throughput"]["requests_per_s"], rel=0.15)
    rps = [p["requests_per_s"] for p in sweep["points"]]
    assert rps[0] < rps[1] < rps[2]


def test_sweep_rejects_bad_spec(trace_factory, cli) -> None:
    res = cli("replay", str(trace_factory(2)), "--endpoint", "http://127.0.0.1:9/v1",
              "--sweep", "speed=1,2")
    assert res.returncode == 2 and "expected rate=" in res.stderr


SAMPLE = Path(__file__).resolve().parents[2] / "traces" / "sample.jsonl"


def test_concurrency_without_a_closed_loop_is_refused(cli) -> None:
    """#30 item 1: `--concurrency 4` with the default single-stream was accepted and ignored."""
    res = cli("replay", str(SAMPLE), "--endpoint", "http://127.0.0.1:9/v1", "--concurrency", "4")
    assert res.returncode == 2 and "--concurrency 4 does nothing" in res.stderr
    assert "--scenario concurrency" in res.stderr


def test_a_sweep_point_reaches_and_names_its_load(sim_factory, cli, tmp_path: Path) -> None:
    """#30 items 1 and 3: the README's `--sweep concurrency=1,4,16` over the 3-session sample
    ran single-stream at every point (3.26 req/s at all three) and recorded the base options;
    each point now runs a closed loop of its streams over the trace cycled to hold them, says
    what it reached, and records its own options (compare names the difference)."""
    sim = sim_factory("--ttft-ms", "20", "--itl-ms", "1", "--output-tokens", "8")
    out = tmp_path / "sw"
    res = cli("replay", str(SAMPLE), "--endpoint", sim.url, "--think-time", "none",
              "--sweep", "concurrency=1,4,16", "--out", str(out))
    assert res.returncode == 0, res.stderr
    points = json.loads((out / "sweep.json").read_text())["points"]
    assert [p["in_flight_max"] for p in points] == [1, 4, 16]
    assert not any(p.get("short") for p in points)
    rps = [p["requests_per_s"] for p in points]
    assert rps[0] * 2 < rps[1] and rps[1] * 2 < rps[2]
    for p in points:
        n = int(p["concurrency"])
        run = json.loads((out / f"concurrency-{n}" / "records.jsonl").read_text().splitlines()[0])
        assert run["options"]["concurrency"] == n and run["options"]["scenario"] == "concurrency"
        assert run["options"]["sessions"] == max(3, 10 * n) and run["options"]["sweep"] is None
        text = (out / f"concurrency-{n}" / "summary.txt").read_text()
        assert f"max {n} of {n} named" in text and "SHORT" not in text
    res = cli("compare", str(out / "concurrency-1"), str(out / "concurrency-16"), "--out",
              str(tmp_path / "cmp"))
    assert res.returncode == 0 and "the same in every run" not in res.stdout
    assert any(line.split()[:1] == ["--concurrency"] for line in res.stdout.splitlines())


def test_a_point_that_cannot_reach_its_load_is_marked(sim_factory, cli, tmp_path: Path) -> None:
    """With --sessions fixed below the streams the load cannot be reached: the run says so."""
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "4")
    out = tmp_path / "short"
    res = cli("replay", str(SAMPLE), "--endpoint", sim.url, "--think-time", "none",
              "--scenario", "concurrency", "--concurrency", "8", "--sessions", "3",
              "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["load"]["sessions_in_flight"]["max"] == 3
    assert "at most 3 sessions were ever in flight of the 8 named" in summary["load"]["short"]
    assert "SHORT: at most 3" in (out / "summary.txt").read_text()


def test_a_search_over_a_short_trace_finds_the_true_capacity(sim_factory, cli,
                                                             tmp_path: Path) -> None:
    """#30 item 1: a 3-session trace searched up to 64 streams reported "capacity 64 (HI
    passes)": no point had more than 3 sessions in flight. The simulator adds 10 ms of TTFT per
    other reply in flight (TTFT = 5 + 10 (c − 1) ms): under ttft_p99_ms=50 the capacity is 5."""
    sim = sim_factory("--ttft-ms", "5", "--ttft-per-inflight-ms", "10", "--itl-ms", "1",
                      "--output-tokens", "4")
    out = tmp_path / "search"
    res = cli("replay", str(SAMPLE), "--endpoint", sim.url, "--think-time", "none",
              "--scenario", "concurrency", "--search", "concurrency=1:64",
              "--slo", "ttft_p99_ms=50", "--out", str(out))
    assert res.returncode == 0, res.stderr
    result = json.loads((out / "search.json").read_text())
    assert result["capacity"] == 5, [(p["concurrency"], p["meets"]) for p in result["points"]]
    assert all(p["in_flight_max"] == p["concurrency"] for p in result["points"])


def test_a_sweep_says_which_point_runs(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    """#42 (smaller items): a sweep never said which point was running."""
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "4")
    res = cli("replay", str(trace_factory(4)), "--endpoint", sim.url, "--scenario",
              "concurrency", "--sweep", "concurrency=1,2", "--out", str(tmp_path / "sw"))
    assert res.returncode == 0, res.stderr
    assert f"point 1/2: concurrency=1 -> {tmp_path / 'sw' / 'concurrency-1'}" in res.stderr
    assert "point 2/2: concurrency=2" in res.stderr
