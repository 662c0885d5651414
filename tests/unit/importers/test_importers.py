from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pytest

from agentic_bench.cli import import_cmd
from agentic_bench.cli.errors import run_command
from agentic_bench.errors import TraceError, UsageError
from agentic_bench.trace import TraceFile, validate_file, write_sessions
from agentic_bench.trace.importers import FORMATS, IMPORTERS, detect_format, import_file
from agentic_bench.trace.importers.mooncake import (
    block_words,
    imported_shared_fraction,
    source_shared_fraction,
)
from agentic_bench.trace.model import SCHEMA_VERSION
from agentic_bench.trace.semantics import check_session

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "importers"
SAMPLES = {
    "abench": ("abench/deepswe_v1.1.jsonl", 2),
    "atif": ("atif_trajectory.json", 1),
    "claude-code": ("claude_code/project", 3),
    "codex": ("codex/sessions/2025/10/02/"
              "rollout-2025-10-02T10-00-00-0199a5c0-1f00-7a3b-8c1d-2e3f4a5b6c7d.jsonl", 1),
    "dynamo": ("dynamo_request_trace.jsonl", 3),
    "langsmith": ("langsmith_runs.jsonl", 2),
    "tracelab": ("tracelab.jsonl", 2),
    "mlcommons-agentic": ("mlcommons_agentic.jsonl", 3),
    "mooncake": ("mooncake.jsonl", 48),
    "otel-genai": ("otel_genai.json", 2),
    "sglang-agentic": ("sglang_agentic.json", 2),
    "sharegpt": ("sharegpt.json", 3),
    "weka": ("../weka/corpus.jsonl", 2),
}


def test_registry_lists_every_format() -> None:
    assert set(SAMPLES) | {"native"} == set(IMPORTERS) == set(FORMATS)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_sample_round_trips(fmt: str, tmp_path: Path) -> None:
    name, count = SAMPLES[fmt]
    path = DATA / name
    assert detect_format(path) == fmt
    sessions = list(import_file(fmt, path))
    assert len(sessions) == count
    assert len({s.session_id for s in sessions}) == count
    for s in sessions:
        assert s.schema_version == SCHEMA_VERSION
        assert check_session(s) == []
        assert s.metadata["source"] == fmt
        assert all(any(st.kind == "llm" for st in t.steps) for t in s.turns)
    out = tmp_path / "out.jsonl"
    write_sessions(out, sessions)
    report = validate_file(out)
    assert report.ok, report.problems
    assert [s.model_dump() for s in TraceFile(out)] == [s.model_dump() for s in sessions]
    assert detect_format(out) == "native"
    assert [s.model_dump() for s in import_file("auto", out)] == [
        s.model_dump() for s in sessions]


def test_mlcommons_mapping() -> None:
    first, chat, docs = import_file("mlcommons-agentic", DATA / "mlcommons_agentic.jsonl")
    assert first.session_id == "sympy__sympy-20590" and first.system.startswith("You are")
    assert len(first.turns) == 2 and first.turns[1].think_time_s == 6.5
    kinds = [st.kind for st in first.turns[0].steps]
    assert kinds == ["llm", "tool", "tool", "llm", "tool", "llm"]
    t1, t2 = first.turns[0].steps[1], first.turns[0].steps[2]
    assert t1.duration_ms == pytest.approx(206.0) and t2.duration_ms == pytest.approx(206.0)
    assert t1.call_id == "functions.bash:0" and t1.arguments["command"].startswith("grep")
    assert first.turns[0].steps[0].params == {"max_tokens": 1024}
    assert first.metadata["reasoning_content_messages"] == 1
    # every request carries the reference's exact history, reasoning_content included
    llm = [st for t in first.turns for st in t.steps if st.kind == "llm"]
    assert all(st.messages for st in llm)
    assert any("reasoning_content" in m for st in llm for m in st.messages or [])
    assert llm[1].messages[-2]["role"] == "tool" and llm[1].messages[-1]["role"] == "tool"
    assert chat.turns[1].steps[0].params == {"temperature": 0.2}
    assert docs.turns[0].steps[0].params == {"max_tokens": 256}
    assert [c.name for c in docs.turns[0].steps[0].output.tool_calls] == ["search_docs"] * 2


