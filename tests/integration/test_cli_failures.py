"""Bad input is an exit-2 error before anything is sent; interrupts lose nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def unused_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_help_is_fast(cli) -> None:
    t = time.perf_counter()
    res = cli("--help")
    assert res.returncode == 0 and "replay" in res.stdout
    assert time.perf_counter() - t < 1.0
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentic_bench", "--help"],
                         capture_output=True, text=True)
    for heavy in ("torch", "faiss", "sentence_transformers", "langgraph", "llama_cpp",
                  "datasets", "aiohttp", "pydantic"):
        assert f" {heavy}\n" not in res.stderr and f" {heavy}." not in res.stderr, heavy


def test_run_help_lists_every_benchmark(cli) -> None:
    for flag in ("--help", "-h"):
        res = cli("run", flag)
        assert res.returncode == 0, res.stderr
        for name in ("agentic-edge", "rag-e2e", "sample", "tau2-airline"):
            assert f"\n  {name} " in res.stdout, name
        assert "run BENCHMARK --help" in res.stdout
    res = cli("run")
    assert res.returncode == 2 and "benchmarks:" in res.stdout
    res = cli("run", "sample", "--help")
    assert res.returncode == 0 and "--trace TRACE" in res.stdout


GOOD = {"schema_version": "1", "session_id": "a", "turns": [{"user": "u"}]}
BAD_TRACES = {
    "malformed-json": b'{"schema_version": "1", "session_id": \n',
    "unknown-version": json.dumps({**GOOD, "session_id": "b", "schema_version": "7"}).encode(),
    "missing-field": b'{"schema_version": "1", "session_id": "b"}',
    "undeclared-tool": json.dumps({**GOOD, "session_id": "b", "turns": [{"user": "u", "steps": [
        {"kind": "tool", "name": "rm_rf"}, {"kind": "llm"}]}]}).encode(),
    "negative-think": json.dumps({**GOOD, "session_id": "b",
                                  "turns": [{"user": "u", "think_time_s": -2}]}).encode(),
    "duplicate-id": json.dumps(GOOD).encode(),
    "non-utf8": b'{"schema_version": "1", "session_id": "\xff\xfe"}',
}


@pytest.mark.parametrize("kind", sorted(BAD_TRACES))
def test_bad_trace_exits_2_and_sends_nothing(kind: str, sim_factory, cli,
                                             tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "1")
    trace = tmp_path / "bad.jsonl"
    trace.write_bytes(json.dumps(GOOD).encode() + b"\n" + BAD_TRACES[kind] + b"\n")
    res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(tmp_path / "o"))
    assert res.returncode == 2, res.stderr
    assert f"{trace}:2:" in res.stderr
    sim.stop()
    assert sim.requests == 0
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("case", ["unreachable", "unknown-model", "rejected-key", "no-key"])
def test_endpoint_problems_exit_2(case: str, sim_factory, trace_factory, cli,
                                  tmp_path: Path) -> None:
    trace = trace_factory(2)
    env = {"AB_TEST_KEY": "right-key"}
    if case == "unreachable":
        url, extra = f"http://127.0.0.1:{unused_port()}/v1", []
    elif case == "unknown-model":
        url, extra = sim_factory().url, ["--model", "gpt-9"]
    elif case == "rejected-key":
        url = sim_factory("--api-key-env", "AB_TEST_KEY", env=env).url
        extra = ["--api-key-env", "WRONG_KEY"]
        env["WRONG_KEY"] = "wrong-key"
    else:  # #30 item 14: no key at all was "rejected the API key"
        url = sim_factory("--api-key-env", "AB_TEST_KEY", env=env).url
        extra = ["--api-key-env", "NO_SUCH_KEY_VARIABLE"]
    res = cli("replay", str(trace), "--endpoint", url, *extra, "--out", str(tmp_path / "o"),
              env=env)
    assert res.returncode == 2, res.stderr
    text = {"unreachable": "cannot reach", "unknown-model": "gpt-9",
            "rejected-key": "rejected the credentials",
            "no-key": "wants credentials (HTTP 401) and none was sent"}[case]
    assert text in res.stderr


def test_an_unknown_option_says_which_and_the_nearest(cli) -> None:
    """#30 item 14: an unknown option printed 22 lines of usage, the error last."""
    res = cli("replay", "traces/sample.jsonl", "--concurency", "3")
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert lines == ["agentic-bench replay: error: unknown option --concurency (did you mean "
                     "--concurrency?)", "see `agentic-bench replay --help`"]


