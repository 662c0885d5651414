"""Real-time first-token detection on raw SSE bytes."""

from __future__ import annotations

import json

from agentic_bench.loadgen.first_token import FirstTokenWatch, carries_token


def event(delta: dict[str, object]) -> bytes:
    return b"data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}).encode() + b"\n\n"


def test_carries_token_follows_the_transport_rule() -> None:
    assert carries_token(event({"content": "hi"})[6:].strip())
    assert carries_token(event({"reasoning_content": "hm"})[6:].strip())
    assert carries_token(event({"tool_calls": [{"index": 0}]})[6:].strip())
    assert not carries_token(event({"role": "assistant", "content": ""})[6:].strip())
    assert not carries_token(event({"role": "assistant"})[6:].strip())
    assert not carries_token(b"[DONE]")
    assert not carries_token(b'{"content": broken')
    assert not carries_token(b'["content"]')


def test_watch_fires_once_on_the_first_token_even_across_split_chunks() -> None:
    fired: list[int] = []
    watch = FirstTokenWatch(lambda: fired.append(1))
    role = event({"role": "assistant"})
    token = event({"content": "Hello"})
    assert watch(1, role) is False
    assert watch(2, token[:10]) is False  # an event split over two network reads
    assert watch(3, token[10:]) is True
    assert fired == [1] and watch.done
    assert watch(4, event({"content": "more"})) is True
    assert fired == [1]
