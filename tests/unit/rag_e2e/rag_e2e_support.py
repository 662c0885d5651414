"""Test doubles for the rag-e2e unit tests: a hash embedder, a tiny corpus, a scripted chat
transport, and a helper that runs sessions through the real load runner."""

from __future__ import annotations

import argparse
import asyncio
import re
import zlib
from collections.abc import Sequence
from time import perf_counter_ns
from typing import Any

import numpy as np

from agentic_bench.contracts import ExecContext, SessionSource
from agentic_bench.load.runner import LoadRunner
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.tasks.rag_e2e.executor import RagShared, make_executor
from agentic_bench.tasks.rag_e2e.task import task
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn
from agentic_bench.transport.result import ChatResult
from rag_pipeline import Document, Question

_TOKEN = re.compile(r"\w+")

DOCS = [
    Document("Ed Wood", "Ed Wood", "Edward Davis Wood Jr. was an American filmmaker and actor."),
    Document("Scott Derrickson", "Scott Derrickson", "Scott Derrickson is an American director."),
    Document("Tyler Bates", "Tyler Bates", "Tyler Bates is an American musician and composer."),
    Document("Woodson", "Woodson, Arkansas", "Woodson is a place in Pulaski County, Arkansas."),
    Document("Paris", "Paris", "Paris is the capital and largest city of France."),
    Document("Doctor Strange", "Doctor Strange", "Doctor Strange is a 2016 film by Derrickson."),
]
QUESTIONS = [
    Question(id="q1", question="Were Scott Derrickson and Ed Wood of the same nationality?",
             answer="yes", type="comparison", supporting_titles=("Scott Derrickson", "Ed Wood"),
             paragraphs=(DOCS[0], DOCS[1], DOCS[2])),
    Question(id="q2", question="What is the capital of France?", answer="Paris", type="bridge",
             supporting_titles=("Paris",), paragraphs=(DOCS[4], DOCS[3], DOCS[5])),
]


class HashEmbedder:
    """Deterministic bag-of-words embedder: texts sharing words get similar vectors."""

    name = "hash-bow-64"
    dim = 64

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                out[row, zlib.crc32(token.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)


def stage_of(body: dict[str, Any]) -> str:
    """Which pipeline prompt a request is (from its system message)."""
    system = body["messages"][0]["content"]
    if "not enough" in system:
        return "next"
    if "Break the user's question" in system:
        return "decompose"
    if "judge whether a document" in system:
        return "grade"
    if "enough information" in system:
        return "sufficiency"
    return "answer"


class ScriptedTransport:
    """A chat transport double: replies by prompt kind, timed like a real stream."""

    def __init__(self, replies: dict[str, str] | None = None, fail_on: str | None = None,
                 answers: dict[str, str] | None = None) -> None:
        self.replies = {"decompose": "1. Scott Derrickson nationality\n2. Ed Wood nationality",
                        "grade": "yes", "sufficiency": "yes", "next": "", "answer": "yes",
                        **(replies or {})}
        self.answers = answers or {}
        self.fail_on = fail_on
        self.bodies: list[dict[str, Any]] = []

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        self.bodies.append(body)
        t = perf_counter_ns()
        await asyncio.sleep(0.001)
        kind = stage_of(body)
        if kind == self.fail_on:
            return ChatResult(t_sent_ns=t, t_end_ns=perf_counter_ns()).fail(
                "http_status", "HTTP 500", status="error")
        text = self.replies[kind]
        if kind == "answer":
            last = body["messages"][-1]["content"]
            text = next((a for q, a in self.answers.items() if q in last), text)
        end = perf_counter_ns()
        return ChatResult(t_sent_ns=t, t_first_token_ns=t + 1000, t_end_ns=end,
                          token_times_ns=[t + 1000, end], output_tokens=2, input_tokens=50,
                          content=text)

    async def aclose(self) -> None:
        return None


def task_args(*argv: str) -> argparse.Namespace:
    """The options `agentic-bench run rag-e2e ARGV` parses (presets such as --mlperf applied)."""
    from agentic_bench.cli.run_cmd import parse_task_args

    return parse_task_args(task, list(argv))


def sessions_for(shared: RagShared) -> list[Session]:
    return [Session(schema_version=SCHEMA_VERSION, session_id=q.id, category=q.type,
                    turns=[Turn(user=q.question)]) for q in shared.questions.values()]


def run_shared(shared: RagShared, transport: Any, scenario: str = "single-stream",
               **load: Any) -> list[dict[str, Any]]:
    sessions = sessions_for(shared)
    records: list[dict[str, Any]] = []
    ctx = ExecContext(transport, records.append, perf_counter_ns(), ReplayOptions(model="m"))
    spec = LoadSpec(scenario=scenario, sessions=len(sessions), **load)
    runner = LoadRunner(spec, SessionSource(len(sessions), sessions.__getitem__),
                        make_executor(shared)(ctx))
    asyncio.run(runner.run())
    return records
