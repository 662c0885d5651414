"""benchmarks/agentx_scale_aiperf.py reads AIPerf 0.13's per-request export (its own output,
tests/data/aiperf-0.13/) and joins it to the simulator's timing log on X-Request-ID: every
request matched, and each request's client share is the definition's sum."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "aiperf-0.13"
sys.path.insert(0, str(ROOT / "benchmarks"))

import agentx_scale_aiperf  # noqa: E402


def test_aiperfs_export_joins_the_timing_log_request_for_request() -> None:
    rows = agentx_scale_aiperf.shares(DATA / "profile_export.jsonl", DATA / "sim-timing.jsonl")
    assert (rows["requests"], rows["errors"], rows["unmatched"]) == (8, 0, 0)
    first = json.loads((DATA / "profile_export.jsonl").read_text().splitlines()[0])
    meta, ttft = first["metadata"], first["metrics"]["time_to_first_token"]
    assert ttft["unit"] == "ms"
    server = {r["x_request_id"]: r for r in map(json.loads, (DATA / "sim-timing.jsonl")
                                               .read_text().splitlines())}[meta["x_request_id"]]
    shift = server["wall_minus_perf_ns"]
    server_ttft_ms = (server["first_token"] - server["body_last"]) / 1e6
    send = (server["body_last"] + shift - meta["credit_issued_ns"]) / 1e6
    receive = (meta["request_start_ns"] + ttft["value"] * 1e6
               - (server["first_token"] + shift)) / 1e6
    assert rows["share_from_send_ms"][0] == pytest.approx(ttft["value"] - server_ttft_ms)
    assert rows["client_share_ms"][0] == pytest.approx(send + receive)
    assert rows["body_kb"][0] == server["body_bytes"] / 1000
    assert all(s > 0 for s in rows["share_from_send_ms"])  # a client cannot beat the server