def test_api_key_never_written(sim_factory, trace_factory, cli, tmp_path: Path) -> None:
    sentinel = "sk-SENTINEL-0123456789abcdef"
    sim = sim_factory("--api-key-env", "SENTINEL_KEY", "--ttft-ms", "1", "--itl-ms", "1",
                      env={"SENTINEL_KEY": sentinel})
    out = tmp_path / "o"
    res = cli("replay", str(trace_factory(4)), "--endpoint", sim.url, "--api-key-env",
              "SENTINEL_KEY", "--out", str(out), env={"SENTINEL_KEY": sentinel})
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "summary.json").read_text())["counts"]["requests_ok"] == 4
    assert sentinel not in res.stdout + res.stderr
    for path in out.rglob("*"):
        assert sentinel not in path.read_text(errors="replace"), path


def test_sigint_keeps_every_completed_step(sim_factory, trace_factory, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "20", "--itl-ms", "5", "--output-tokens", "20")
    trace = trace_factory(400, turns=2, think_s=0.05)
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentic_bench", "replay", str(trace), "--endpoint", sim.url,
         "--scenario", "concurrency", "--concurrency", "4", "--grace", "5", "--out", str(out),
         "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    records = out / "records.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (
            not records.exists() or records.read_text().count('"type":"session"') < 20):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 3, err
    lines = records.read_text().splitlines()
    recs = [json.loads(x) for x in lines]  # every line is whole
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["result"] == "INVALID"
    assert summary["stop_reason"] == "interrupted"
    steps = [r for r in recs if r["type"] == "step"]
    assert summary["counts"]["requests"] == len(steps)
    assert 20 * 2 <= len(steps) < 800
    assert all(r["status"] == "ok" for r in steps)  # in-flight ones finished within grace
    assert proc.poll() is not None


