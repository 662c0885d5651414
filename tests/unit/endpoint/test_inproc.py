"""InprocChatClient with a fake ``Llama`` (no model needed)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.endpoint.inproc import SERVER_DEFAULTS, InprocChatClient, completion_kwargs


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "smollm2",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }  # fmt: skip


class FakeLlama:
    def __init__(self, delay_s: float = 0.0, fail: bool = False) -> None:
        self.delay_s = delay_s
        self.fail = fail
        self.calls: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()

    def create_chat_completion(self, **kwargs: Any) -> Iterator[dict[str, Any]]:
        self.calls.append(kwargs)
        if self.fail:
            raise ValueError("bad request")
        return self._gen(kwargs)

    def _gen(self, kwargs: dict[str, Any]) -> Iterator[dict[str, Any]]:
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            yield chunk({"role": "assistant", "content": ""})
            for word in ("Hello", " there", "!"):
                time.sleep(self.delay_s)
                yield chunk({"content": word})
            yield chunk({}, "stop")
            yield {**chunk({}), "choices": [],
                   "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}
        finally:
            with self.lock:
                self.active -= 1


def client(tmp_path: Path, llama: FakeLlama) -> InprocChatClient:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"gguf")
    c = InprocChatClient(model)
    c._llama = llama
    return c


def test_completion_kwargs_match_server_defaults() -> None:
    kwargs = completion_kwargs(
        {"model": "x", "messages": [], "max_completion_tokens": 9, "temperature": 0,
         "stream": True, "stream_options": {"include_usage": True}, "tools": None}
    )  # fmt: skip
    assert kwargs["max_tokens"] == 9 and kwargs["temperature"] == 0
    assert "model" not in kwargs and "stream" not in kwargs and "tools" not in kwargs
    assert kwargs["repeat_penalty"] == SERVER_DEFAULTS["repeat_penalty"]


def test_chat_fills_result_like_the_http_client(tmp_path: Path) -> None:
    llama = FakeLlama(delay_s=0.01)
    c = client(tmp_path, llama)
    r = asyncio.run(c.chat({"messages": [{"role": "user", "content": "hi"}]}))
    assert r.ok and r.content == "Hello there!" and r.finish_reason == "stop"
    assert r.tool_calls == []
    assert r.input_tokens == 7 and r.output_tokens == 3 and r.model == "smollm2"
    assert r.t_sent_ns < r.t_first_byte_ns < r.t_first_token_ns <= r.t_end_ns  # type: ignore[operator]
    assert len(r.token_times_ns) == 3 and r.token_times_ns == sorted(r.token_times_ns)
    assert r.token_times_ns[1] - r.token_times_ns[0] >= 5_000_000  # stamped as produced
    assert r.http_status is None and r.chunks == 6
    assert llama.calls[0]["model"] == "smollm2"


def test_a_request_for_tool_calls_is_refused_as_a_server_would(tmp_path: Path) -> None:
    """No shim since 2026-12-06: in-process, ``tools`` (``tool_choice`` not ``none``) is an
    error reply that names ``--endpoint embedded``, and the model is not called."""
    llama = FakeLlama()
    c = client(tmp_path, llama)
    ask = {"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function"}]}
    r = asyncio.run(c.chat(ask))
    assert not r.ok and r.error_type == "http_status" and llama.calls == []
    assert r.error is not None and "--endpoint embedded" in r.error
    r = asyncio.run(c.chat({**ask, "tool_choice": "none"}))  # tools listed, none to be called
    assert r.ok and r.content == "Hello there!" and len(llama.calls) == 1


def test_requests_are_serialized(tmp_path: Path) -> None:
    llama = FakeLlama(delay_s=0.01)
    c = client(tmp_path, llama)

    async def many() -> list[bool]:
        body = {"messages": [{"role": "user", "content": "hi"}]}
        results = await asyncio.gather(*(c.chat(body) for _ in range(4)))
        return [r.ok for r in results]

    assert asyncio.run(many()) == [True] * 4
    assert llama.max_active == 1


def test_timeout_and_model_error(tmp_path: Path) -> None:
    c = client(tmp_path, FakeLlama(delay_s=0.3))
    r = asyncio.run(c.chat({"messages": []}, timeout_s=0.1))
    assert r.status == "error" and r.error_type == "timeout"
    c = client(tmp_path, FakeLlama(fail=True))
    r = asyncio.run(c.chat({"messages": []}))
    assert r.error_type == "http_status" and "bad request" in (r.error or "")


def test_missing_model_is_a_start_error(tmp_path: Path) -> None:
    from agentic_bench.errors import EndpointStartError

    with pytest.raises(EndpointStartError):
        InprocChatClient(tmp_path / "missing.gguf")
