"""#32 item 2: a latency metric declared by an installed plugin (a ``metric:NAME`` entry point)
is derived from each request's timestamps in every process — the run's worker processes
included — and shown by summary.json, summary.txt, report.html, ``report DIR`` and
``compare``, with its SLO key gating the verdict."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

PLUGIN = '''
from agentic_bench.api import MetricDecl, Timestamps


def second_token(t: Timestamps) -> float | None:
    times = t.token_times_ns
    return Timestamps.ms(times[1] - t.sent_ns) if len(times) > 1 else None


metric = MetricDecl(
    "second_token", "2nd token", "step", "second_token_ms", "ms", "lower",
    "second_token_p99_ms", ("p50", "p99"), "request sent -> second content-carrying chunk",
    "Time to second token", second_token)
'''


def test_a_plugin_metric_reaches_workers_summary_report_and_compare(
        sim_factory, trace_factory, cli, plugin_installer, tmp_path: Path) -> None:
    site = tmp_path / "site"
    plugin_installer(site, "second_token_metric", PLUGIN, {"metric:second_token": "metric"})
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(site),
                                                       os.environ.get("PYTHONPATH")]))}
    sim = sim_factory("--ttft-ms", "50", "--itl-ms", "20", "--output-tokens", "4")
    out = tmp_path / "run"
    res = cli("replay", str(trace_factory(12)), "--endpoint", sim.url, "--scenario", "server",
              "--rate", "20", "--workers", "2", "--slo", "second_token_p99_ms=5000",
              "--out", str(out), "--quiet", env=env)
    assert res.returncode == 0, res.stderr[-3000:]

    # every worker derived it: each of its successful LLM calls carries the plugin's field
    shards = sorted(out.glob("records.shard-*.jsonl"))
    sources = shards or [out / "records.jsonl"]
    steps = [r for path in sources for line in path.read_text().splitlines()
             if (r := json.loads(line)).get("type") == "step" and r.get("kind") == "llm"
             and r.get("status") == "ok"]
    assert len(steps) == 12
    assert all(r["second_token_ms"] > r["ttft_ms"] for r in steps)

    summary = json.loads((out / "summary.json").read_text())
    block = summary["latency_ms"]["second_token"]
    assert block["count"] == summary["latency_ms"]["ttft"]["count"] == 12
    assert 60 <= block["p50"] <= 200, block
    assert len(summary["workers"]) == 2
    gate = next(c for c in summary["constraints"] if c["name"] == "second_token_p99_ms")
    assert gate["ok"] is True and summary["result"] == "VALID"
    assert "\nsecond_token        12 " in (out / "summary.txt").read_text()
    assert "Time to second token CDF" in (out / "report.html").read_text()

    # `report DIR` and `compare` are fresh processes: they find the plugin on their own
    (out / "summary.json").unlink()
    res = cli("report", str(out), env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    again = json.loads((out / "summary.json").read_text())
    assert again["latency_ms"]["second_token"] == block
    res = cli("compare", str(out), str(out), env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "2nd token p50" in res.stdout and "2nd token p99" in res.stdout