def test_resume_completes_an_interrupted_run(sim_factory, trace_factory, cli,
                                             tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "20", "--itl-ms", "5", "--output-tokens", "10")
    trace = trace_factory(40, turns=2, think_s=0.2)
    out = tmp_path / "o"
    common = ["replay", str(trace), "--endpoint", sim.url, "--scenario", "concurrency",
              "--concurrency", "4", "--quiet"]
    proc = subprocess.Popen([sys.executable, "-m", "agentic_bench", *common, "--grace", "0",
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    records = out / "records.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (
            not records.exists() or records.read_text().count('"type":"session"') < 8):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    first = json.loads((out / "summary.json").read_text())
    assert first["complete"] is False and first["counts"]["sessions"] < 40
    # #30 item 15: it says how many were planned and how to go on
    text = (out / "summary.txt").read_text()
    assert "of 40 planned" in text
    assert f"Resume    : agentic-bench replay --resume {out}" in text
    with open(records, "a") as fh:  # a torn last line, as after a power loss
        fh.write('{"type":"step","session_id":"s1#1","sta')
    # the run's own options come from its config.yaml: nothing to type again
    res = cli("replay", "--resume", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["complete"] is True and s["result"] == "VALID"
    c = s["counts"]
    assert (c["sessions"], c["sessions_ok"], c["requests"], c["missing_turns"]) == (40, 40, 80, 0)
    assert s["harness"]["truncated_record_lines"] == 1
    assert s["resumed_sessions"] >= 8
    recs = [json.loads(x) for x in records.read_text().splitlines()]
    ids = [r["session_id"] for r in recs if r["type"] == "session"]
    assert len(ids) == len(set(ids)) == 40
    assert (out / "records.before-resume-1.jsonl").exists()
    # #42.4: the resumed segment's clock goes on where the first ended — one time axis, so the
    # load reached is never both segments laid over each other (was "max 8 of 4 named")
    assert s["load"]["sessions_in_flight"]["max"] <= 4
    second = [i for i, r in enumerate(recs) if r["type"] == "run"][1]
    offset = recs[second]["clock_offset_ns"]
    assert offset >= max(r["t_end_ns"] for r in recs[:second] if "t_end_ns" in r)
    assert all(r["t_scheduled_ns"] >= offset for r in recs[second:] if r["type"] == "session")
    segments = [r for r in recs if r["type"] == "segment"]
    assert len(segments) == 2 and all(sum(r["host_cpu_ticks"].values()) > 0 for r in segments)
    host = s["host_cpu"]  # /proc/stat ticks of both segments, added up
    assert host["segments"] == 2 and host["cores"] == os.cpu_count()
    assert host["ticks"] == {k: sum(r["host_cpu_ticks"][k] for r in segments)
                             for k in host["ticks"]}
    assert abs(host["busy"] + host["steal"] + host["idle"] - 1.0) < 1e-9
    assert "Host CPU  : busy " in (out / "summary.txt").read_text()
    mismatch = cli(*common, "--resume", str(out), "--history", "live")
    assert mismatch.returncode == 2 and "differs" in mismatch.stderr
    loud = [a for a in common if a != "--quiet"]
    again = cli(*loud, "--resume", str(out))  # says what it resumes
    assert again.returncode == 0 and f"resuming {out}: 40 sessions done, 0 left" in again.stderr


def test_resume_retry_errors_reasks_the_failed_sessions(sim_factory, trace_factory, cli,
                                                        tmp_path: Path) -> None:
    """An endpoint that failed some requests (a crash, a restart) is fixed; --resume
    --retry-errors asks only the sessions that ended in error again."""
    flaky = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "5",
                        "--fail-rate", "0.4")
    port = int(flaky.url.rsplit(":", 1)[1].split("/")[0])
    trace = trace_factory(20, turns=1)
    out = tmp_path / "o"
    common = ["replay", str(trace), "--endpoint", flaky.url, "--quiet"]
    first = cli(*common, "--out", str(out))
    s1 = json.loads((out / "summary.json").read_text())
    errors = s1["counts"]["sessions"] - s1["counts"]["sessions_ok"]
    assert 0 < errors < 20, first.stderr
    alone = cli(*common, "--out", str(tmp_path / "x"), "--retry-errors")
    assert alone.returncode == 2 and "--retry-errors goes with --resume" in alone.stderr
    flaky.stop()
    sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "5", port=port)
    res = cli(*common, "--resume", str(out), "--retry-errors")
    assert res.returncode == 0, res.stderr
    s2 = json.loads((out / "summary.json").read_text())
    assert (s2["counts"]["sessions"], s2["counts"]["sessions_ok"]) == (20, 20)
    assert s2["resumed_sessions"] == 20 - errors
    recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert all(r.get("status") != "error" for r in recs)