def test_otel_mapping() -> None:
    conv, rag = import_file("otel-genai", DATA / "otel_genai.json")
    assert conv.session_id == "conv-lisbon"  # two traces joined by gen_ai.conversation.id
    assert len(conv.metadata["trace_ids"]) == 2
    assert [t.user for t in conv.turns] == ["What's the weather in Lisbon?", "And tomorrow?"]
    assert conv.turns[1].think_time_s == pytest.approx(9.52)
    llm, tool, final = conv.turns[0].steps
    assert llm.usage.input_tokens == 88 and llm.duration_ms == pytest.approx(815.0)
    assert llm.params == {"max_tokens": 256, "temperature": 0.0}
    assert tool.name == "get_weather" and tool.duration_ms == pytest.approx(410.0)
    assert final.output.content.startswith("It is 21")
    assert conv.tool_names() == {"get_weather"}
    # histories equal what replay derives, so none is stored
    assert all(st.messages is None for t in conv.turns for st in t.steps if st.kind == "llm")
    assert [st.kind for st in rag.turns[0].steps] == ["embed", "llm"]
    assert rag.system == "Answer from the context. Be brief."
    assert rag.start_offset_s == pytest.approx(2.995)


def test_sharegpt_and_sglang_mapping() -> None:
    haiku, sql, prime = import_file("sharegpt", DATA / "sharegpt.json")
    assert [t.steps[0].output.content is not None for t in haiku.turns] == [True, True]
    assert sql.system == "You are a concise SQL tutor." and len(sql.turns) == 1
    assert prime.metadata["dropped_messages"] == 1 and prime.turns[-1].steps[0].output.content \
        is None
    first, second = import_file("sglang-agentic", DATA / "sglang_agentic.json")
    assert len(first.turns) == 3 and first.turns[0].steps[0].usage.input_tokens == 1843
    assert first.turns[0].user.startswith("<uploaded_files>")  # list-of-blocks content
    assert second.turns[1].user == "deploy.sh: 88 lines\n\nAlso print the plan."
    assert first.turns[0].steps[0].params == {"max_tokens": 220}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _rows(*rows: object) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


USER = {"conversation_id": "c", "turn": 1, "role": "user", "content": "hi"}
CALL = {"conversation_id": "c", "turn": 2, "role": "assistant", "tool_calls": [
    {"id": "k1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
SPAN = {"traceId": "t", "spanId": "s", "name": "chat", "startTimeUnixNano": "1",
        "endTimeUnixNano": "2", "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}
BROKEN = [
    ("mlcommons-agentic", "m.jsonl", _rows(USER, CALL, {
        "conversation_id": "c", "turn": 3, "role": "tool",
        "tool_results": [{"tool_call_id": "nope", "content": "x"}]}),
     ":3: tool_results[0].tool_call_id: 'nope' matches no tool call"),
    ("mlcommons-agentic", "m.jsonl", _rows(USER, {**USER, "conversation_id": "d"},
                                           {**USER, "turn": 2}),
     ":3: conversation_id: rows of conversation 'c' are not consecutive"),
    ("mlcommons-agentic", "m.jsonl", _rows(USER, "{oops"), ":2: malformed JSON"),
    ("mlcommons-agentic", "m.jsonl", _rows({**USER, "role": "assistant"}),
     ":1: role: 'assistant' cannot follow 'start'"),
    ("mooncake", "mc.jsonl", _rows({"timestamp": 0, "input_length": 10, "output_length": 5,
                                    "hash_ids": [1]},
                                   {"timestamp": 5, "input_length": -3, "output_length": 5,
                                    "hash_ids": [1]}), ":2: input_length: must be >= 1"),
    ("mooncake", "mc.jsonl", _rows({"timestamp": 0, "input_length": 10, "output_length": 5,
                                    "hash_ids": ["a"]}), ":1: hash_ids: must be a list"),
    ("otel-genai", "o.json", json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [
        {k: v for k, v in SPAN.items() if k != "startTimeUnixNano"}]}]}]}),
     ":0: resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: missing"),
    ("otel-genai", "o.json", json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [
        {**SPAN, "attributes": [*SPAN["attributes"], {"key": "gen_ai.input.messages",
                                                      "value": {"stringValue": "[{"}}]}]}]}]}),
     "spans[0]: gen_ai.input.messages is not valid JSON"),
    ("otel-genai", "o.json", '{"resourceSpans": [\n  {"scopeSpans": ]\n}', ":2: malformed JSON"),
    ("sglang-agentic", "s.json", json.dumps({"metadata": {}, "conversations": [[{"msgs": []}]]}),
     ":0: conversations[0][0].messages: each round needs a 'messages' list"),
    ("sharegpt", "g.json", json.dumps([{"id": "a", "conversations": [
        {"from": "human", "value": "x"}, {"from": "robot", "value": "y"}]}]),
     ":0: [0].conversations[1].from: unknown speaker 'robot'"),
    ("sharegpt", "g.jsonl", _rows({"id": "a", "conversations": "nope"}),
     ":1: conversations: missing or not a list"),
]


