from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from rag_pipeline import Chunk, GenerationConfig, parse_answer, parse_queries, parse_yes_no
from rag_pipeline.generation import (
    answer_messages,
    decompose,
    generate_answer,
    reply_text,
)


@pytest.mark.parametrize(
    ("text", "default", "expected"),
    [
        ("Yes", False, True),
        ("no.", True, False),
        ("**YES** it is relevant", False, True),
        ("The answer is no, because yes-men...", True, False),
        ("noise yesterday nobody", True, True),  # no standalone yes/no: default
        ("", False, False),
    ],
)
def test_parse_yes_no(text: str, default: bool, expected: bool) -> None:
    assert parse_yes_no(text, default) is expected


def test_parse_queries_handles_lists_and_junk() -> None:
    text = (
        "Here are the queries:\n1. Scott Derrickson nationality\n2) Ed Wood\n"
        "- Ed wood\n* third\n4. fourth"
    )
    assert parse_queries(text, 3) == ["Scott Derrickson nationality", "Ed Wood", "third"]
    assert parse_queries('["a b", "c d"]', 3) == ["a b", "c d"]
    assert parse_queries("Query 1: x y\nQuery 2: x y", 3) == ["x y"]
    assert parse_queries("old one\nnew one", 3, exclude=["Old One"]) == ["new one"]
    assert parse_queries("", 3) == []
    assert parse_queries("z" * 400, 3) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Answer: Paris.", "Paris"),
        ('The answer is "Ed Wood"\nBecause...', "Ed Wood"),
        ("\n\n  yes  \n", "yes"),
        ("<think>hmm, let me see</think>\nFinal answer: 1994", "1994"),
        ("Washington, D.C.", "Washington, D.C."),
        ("", ""),
    ],
)
def test_parse_answer(text: str, expected: str) -> None:
    assert parse_answer(reply_text(type("R", (), {"content": text})())) == expected


def test_reply_text_tolerates_odd_replies() -> None:
    assert reply_text(object()) == ""
    assert reply_text(type("R", (), {"content": None})()) == ""


@dataclass
class Reply:
    content: str


def test_calls_pass_messages_and_params() -> None:
    seen: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []

    async def chat(messages: list[dict[str, Any]], params: dict[str, Any]) -> Reply:
        seen.append((messages, params))
        return Reply("1. a\n2. b\n3. c\n4. d")

    cfg = GenerationConfig(max_tokens_decompose=50)
    result = asyncio.run(decompose(chat, "Q?", 2, cfg))
    assert result.value == ["a", "b"] and isinstance(result.reply, Reply)
    assert seen[0][1] == {"temperature": 0.0, "max_tokens": 50}
    assert seen[0][0][-1] == {"role": "user", "content": "Question: Q?"}
    docs = [Chunk("d", "d#0", "Title", "t" * 5000, 0)]
    msgs = answer_messages("Q?", docs, cfg)
    assert "[1] Title: " + "t" * cfg.max_doc_chars + "\n" in msgs[1]["content"]
    assert "t" * (cfg.max_doc_chars + 1) not in msgs[1]["content"]
    answer = asyncio.run(generate_answer(chat, "Q?", docs, cfg))
    assert answer.value == "1. a"
