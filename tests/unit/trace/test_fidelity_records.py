"""What a run sent, from its records (agentic_bench/trace/fidelity_records.py), and the
summary's ``fidelity`` entry of an imported trace's replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.trace.fidelity_records import profile_records, summary_fidelity
from agentic_bench.trace.importers import import_file
from agentic_bench.trace.model import SCHEMA_VERSION, Session

ROOT = Path(__file__).resolve().parents[3]
MS = 1_000_000


def run(think: str = "recorded", **options: Any) -> dict[str, Any]:
    return {"type": "run", "config": {"think_time": think, "history": "recorded"},
            "options": options}


def step(sid: str, sent_ms: float, end_ms: float, branch: str = "", **kw: Any) -> dict[str, Any]:
    rec = {"type": "step", "kind": "llm", "session_id": sid, "session_index": int(sid[1:]),
           "status": "ok", "t_sent_ns": int(sent_ms * MS), "t_end_ns": int(end_ms * MS),
           "input_tokens": 40, "output_tokens": 8, **kw}
    return {**rec, "branch": branch} if branch else rec


def session(sid: str, **kw: Any) -> dict[str, Any]:
    return {"type": "session", "session_id": sid, "session_index": int(sid[1:]), **kw}


def test_a_run_with_a_fanout_a_join_retries_and_warmup() -> None:
    records = [
        run("scaled:0.5"),
        step("s0", 0, 100),
        {"type": "step", "kind": "tool", "session_id": "s0", "status": "ok"},
        step("s0", 300, 400, status="retried"),  # left out
        step("s0", 350, 450),  # gap 0.25 s
        step("s0", 460, 500, branch="3.0"), step("s0", 460, 520, branch="3.1"),
        step("s0", 600, 700, branch="3.0"),  # gap 0.1 s in branch 3.0
        {"type": "branch", "session_id": "s0", "branch": "3.0"},
        {"type": "fanout", "session_id": "s0", "group": "3", "t_end_ns": 710 * MS},
        step("s0", 800, 900),  # across the fan-out: left out
        {"type": "join", "session_id": "s0", "conversation": "", "t_end_ns": 950 * MS},
        step("s0", 1000, 1100, status="error", input_tokens=None, output_tokens=0),
        session("s0"),
        step("s1", 0, 50, warmup=True),  # left out
        step("s1", 100, 150),
        step("s1", 400, 450),  # gap 0.25 s
        session("s1"),
        step("s2", 0, 50), session("s2", partial=True),  # a mid-trajectory tree: left out
    ]
    prof = profile_records(records)
    assert (prof.sessions, prof.trees, prof.requests, prof.subagents) == (2, 1, 9, 2)
    assert sorted(prof.wait_gaps_s or []) == pytest.approx([0.1, 0.25, 0.25])
    # every gap: those across the fan-out (0.35 s) and the join (0.1 s) too
    assert sorted(prof.gaps_s) == pytest.approx([0.1, 0.1, 0.25, 0.25, 0.35])
    assert prof.gap_scale == 0.5
    assert (prof.input_basis, prof.output_basis) == ("server", "server")
    assert prof.input_tokens.count(None) == 1 and prof.output_tokens.count(None) == 1
    assert set(prof.unknown) == {"tool_calls", "prefix_hit"}
    notes = " | ".join(prof.notes)
    for text in ("1 request(s) failed", "1 retried", "1 warm-up", "1 tree(s) begun",
                 "1 tool step(s)", "× 0.5"):
        assert text in notes


def test_block_prompts_give_synthesized_input_held_output_and_a_prefix_hit() -> None:
    blocks: dict[str, Any] = {"prompt_tokens_synth": 300, "prompt_tokens_target": 300,
              "output_tokens_target": 8, "prefix_hit_blocks": 2, "prefix_blocks": 4}
    prof = profile_records([run(), step("s0", 0, 10, **blocks),
                            step("s0", 20, 30, **{**blocks, "prefix_hit_blocks": 4}),
                            session("s0")])
    assert (prof.input_basis, prof.output_basis) == ("synthesized", "held")
    assert prof.input_tokens == [300, 300] and prof.prefix_hit == pytest.approx(6 / 8)
    honor = profile_records([run(honor_eos=True), step("s0", 0, 10, **blocks), session("s0")])
    assert honor.output_basis == "server"


def text_session(sid: str, source: str | None) -> Session:
    return Session.model_validate({
        "schema_version": SCHEMA_VERSION, "session_id": sid,
        "metadata": {"source": source} if source else {},
        "turns": [{"user": "hi", "steps": [{"kind": "llm", "output": {"content": "yo"}},
                                           {"kind": "tool", "name": "t", "duration_ms": 1000},
                                           {"kind": "llm", "output": {"content": "ok"}}]}],
        "tools": [{"type": "function", "function": {"name": "t"}}]})


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_summary_entry_compares_planned_with_sent(tmp_path: Path) -> None:
    trace = [text_session("s0", "otel-genai"), text_session("s1", "otel-genai")]
    sent = [run(), step("s0", 0, 100), step("s0", 1100, 1200), session("s0")]
    path = write(tmp_path / "records.jsonl", sent)
    block = summary_fidelity({"trace": "x"}, trace.__getitem__, path)
    assert block is not None and block["ok"] is True, block
    assert block["source"] == "otel-genai" and block["planned"] == "1 session(s) issued"
    assert block["figures"]["requests"] == {"planned": 2, "sent": 2, "status": "ok"}
    short = write(tmp_path / "short.jsonl", [run(), step("s0", 0, 100), session("s0")])
    bad = summary_fidelity({"trace": "x", "trace_format": "otel-genai"}, trace.__getitem__,
                           short)
    assert bad is not None and bad["ok"] is False and "requests" in bad["failed"]


def test_no_entry_for_a_native_trace_or_another_workload(tmp_path: Path) -> None:
    path = write(tmp_path / "records.jsonl", [run(), step("s0", 0, 1), session("s0")])
    native = [text_session("s0", None)]
    assert summary_fidelity({"trace": "x"}, native.__getitem__, path) is None
    assert summary_fidelity({"benchmark": "agentic-edge"}, native.__getitem__, path) is None


def test_only_mid_trajectory_trees_say_why_nothing_was_compared(tmp_path: Path) -> None:
    path = write(tmp_path / "records.jsonl",
                 [run(), step("s0", 0, 1), session("s0", partial=True)])
    block = summary_fidelity({"trace": "x", "trace_format": "weka"},
                             [text_session("s0", None)].__getitem__, path)
    assert block is not None and block["ok"] is None and "mid-trajectory" in block["error"]


def test_a_broken_records_file_never_breaks_the_summary(tmp_path: Path) -> None:
    block = summary_fidelity({"trace": "x", "trace_format": "weka"},
                             [text_session("s0", None)].__getitem__, tmp_path / "missing")
    assert block is not None and block["ok"] is None and "FileNotFoundError" in block["error"]


def test_an_imported_fixture_is_planned_from_its_sessions(tmp_path: Path) -> None:
    sessions = list(import_file("otel-genai", ROOT / "tests/data/importers/otel_genai.json"))
    assert all(s.metadata.get("source") == "otel-genai" for s in sessions)
    records = [run()]
    t = 0.0
    for i, s in enumerate(sessions):
        for _ in range(s.llm_step_count()):
            records.append(step(f"s{i}", t, t + 10))
            t += 20
        records.append(session(f"s{i}"))
    block = summary_fidelity({"trace": "x"}, sessions.__getitem__,
                             write(tmp_path / "r.jsonl", records))
    assert block is not None
    assert block["figures"]["requests"]["status"] == "ok"
    assert block["figures"]["ISL p50"]["status"] == "not gated"  # recorded vs the server's
