"""#42.6: a subagent spawned after a lane's mid-trajectory start t*, by a parent request sent
before t*, runs in the measured phase — AIPerf's rule (``timing/trajectory_source.py``
``_snapshot_for``: a branch that starts after t* whose spawning turn was issued before t* is a
live conversation of the snapshot, dispatched at its recorded start − t*; one whose spawning
turn comes after t* is spawned by that turn as the replay reaches it). Checked against the
raw Weka rows (not through our plan): every subagent with a request at or after t* runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

TREE = Path(__file__).resolve().parents[1] / "data" / "weka" / "tree_subagents.json"


def _request(t: float, size: int, hashes: list[int], kind: str = "s") -> dict[str, Any]:
    return {"t": t, "type": kind, "model": "m", "in": size, "out": 8, "hash_ids": hashes,
            "input_types": ["text"], "output_types": ["text", "tool_use"], "stop": "tool_use",
            "api_time": 0.05, "ttft": 0.02}


LATE = {"id": "late-spawn", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
        "tool_tokens": 0, "system_tokens": 0, "requests": [
            _request(0.0, 200, [1, 2, 3]),
            {"t": 1.0, "type": "subagent", "agent_id": "agent_A", "duration_ms": 500,
             "status": "completed", "models": ["m"], "tool_tokens": 0, "system_tokens": 0,
             "requests": [_request(1.0, 150, [101, 102], "n"),
                          _request(1.4, 200, [101, 102, 103], "n")]},
            _request(3.0, 400, [1, 2, 3, 4, 5, 6])]}


def _live_subagents(trace: dict[str, Any], t_star: float) -> set[str]:
    """The raw rule: a subagent with a request at or after t* has something to send."""
    return {r["agent_id"] for r in trace["requests"] if r.get("type") == "subagent"
            and any(q["t"] >= t_star for q in r["requests"])}


def _replay(cli: Any, sim: Any, trace: Path, out: Path, fraction: float) -> list[dict[str, Any]]:
    res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(out), "--quiet",
              "--tokenizer", "server", "--trajectory-start", f"{fraction}:{fraction}")
    assert res.returncode == 0, res.stderr
    return [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]


def test_a_subagent_spawned_after_t_star_runs_at_its_offset(sim_factory: Any, cli: Any,
                                                           tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1")
    trace = tmp_path / "late.json"
    trace.write_text(json.dumps(LATE))
    # span 0 → 3 s: t* = 0.6 s, after the parent's request (0 s), before the spawn (1 s)
    records = _replay(cli, sim, trace, tmp_path / "run", 0.2)
    sent = [r for r in records if r.get("kind") == "llm" and r.get("branch") == "agent_A"]
    assert len(sent) == 2 and not any(r.get("warmup") for r in sent)
    # dispatched at its recorded start − t* = 0.4 s into the measured phase
    (parent_first,) = [r for r in records if r.get("kind") == "llm" and r.get("warmup")]
    assert 0.3 < (sent[0]["t_sent_ns"] - parent_first["t_end_ns"]) / 1e9 < 0.7
    (branch,) = [r for r in records if r.get("type") == "branch"]
    assert branch["status"] == "ok" and branch["llm_calls"] == 2


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.35, 0.5, 0.7])
def test_every_live_subagent_runs(sim_factory: Any, cli: Any, tmp_path: Path,
                                  fraction: float) -> None:
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "0.2")
    raw = json.loads(TREE.read_text())
    starts = [r["t"] for r in raw["requests"]]
    starts += [q["t"] for r in raw["requests"] if r.get("type") == "subagent"
               for q in r["requests"]]
    t_star = min(starts) + fraction * (max(starts) - min(starts))
    records = _replay(cli, sim, TREE, tmp_path / "run", fraction)
    ran = {r["branch"] for r in records if r.get("kind") == "llm" and r.get("branch")
           and not r.get("warmup")}
    assert ran == _live_subagents(raw, t_star)
