"""``sim --replay-trace``: the simulator answers with the recorded reply for a known history."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.cli.main import main as cli_main
from agentic_bench.endpoint.oracle import ReplayOracle, history_key, script
from agentic_bench.endpoint.sim import SimConfig, SimServer
from agentic_bench.trace.mlcommons_agentic import (
    ClientRow,
    load_conversations,
    request_body,
)
from agentic_bench.transport import ChatResult, make_chat_client

REPO = Path(__file__).resolve().parents[3]
NAME = "agentic_coding_excerpt.jsonl"
KINDS = ["raw", "aiohttp"]


def fixture_path() -> Path:
    return REPO / "tests" / "data" / "mlcommons_edge" / NAME  # in the repo (NOTICE.md there)


def ask(kind: str, bodies: list[dict[str, Any]]) -> list[ChatResult]:
    async def go() -> list[ChatResult]:
        server = SimServer(SimConfig(ttft_ms=1, itl_ms=0, replay_trace=str(fixture_path())))
        port = await server.start()
        client = make_chat_client(f"http://127.0.0.1:{port}", kind=kind, timeout_s=10)
        try:
            return [await client.chat(body) for body in bodies]
        finally:
            await client.aclose()
            await server.stop()

    return asyncio.run(go())


def recorded_calls(row: ClientRow) -> list[dict[str, Any]]:
    assert row.reply is not None and row.reply.tool_calls
    return [{"id": c["id"], "name": c["function"]["name"],
             "arguments": c["function"]["arguments"]} for c in row.reply.tool_calls]


@pytest.mark.parametrize("kind", KINDS)
def test_recorded_tool_calls_streamed(kind: str) -> None:
    convs = load_conversations(fixture_path())
    parallel = next(r for c in convs for r in c.rows
                    if r.reply and r.reply.tool_calls and len(r.reply.tool_calls) == 2)
    rows = [convs[0].rows[0], convs[0].rows[1], convs[1].rows[-1], parallel]
    results = ask(kind, [request_body(r, model="sim") for r in rows])
    for row, res in zip(rows, results, strict=True):
        assert res.ok, res.error
        assert res.tool_calls == recorded_calls(row)
        assert row.reply is not None and res.reasoning == (row.reply.reasoning_content or "")
        assert res.content == (row.reply.content or "")
        assert res.finish_reason == "tool_calls"
        assert len(res.token_times_ns) > 2  # streamed in pieces, not one chunk


@pytest.mark.parametrize("kind", KINDS)
def test_unknown_history_gets_text(kind: str) -> None:
    row = load_conversations(fixture_path())[0].rows[1]
    edited = request_body(row)
    edited["messages"] = [*row.messages[:-1], {**row.messages[-1], "content": "edited"}]
    weird = {"messages": "not a list", "stream": True}
    results = ask(kind, [edited, {"messages": [{"role": "user", "content": "hello"}],
                                  "stream": True}, weird])
    for res in results:
        assert res.ok, res.error
        assert res.content.startswith("oracle: no recorded reply for this history")
        assert res.tool_calls == [] and res.finish_reason == "stop"


def test_oracle_matching_rules() -> None:
    oracle = ReplayOracle.from_file(fixture_path())
    row = load_conversations(fixture_path())[0].rows[1]
    assert len(oracle.replies) == 71
    # null content spelled out, and keys in another order, still match
    spelled = [{**{k: m[k] for k in reversed(list(m))}, **({"content": None}
               if "content" not in m else {})} for m in row.messages]
    assert history_key(spelled) == history_key(row.messages)
    hit = oracle.answer({"messages": spelled})
    assert hit.matched and hit.finish_reason == "tool_calls"
    assert hit.message["content"] is None
    assert [c["function"] for c in hit.message["tool_calls"]] == [
        c["function"] for c in row.reply.tool_calls]  # type: ignore[union-attr]
    for body in (None, [], {"messages": [object()]}, {"messages": [{"role": "user"}]}):
        miss = oracle.answer(body)
        assert not miss.matched and miss.message["content"].startswith("oracle: no recorded")


def test_script_deltas_rebuild_the_reply() -> None:
    ans = script("a b  c", [{"id": "x", "function": {"name": "f", "arguments": {"k": 1}}}],
                 "think hard")
    assert ans.deltas[0]["role"] == "assistant"
    text = "".join(d.get("content", "") for d in ans.deltas)
    think = "".join(d.get("reasoning_content", "") for d in ans.deltas)
    args = "".join(d["tool_calls"][0]["function"].get("arguments", "")
                   for d in ans.deltas if "tool_calls" in d)
    assert (text, think, json.loads(args)) == ("a b  c", "think hard", {"k": 1})


def test_cli_rejects_a_broken_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"conversation_id": "c", "turn": 2, "role": "user", "content": "x"}\n')
    assert cli_main(["sim", "--port", "0", "--replay-trace", str(bad)]) == 2
    assert f"{bad}:1: turn: expected 1" in capsys.readouterr().err
    other = tmp_path / "other.jsonl"
    other.write_text('{"schema_version": "1", "turns": []}\n')
    assert cli_main(["sim", "--port", "0", "--replay-trace", str(other)]) == 2