@pytest.mark.parametrize(("fmt", "name", "text", "expect"), BROKEN)
def test_broken_input_reports_location(fmt: str, name: str, text: str, expect: str,
                                       tmp_path: Path) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(TraceError) as info:
        list(import_file(fmt, path))
    message = str(info.value)
    assert message.startswith(str(path)), message
    assert expect in message, message


def test_mooncake_blocks_are_deterministic_and_shared() -> None:
    assert block_words(42) == block_words(42) != block_words(43)
    assert len(block_words(7)) == 512
    sessions = list(import_file("mooncake", DATA / "mooncake.jsonl"))
    for s in sessions:  # each prompt is input_length words ≈ input_length tokens (chars/4)
        words = s.turns[0].user.split(" ")
        assert len(words) == s.turns[0].steps[0].usage.input_tokens
        assert abs(len(s.turns[0].user) / 4 - len(words)) <= 1
    offsets = [s.start_offset_s for s in sessions]
    assert offsets == sorted(offsets) and offsets[0] == 0.0


def _synthetic_mooncake(path: Path, n: int, seed: int) -> None:
    rng = random.Random(seed)
    prompts = [list(range(i * 10, i * 10 + rng.randint(1, 6))) for i in range(5)]
    next_id, rows, ts = 10_000, [], 0
    for _ in range(n):
        ts += rng.randint(0, 400)
        ids = list(rng.choice(prompts)) if rng.random() < 0.7 else []
        extra = rng.randint(1, 12)
        ids += list(range(next_id, next_id + extra))
        next_id += extra
        rows.append({"timestamp": ts, "input_length": (len(ids) - 1) * 512 + rng.randint(1, 512),
                     "output_length": rng.randint(1, 800), "hash_ids": ids})
    rng.shuffle(rows)  # file order is not arrival order
    path.write_text(_rows(*rows))


@pytest.mark.parametrize("source", ["sample", "synthetic"])
def test_mooncake_shared_prefix_fraction_is_preserved(source: str, tmp_path: Path) -> None:
    path = DATA / "mooncake.jsonl"
    if source == "synthetic":
        path = tmp_path / "big.jsonl"
        _synthetic_mooncake(path, 600, seed=3)
    want = source_shared_fraction(path)
    got = imported_shared_fraction(list(import_file("mooncake", path)))
    assert want > 0.2
    assert abs(got - want) <= 0.01, (got, want)


