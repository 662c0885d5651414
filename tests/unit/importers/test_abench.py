"""The ``abench`` importer (Abench 0.2.0's DeepSWE v1.1 and LMCache sessions): the fixtures
import, validate and replay on the simulator with one request per Abench turn; a text-only
session is sent exactly as Abench sends it; every input layout (JSONL, .jsonl.zst, tier folder
with a manifest, per-session .json files) reads; broken fields stop the import at file:line:
field; generated sources keep requests, roles and token counts; ``profile_source`` counts by
hand."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_bench.errors import TraceError
from agentic_bench.trace.history import messages_before
from agentic_bench.trace.importers import detect_format
from agentic_bench.trace.importers.abench import detect, import_abench, profile_source
from agentic_bench.trace.model import LlmStep, Session
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "importers" / "abench"
DEEPSWE = DATA / "deepswe_v1.1.jsonl"
LMCACHE = DATA / "lmcache" / "full"


def raw_sessions(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def abench_requests(raw: dict[str, Any]) -> list[list[dict[str, str]]]:
    """The messages Abench 0.2.0 sends for each turn of a raw session with no synthesized
    system prompt (``replay/engine.py``: roles other than system/user/assistant become user;
    after each reply its recorded ``assistant_text``)."""
    messages: list[dict[str, str]] = []
    out = []
    for turn in raw["turns"]:
        for m in turn["input_delta"]:
            role = m["role"] if m["role"] in ("system", "user", "assistant") else "user"
            messages.append({"role": role, "content": m["content"]})
        out.append(list(messages))
        messages.append({"role": "assistant", "content": turn.get("assistant_text", "")})
    return out


def llm_steps(session: Session) -> list[tuple[int, int, LlmStep]]:
    return [(ti, si, s) for ti, t in enumerate(session.turns) for si, s in enumerate(t.steps)
            if isinstance(s, LlmStep)]


def test_profile_source_counts_by_hand() -> None:
    deepswe = profile_source(DEEPSWE)
    assert (deepswe.sessions, deepswe.trees, deepswe.requests, deepswe.subagents,
            deepswe.tool_calls) == (2, 0, 9, 0, 5)
    assert deepswe.input_tokens == [1830, 2410, 3302, 3650, 3900, 4200, 900, 1100, 1300]
    assert deepswe.output_tokens == [96, 210, 64, 180, 240, 40, 50, 70, 30]
    assert deepswe.gaps_s == [2.35, 4.1, 8.8, 15.0, 1.2, 3.0, 2.5]
    assert deepswe.prefix_hit is None
    assert any("16704 of 22592" in n for n in deepswe.notes)
    lmcache = profile_source(LMCACHE)
    assert (lmcache.sessions, lmcache.requests, lmcache.tool_calls) == (2, 6, 2)
    assert lmcache.input_tokens == [5200, 5600, 5900, 1400, 1600, 1750]
    assert lmcache.output_tokens == [40, 120, 30, 60, 80, 20]
    assert lmcache.gaps_s == [2.1, 6.4, 0.9, 0.65]


def test_deepswe_mapping() -> None:
    agent, plain = list(import_abench(DEEPSWE))
    assert [len(t.steps) for t in agent.turns] == [8, 3]
    assert [s.kind for s in agent.turns[0].steps] == [
        "llm", "tool", "llm", "tool", "tool", "llm", "tool", "llm"]
    tools = [s for t in agent.turns for s in t.steps if s.kind == "tool"]
    assert [(s.call_id, s.name, s.duration_ms) for s in tools] == [
        ("call_a1", "bash", 2350.0), ("call_a2", "str_replace_editor", 2050.0),
        ("call_a3", "bash", 2050.0), ("call_a4", "bash", 8800.0),
        (None, "str_replace_editor", 1200.0)]
    assert agent.turns[1].user == "Please also add a regression test."
    assert agent.turns[1].think_time_s == 15.0
    first = agent.turns[0].steps[0]
    assert isinstance(first, LlmStep) and first.usage is not None
    assert first.params == {"max_tokens": 96, "ignore_eos": True}
    assert (first.usage.input_tokens, first.usage.output_tokens) == (1830, 96)
    assert first.output.tool_calls[0].arguments == {"command": 'grep -n "def to(" -r astropy/units'}
    assert agent.category == "deepswe" and agent.system is None
    assert agent.metadata["recorded_cached_tokens"] == [0, 1792, 2304, 3200, 3584, 3840]
    assert agent.metadata["abench_source"]["model"] == "example/model-a"
    # no structured calls: every tool observation is a user turn, as Abench sends it
    assert [t.think_time_s for t in plain.turns] == [0.0, 3.0, 2.5]
    assert plain.metadata["folded_roles"] == {"tool": 2}


def test_lmcache_tier_folder() -> None:
    claude, mini = list(import_abench(LMCACHE))
    assert claude.system == ("You are a coding agent working in a terminal. Use the tools to "
                             "inspect and edit files.")
    assert [s.kind for s in claude.turns[0].steps] == ["llm", "tool", "llm", "tool"]
    edit = claude.turns[0].steps[3]
    assert edit.kind == "tool" and edit.call_id == "toolu_02" and edit.duration_ms == 0.0
    assert edit.arguments["new_string"] == "'-'.join"  # the flat call's "input"
    assert claude.turns[1].user == "Also update the changelog."
    assert claude.turns[1].think_time_s == 6.4
    # no source.dataset: the set comes from manifest.json
    assert mini.category == "lmcache" and mini.metadata["abench_set"] == "lmcache"
    assert mini.metadata["abench_manifest"] == {"dataset": "lmcache", "tier": "full",
                                                "version": "v1"}
    assert "recorded_cached_tokens" not in mini.metadata
    assert mini.system is not None and mini.system.startswith("You are a helpful assistant")


def test_other_layouts(tmp_path: Path) -> None:
    """Per-session .json files in a folder named for the set, and a .jsonl.zst file."""
    tier = tmp_path / "deepswe" / "mixed"
    tier.mkdir(parents=True)
    for i, raw in enumerate(raw_sessions(DEEPSWE)):
        raw["source"].pop("dataset")
        (tier / f"s{i}.json").write_text(json.dumps(raw, indent=2))
    (tier / "manifest.json").write_text("{not json")  # Abench ignores a broken manifest too
    sessions = list(import_abench(tier))
    assert [s.metadata["abench_set"] for s in sessions] == ["deepswe", "deepswe"]
    assert [s.metadata["source_line"] for s in sessions] == [0, 0]
    assert sum(len(llm_steps(s)) for s in sessions) == 9
    assert profile_source(tier).requests == 9
    zstandard = pytest.importorskip("zstandard")
    packed = tmp_path / "data.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(DEEPSWE.read_bytes()))
    unpacked = list(import_abench(packed))
    assert {s.metadata.pop("source_file") for s in unpacked} == {"data.jsonl.zst"}
    assert [s.model_dump() for s in unpacked] == [
        s.model_dump(exclude={"metadata": {"source_file"}}) for s in import_abench(DEEPSWE)]
    assert profile_source(packed).input_tokens == profile_source(DEEPSWE).input_tokens
    broken = tmp_path / "broken.jsonl.zst"
    broken.write_bytes(packed.read_bytes()[:40])
    with pytest.raises(TraceError, match="zstd"):
        list(import_abench(broken))
    with pytest.raises(TraceError, match=r"no \*\.jsonl"):
        list(import_abench(tmp_path / "deepswe"))


def test_detect() -> None:
    text = DEEPSWE.read_text()
    assert detect(text) and detect(text[:300])  # a long first line cut by the 64 KiB sniff
    assert detect_format(DEEPSWE) == "abench"
    assert not detect(json.dumps({"schema_version": "1", "session_id": "a", "turns": []}))
    for other in ("mooncake.jsonl", "sharegpt.json", "mlcommons_agentic.jsonl"):
        assert not detect((DATA.parent / other).read_text()[:65536])


def test_fixtures_replay_on_the_simulator(sim_factory: Any, tmp_path: Path) -> None:
    for source, sessions in ((DEEPSWE, 2), (LMCACHE, 2)):
        out = tmp_path / f"{source.stem}.jsonl"
        res = run_cli("import", "abench", str(source), "--out", str(out))
        assert res.returncode == 0, res.stderr
        assert f"{sessions} session(s)" in res.stdout
        res = run_cli("validate", str(out))
        assert res.returncode == 0, res.stdout + res.stderr
        log = tmp_path / f"{source.stem}.requests.jsonl"
        sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0.1", "--request-log", str(log))
        res = run_cli("replay", str(out), "--endpoint", sim.url, "--out",
                      str(tmp_path / f"run-{source.stem}"), "--quiet", "--think-time", "none")
        assert res.returncode == 0, res.stderr
        sent = [json.loads(x) for x in log.read_text().splitlines()]
        profile = profile_source(source)
        assert len(sent) == profile.requests
        assert sorted(r["body"]["max_tokens"] for r in sent) == sorted(
            max(1, n or 0) for n in profile.output_tokens)
        assert all(r["body"]["ignore_eos"] is True for r in sent)
        if source == DEEPSWE:  # the session without structured calls: Abench's exact messages
            raw = raw_sessions(DEEPSWE)[1]
            first = raw["turns"][0]["input_delta"][0]["content"]
            mine = [r["body"]["messages"] for r in sent
                    if r["body"]["messages"][0]["content"] == first]
            assert mine == abench_requests(raw)
            assert all("tools" not in r["body"] for r in sent
                       if r["body"]["messages"][0]["content"] == first)


@pytest.mark.parametrize(("line", "field"), [
    ({"input_tokens": "many"}, "turns[1].input_tokens"),
    ({"input_delta": [{"role": "tool", "content": None}]}, "turns[1].input_delta[0].content"),
    ({"pre_gap_ms": -5}, "turns[1].pre_gap_ms"),
    ({"tool_calls": [{"function": {"arguments": "{}"}}]}, "turns[1].tool_calls[0].name"),
    ({"index": "1"}, "turns[1].index"),
])
def test_broken_field_exits_2(tmp_path: Path, line: dict[str, Any], field: str) -> None:
    rows = raw_sessions(DEEPSWE)
    rows[1]["turns"][1].update(line)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    res = run_cli("import", "abench", str(bad), "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert f"bad.jsonl:2: {field}:" in res.stderr
    assert not out.exists()
    with pytest.raises(TraceError) as err:
        list(import_abench(bad))
    problem = err.value.problems[0]
    assert (Path(problem.path).name, problem.line, problem.field) == ("bad.jsonl", 2, field)


# ---- generated sources -------------------------------------------------------------------

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)


@st.composite
def abench_session(draw: st.DrawFn, sid: int) -> dict[str, Any]:
    turns: list[dict[str, Any]] = []
    ids = iter(range(1000))
    for k in range(draw(st.integers(1, 6))):
        if k == 0:
            delta = [{"role": "system", "content": draw(TEXT.filter(bool))}
                     for _ in range(draw(st.integers(0, 1)))]
            delta.append({"role": "user", "content": draw(TEXT)})
        else:
            roles = draw(st.lists(st.sampled_from(["tool", "user", "assistant"]), max_size=3))
            delta = [{"role": r, "content": draw(TEXT)} for r in sorted(
                roles, key=lambda r: r != "tool")]  # tool results first, as agents send them
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            call: dict[str, Any] = {"name": draw(st.sampled_from(["bash", "edit"])),
                                    "arguments": {"x": draw(st.integers())}}
            if draw(st.booleans()):
                call["id"] = f"c{next(ids)}"
            calls.append(call)
        turns.append({"index": k, "input_delta": delta, "assistant_text": draw(TEXT),
                      "input_tokens": draw(st.integers(0, 10**6)),
                      "output_tokens": draw(st.integers(0, 4096)),
                      "pre_gap_ms": draw(st.floats(0, 1e5)), "tool_calls": calls})
    return {"session_id": f"g{sid}", "source": {"dataset": "deepswe"},
            "system_prompt": draw(st.sampled_from(["", "sys"])), "turns": turns}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(*(abench_session(i) for i in range(n)))))
def test_generated_sources_survive(raws: tuple[dict[str, Any], ...]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gen.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in raws))
        sessions = list(import_abench(path))
        profile = profile_source(path)
    assert len(sessions) == profile.sessions == len(raws)
    ins: list[int | None] = []
    outs: list[int | None] = []
    for raw, session in zip(raws, sessions, strict=True):
        steps = llm_steps(session)
        turns = raw["turns"]
        assert len(steps) == len(turns)
        expected = abench_requests(raw)
        for k, (ti, si, step) in enumerate(steps):
            assert step.usage is not None
            ins.append(step.usage.input_tokens)
            outs.append(step.usage.output_tokens)
            assert len(step.output.tool_calls) == len(turns[k]["tool_calls"])
            sent = messages_before(session, ti, si)
            if raw["system_prompt"]:  # ours keeps it; Abench sends its own (or none) instead
                assert sent[0] == {"role": "system", "content": "sys"}
                sent = sent[1:]
            roles = [m["role"] for m in sent]
            assert roles.count("assistant") == k
            assert set(roles) <= {"system", "user", "assistant", "tool"}
            # the same text in the same order (messages of one delta may be joined)
            assert "\n\n".join(m["content"] for m in sent) == "\n\n".join(
                m["content"] for m in expected[k])
        waited = sum(t.think_time_s * 1000 for t in session.turns[1:]) + sum(
            s.duration_ms for t in session.turns for s in t.steps
            if s.kind in ("tool", "wait"))
        assert waited == pytest.approx(sum(t["pre_gap_ms"] for t in turns), abs=1e-6)
    assert ins == profile.input_tokens and outs == profile.output_tokens
    assert profile.requests == len(ins)
    assert profile.tool_calls == sum(len(t["tool_calls"]) for r in raws for t in r["turns"])