@pytest.mark.parametrize(("args", "needle"), [
    (("--scenario", "server", "--rate", "-1"), "--rate: -1: must be > 0"),
    (("--rate", "-1"), "--rate: -1: must be > 0"),
    (("--rate", "2"), "--rate applies to --scenario server only"),
    (("--scenario", "concurrency", "--concurrency", "0"), "--concurrency: 0: must be ≥ 1"),
])
def test_bad_load_options_fail_before_the_endpoint_is_contacted(
        cli, tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    # nothing listens there: contacting it first would fail with "cannot reach", not the option
    url = f"http://127.0.0.1:{unused_port()}/v1"
    out = tmp_path / "run"
    res = cli("replay", "traces/sample.jsonl", "--endpoint", url, *args, "--out", str(out))
    assert res.returncode == 2 and needle in res.stderr, res.stderr
    assert "cannot reach" not in res.stderr
    assert not out.exists()  # no records.jsonl whose report would read VALID over nothing


def test_a_second_run_never_mixes_into_a_folder_that_holds_one(cli, sim_factory,
                                                                 tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--output-tokens", "2")
    out = tmp_path / "run"
    base = ("replay", "traces/sample.jsonl", "--endpoint", sim.url, "--out", str(out),
            "--quiet")
    assert cli(*base).returncode == 0
    first = (out / "records.jsonl").read_text()
    res = cli(*base)
    assert res.returncode == 2 and "already holds a run" in res.stderr, res.stderr
    assert (out / "records.jsonl").read_text() == first  # untouched
    assert cli(*base, "--overwrite").returncode == 0
    aside = [p for p in out.iterdir() if p.name.startswith("replaced-")]
    assert len(aside) == 1 and (aside[0] / "records.jsonl").read_text() == first
    runs = [line for line in (out / "records.jsonl").open() if '"type": "run"' in line
            or '"type":"run"' in line]
    assert len(runs) == 1
    report = cli("report", str(out))
    assert report.returncode == 0, report.stderr


def test_options_that_would_do_nothing_are_refused(cli, tmp_path) -> None:
    """#30 item 8: `--perf-sessions 0` meant "all"; `--tool-delays` with a native
    --perf-trace was ignored without a word."""
    pytest.importorskip("bfcl_eval")
    res = cli("run", "agentic-edge", "--perf-sessions", "0", "--samples", "1",
              "--endpoint", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "a"))
    assert res.returncode == 2 and "--perf-sessions 0: must be >= 1" in res.stderr
    res = cli("run", "agentic-edge", "--tool-delays", "--samples", "1",
              "--endpoint", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "b"))
    assert res.returncode == 2 and "--tool-delays applies to MLCommons" in res.stderr


def test_an_invalid_run_carries_no_unconstrained_note() -> None:
    """#30 item 8: an INVALID run still said "no constraint was set: VALID means only..."."""
    from agentic_bench.metrics.aggregate import RunInfo, summarize
    from agentic_bench.reporting.summary_text import render_text

    failed = summarize([], RunInfo(benchmark="x", complete=False, duration_s=1.0))
    assert failed["result"] == "INVALID" and "VALID means only" not in render_text(failed)
    fine = summarize([], RunInfo(benchmark="x", complete=True, duration_s=1.0))
    assert fine["result"] == "VALID" and "VALID means only" in render_text(fine)


def test_config_help_reads_as_text(cli) -> None:
    """#30 item 14: `config --help` showed docstring markup; `config show --help` exited 2."""
    res = cli("config", "--help")
    assert res.returncode == 0 and "``" not in res.stdout and ":mod:" not in res.stdout
    res = cli("config", "show", "--help")
    assert res.returncode == 0 and "usage: agentic-bench config show" in res.stdout
    assert cli("config", "show").returncode == 2


def test_an_unreachable_ray_head_is_an_exit_2_error(cli, tmp_path: Path) -> None:
    port = unused_port()
    res = cli("replay", "traces/sample.jsonl", "--endpoint", "http://127.0.0.1:9/v1",
              "--model", "m", "--scenario", "concurrency", "--concurrency", "2",
              "--workers", "2", "--ray-address", f"127.0.0.1:{port}",
              "--out", str(tmp_path / "r"))
    assert res.returncode == 2, res.stderr
    assert f"--ray-address 127.0.0.1:{port}: no Ray head answers there" in res.stderr
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr
    assert not (tmp_path / "r" / "records.jsonl").exists()