def test_import_cli_writes_only_complete_output(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    import_cmd.register(parser.add_subparsers())
    out = tmp_path / "t.jsonl"
    args = parser.parse_args(["import", "auto", str(DATA / "sharegpt.json"), "--out", str(out)])
    assert run_command(args.func, args) == 0
    assert validate_file(out).sessions == 3
    bad = _write(tmp_path, "bad.jsonl", _rows(USER, "{oops"))
    out2 = tmp_path / "t2.jsonl"
    args = parser.parse_args(["import", "mlcommons-agentic", str(bad), "--out", str(out2)])
    assert run_command(args.func, args) == 2
    assert not out2.exists() and list(tmp_path.glob(".*tmp*")) == []
    later = _write(tmp_path, "later.jsonl", _rows(USER, {**USER, "conversation_id": "d",
                                                         "role": "assistant"}))
    args = parser.parse_args(["import", "auto", str(later), "--out", str(out2), "--limit", "1"])
    assert run_command(args.func, args) == 0  # stops before the broken conversation
    assert validate_file(out2).sessions == 1
    with pytest.raises(UsageError, match="unknown trace format"):
        list(import_file("nope", bad))
    unknown = _write(tmp_path, "x.txt", "hello")
    with pytest.raises(UsageError, match="cannot tell its format"):
        list(import_file("auto", unknown))


def test_repeated_ids_are_made_unique(tmp_path: Path) -> None:
    path = _write(tmp_path, "g.json", json.dumps(
        [{"id": "same", "conversations": [{"from": "human", "value": str(i)}]} for i in range(3)]))
    assert [s.session_id for s in import_file("sharegpt", path)] == ["same", "same#2", "same#3"]


def test_otel_jsonl_export_and_legacy_indexed_attributes(tmp_path: Path) -> None:
    doc = json.loads((DATA / "otel_genai.json").read_text())
    path = tmp_path / "spans.jsonl"
    path.write_text(_rows(*({"resourceSpans": [rs]} for rs in doc["resourceSpans"])))
    assert detect_format(path) == "otel-genai"
    assert [s.session_id for s in import_file("auto", path)] == [
        s.session_id for s in import_file("otel-genai", DATA / "otel_genai.json")]

    def attr(key: str, value: object) -> dict[str, object]:
        kind = "intValue" if isinstance(value, int) else "stringValue"
        return {"key": key, "value": {kind: value}}

    span = {**SPAN, "attributes": [
        attr("gen_ai.operation.name", "chat"), attr("gen_ai.prompt.0.role", "user"),
        attr("gen_ai.prompt.0.content", "ping"), attr("gen_ai.completion.0.content", ""),
        attr("gen_ai.completion.0.tool_calls.0.name", "probe"),
        attr("gen_ai.completion.0.tool_calls.0.arguments", '{"n": 1}'),
        attr("gen_ai.usage.prompt_tokens", 3)]}
    legacy = _write(tmp_path, "legacy.json", json.dumps(
        {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    (s,) = import_file("otel-genai", legacy)
    step = s.turns[0].steps[0]
    assert s.turns[0].user == "ping" and step.usage.input_tokens == 3
    assert [(c.name, c.arguments) for c in step.output.tool_calls] == [("probe", {"n": 1})]
    assert s.metadata["stub_tool_declarations"] == 1 and s.tool_names() == {"probe"}


def test_detects_formats_with_long_first_lines(tmp_path: Path) -> None:
    long_native = tmp_path / "long.jsonl"
    write_sessions(long_native, [s for s in import_file("sharegpt", DATA / "sharegpt.json")])
    text = long_native.read_text()
    row = json.loads(text.splitlines()[0])
    row["turns"][0]["user"] = "x" * 200_000
    long_native.write_text(json.dumps(row) + "\n" + text)
    assert detect_format(long_native) == "native"
    compact = tmp_path / "sg.json"
    data = json.loads((DATA / "sglang_agentic.json").read_text())
    data["metadata"]["note"] = "y" * 100_000
    compact.write_text(json.dumps(data))
    assert detect_format(compact) == "sglang-agentic"
