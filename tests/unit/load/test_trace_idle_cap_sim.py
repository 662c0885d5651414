"""The per-tree idle cap end to end on the simulator (``--trace-idle-gap-cap``; agentx-harness
1.0.12 ``timing/replay_dependencies.py`` 265-325: once none of a tree's requests has been in
flight for the cap, its pending timers move so the earliest goes now): a tree whose recorded
gap is 4 s sends its next request about the cap after its previous reply, the request is sent
on time against the moved schedule, and the ``lanes`` record says how much was skipped."""

from __future__ import annotations

import json
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from tests.conftest import run_cli, start_sim

GAP_S = 4.0
CAP_S = 0.3


def _row(t: float, hashes: list[int], types: str) -> dict[str, Any]:
    return {"t": t, "type": "s", "model": "m", "in": 64 * len(hashes), "out": 4,
            "hash_ids": hashes, "input_types": [types], "output_types": ["text"],
            "stop": "end_turn", "api_time": 0.02, "ttft": 0.01}


def _trace(tmp_path: Path) -> Path:
    tree = {"id": "gap-tree", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
            "tool_tokens": 0, "system_tokens": 64,
            "requests": [_row(0.0, [1, 2], "text"), _row(GAP_S, [1, 2, 3], "text")]}
    path = tmp_path / "trees.jsonl"
    path.write_text(json.dumps(tree) + "\n")
    return path


def _run(tmp_path: Path, *extra: str) -> tuple[float, list[dict[str, Any]]]:
    sim = start_sim("--ttft-ms", "2", "--itl-ms", "0")
    out = tmp_path / ("run" + "".join(extra).replace("-", "_").replace(".", "_"))
    try:
        began = perf_counter_ns()
        res = run_cli("replay", str(_trace(tmp_path)), "--endpoint", sim.url, "--tokenizer",
                      "server", "--out", str(out), "--quiet", *extra, timeout=120)
        wall = (perf_counter_ns() - began) / 1e9
    finally:
        sim.stop()
    assert res.returncode == 0, res.stderr[-2000:]
    return wall, [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]


def test_a_long_gap_in_a_tree_is_cut_to_the_cap(tmp_path: Path) -> None:
    _, records = _run(tmp_path, "--trace-idle-gap-cap", str(CAP_S))
    llm = sorted((r for r in records if r.get("type") == "step" and r.get("kind") == "llm"),
                 key=lambda r: r["t_sent_ns"])
    assert [r["status"] for r in llm] == ["ok", "ok"]
    idle_s = (llm[1]["t_sent_ns"] - llm[0]["t_end_ns"]) / 1e9
    assert CAP_S - 0.05 <= idle_s < CAP_S + 0.5  # ~the cap, not the recorded 4 s
    assert llm[1]["schedule_lag_ms"] < 100  # sent on time against the moved schedule
    (lanes,) = [r for r in records if r.get("type") == "lanes"]
    assert lanes["trace_idle_gap_cap_s"] == CAP_S and lanes["tree_jumps"] == 1
    assert lanes["trees_idle_capped"] == 1
    assert 3.0 < lanes["tree_skipped_s"] < GAP_S


def test_without_the_cap_the_recorded_gap_is_kept(tmp_path: Path) -> None:
    _, records = _run(tmp_path)
    llm = sorted((r for r in records if r.get("type") == "step" and r.get("kind") == "llm"),
                 key=lambda r: r["t_sent_ns"])
    assert (llm[1]["t_sent_ns"] - llm[0]["t_end_ns"]) / 1e9 > GAP_S - 0.5
    (lanes,) = [r for r in records if r.get("type") == "lanes"]
    assert lanes["tree_jumps"] == 0 and lanes["tree_skipped_s"] == 0.0
