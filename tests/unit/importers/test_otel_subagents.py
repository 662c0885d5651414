"""Subagents in OpenTelemetry GenAI traces (#21 item 5: a public trace format with subagents):
``invoke_agent`` spans under the root agent become a ``parallel`` step when they overlap, each
subagent a branch with its own task, system and steps (its chat and tool spans, nested agents
again); without subagents the import is unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MS = 1_000_000


def _attrs(**values: Any) -> list[dict[str, Any]]:
    return [{"key": k.replace("__", "."), "value": {"stringValue": v} if isinstance(v, str)
             else {"intValue": str(v)}} for k, v in values.items()]


def _span(span_id: str, parent: str, start_ms: int, end_ms: int, **attrs: Any) -> dict[str, Any]:
    return {"traceId": "t1", "spanId": span_id, "parentSpanId": parent, "name": span_id,
            "startTimeUnixNano": str(start_ms * MS), "endTimeUnixNano": str(end_ms * MS),
            "attributes": _attrs(**attrs)}


def _chat(span_id: str, parent: str, start: int, end: int, messages: list[dict[str, Any]],
          reply: dict[str, Any]) -> dict[str, Any]:
    return _span(span_id, parent, start, end, gen_ai__operation__name="chat",
                 gen_ai__input__messages=json.dumps(messages),
                 gen_ai__output__messages=json.dumps([reply]))


def _subagent(prefix: str, start: int, topic: str) -> list[dict[str, Any]]:
    task = [{"role": "system", "content": f"You research {topic}."},
            {"role": "user", "content": f"Find facts about {topic}."}]
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": f"{prefix}c", "type": "function",
         "function": {"name": "search", "arguments": json.dumps({"q": topic})}}]}
    return [
        _span(f"{prefix}agent", "root", start, start + 40, gen_ai__operation__name="invoke_agent",
              gen_ai__agent__name=f"researcher-{topic}"),
        _chat(f"{prefix}chat1", f"{prefix}agent", start + 1, start + 10, task, call),
        _span(f"{prefix}tool", f"{prefix}agent", start + 11, start + 20,
              gen_ai__operation__name="execute_tool", gen_ai__tool__name="search",
              gen_ai__tool__call__id=f"{prefix}c", gen_ai__tool__call__result=f"{topic} facts"),
        _chat(f"{prefix}chat2", f"{prefix}agent", start + 21, start + 39,
              [*task, call, {"role": "tool", "tool_call_id": f"{prefix}c",
                             "content": f"{topic} facts"}],
              {"role": "assistant", "content": f"{topic}: done"}),
    ]


def _trace(tmp_path: Path, overlap: bool = True) -> Path:
    user = [{"role": "system", "content": "You coordinate."},
            {"role": "user", "content": "Compare bees and ants."}]
    plan = {"role": "assistant", "content": "", "tool_calls": [
        {"id": f"t{x}", "type": "function",
         "function": {"name": "delegate", "arguments": json.dumps({"topic": topic})}}
        for x, topic in (("a", "bees"), ("b", "ants"))]}
    spans = [
        _span("root", "", 0, 200, gen_ai__operation__name="invoke_agent",
              gen_ai__conversation__id="conv-1", gen_ai__agent__name="coordinator"),
        _chat("plan", "root", 1, 9, user, plan),
        *_subagent("a", 10, "bees"),
        *_subagent("b", 15 if overlap else 60, "ants"),
        # the subagents' answers come back as the results of the hand-off calls
        _chat("merge", "root", 120, 150,
              [*user, plan, {"role": "tool", "tool_call_id": "ta", "content": "bees: done"},
               {"role": "tool", "tool_call_id": "tb", "content": "ants: done"}],
              {"role": "assistant", "content": "both are insects"}),
    ]
    path = tmp_path / "otel.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    return path


def test_overlapping_subagents_become_one_parallel_step(tmp_path: Path) -> None:
    from agentic_bench.trace.importers import import_file
    from agentic_bench.trace.semantics import check_session

    (session,) = list(import_file("otel-genai", _trace(tmp_path)))
    assert session.session_id == "conv-1"
    steps = session.turns[0].steps
    assert [s.kind for s in steps] == ["llm", "parallel", "llm"]
    branches = steps[1].branches  # type: ignore[union-attr]
    assert [b.name for b in branches] == ["researcher-bees", "researcher-ants"]
    assert branches[0].task == "Find facts about bees."
    assert branches[0].system == "You research bees."
    assert [s.kind for s in branches[0].steps] == ["llm", "tool", "llm"]
    assert session.llm_step_count() == 2 + 2 * 2
    assert check_session(session) == []


def test_subagents_one_after_another_are_separate_groups(tmp_path: Path) -> None:
    from agentic_bench.trace.importers import import_file

    (session,) = list(import_file("otel-genai", _trace(tmp_path, overlap=False)))
    kinds = [s.kind for s in session.turns[0].steps]
    assert kinds == ["llm", "parallel", "parallel", "llm"]
    assert [len(s.branches) for s in session.turns[0].steps  # type: ignore[union-attr]
            if s.kind == "parallel"] == [1, 1]


def test_a_trace_without_subagents_imports_as_before() -> None:
    from agentic_bench.trace.importers import import_file

    fixture = Path(__file__).parents[2] / "data" / "importers" / "otel_genai.json"
    sessions = list(import_file("otel-genai", fixture))
    assert sessions and all(s.kind != "parallel" for x in sessions for t in x.turns
                            for s in t.steps)
