"""#42.3 on the simulator: when the idle-gap cap moves a wait earlier, the turn that follows
starts at the moved instant — its latency is the time it took, never negative (before: a
20 s think time capped at 0.5 s gave turn latencies of -19,436 ms)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration


def _request(t: float, size: int, hashes: list[int]) -> dict[str, Any]:
    return {"t": t, "type": "s", "model": "m", "in": size, "out": 8, "hash_ids": hashes,
            "input_types": ["text"], "output_types": ["text"], "stop": "end_turn",
            "api_time": 0.05, "ttft": 0.02}


def test_turns_after_a_capped_gap_have_their_true_latency(sim_factory: Any, cli: Any,
                                                          tmp_path: Path) -> None:
    trace = tmp_path / "capped.json"
    trace.write_text(json.dumps({
        "id": "capped", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
        "tool_tokens": 0, "system_tokens": 0,
        "requests": [_request(0.0, 200, [1, 2, 3]), _request(20.0, 300, [1, 2, 3, 4]),
                     _request(40.0, 400, [1, 2, 3, 4, 5, 6])]}))
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1")
    out = tmp_path / "run"
    res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(out), "--quiet",
              "--tokenizer", "server", "--idle-gap-cap", "0.5", "--concurrency", "1")
    assert res.returncode == 0, res.stderr
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    turns = [r for r in records if r.get("type") == "turn"]
    (session,) = [r for r in records if r.get("type") == "session"]
    assert len(turns) == 3
    for turn in turns:  # a few ms of serving each, on the simulator
        assert 0 < turn["latency_ms"] < 2_000, turn
    # the two 20 s gaps were each cut to the 0.5 s cap: the session took about 1 s, not 40
    assert 1_000 <= session["latency_ms"] < 10_000
    (lanes,) = [r for r in records if r.get("type") == "lanes"]
    assert lanes["jumps"] == 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["latency_ms"]["turn"]["min"] > 0
