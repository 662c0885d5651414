"""Test doubles for rag-agent: the tiny corpus as a FRAMES-style file, a scripted agent (search
the question, open the first page found, answer from a table) for a :class:`FakeTransport` or
as the latency simulator's oracle, and the options `run rag-agent ARGV` parses."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rag_e2e_support import DOCS, QUESTIONS

from agentic_bench.endpoint.oracle import OracleAnswer, script
from agentic_bench.tasks.rag_agent.task import task

ANSWERS = {QUESTIONS[0].question: "yes", QUESTIONS[1].question: "Paris"}
_PAGE = re.compile(r"^\[([^\]]+)\]", re.M)


def frames_file(path: Path) -> Path:
    """The two questions of rag_e2e_support with their documents, as `--frames FILE` reads."""
    docs = [{"title": d.title, "text": d.text} for d in DOCS]
    rows = [{"Prompt": q.question, "Answer": q.answer, "reasoning_types": q.type,
             "wiki_links": [f"https://en.wikipedia.org/wiki/{t.replace(' ', '_')}"
                            for t in q.supporting_titles],
             "documents": part}
            for q, part in zip(QUESTIONS, (docs[:3], docs[3:]), strict=True)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def scripted_turn(body: dict[str, Any], answers: dict[str, str] | None = None
                  ) -> dict[str, Any]:
    """The scripted agent's next reply to ``body``: ``{"content", "tool_calls"}`` with calls as
    ``{"name", "arguments"}`` (search the question; open the first page the search showed;
    answer from ``answers``, else "unknown")."""
    messages = body["messages"]
    question = next(m["content"] for m in messages if m["role"] == "user")
    tools = [m for m in messages if m["role"] == "tool"]
    if not tools:
        return {"content": "", "tool_calls": [{"name": "search",
                                               "arguments": {"query": question}}]}
    pages = _PAGE.findall(tools[-1]["content"])
    if len(tools) == 1 and pages:
        return {"content": "", "tool_calls": [{"name": "open",
                                               "arguments": {"page_id": pages[0]}}]}
    return {"content": f"Answer: {(answers or ANSWERS).get(question, 'unknown')}.",
            "tool_calls": []}


class ScriptedAgentOracle:
    """The simulator's oracle (``SimServer.oracle``): each reply is :func:`scripted_turn`'s,
    streamed one word (or argument piece) per chunk by the simulator's timing model."""

    def __init__(self, answers: dict[str, str] | None = None) -> None:
        self.answers = answers
        self.requests = 0
        self.judged = 0

    def answer(self, body: Any) -> OracleAnswer:
        """The scripted reply, as OpenAI tool-call deltas or content deltas; a request without
        tools is the judge's, answered ``{"correct": true}`` for the Paris question only."""
        if "tools" not in body:
            self.judged += 1
            text = json.dumps(body["messages"])
            return script(json.dumps({"correct": "capital of France" in text}), None)
        self.requests += 1
        turn = scripted_turn(body, self.answers)
        calls = [{"id": f"call_{self.requests}_{i}",
                  "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                 for i, c in enumerate(turn["tool_calls"])]
        return script(turn["content"] or None, calls or None)


def task_args(*argv: str) -> Any:
    """The options `agentic-bench run rag-agent ARGV` parses."""
    from agentic_bench.cli.run_cmd import parse_task_args

    return parse_task_args(task, list(argv))
