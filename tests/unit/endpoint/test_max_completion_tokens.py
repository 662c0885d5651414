"""The embedded server honours OpenAI's ``max_completion_tokens`` (MLPerf Edge Agentic sends it)."""

from __future__ import annotations

import pytest

from agentic_bench.endpoint.chatml_tools import accept_max_completion_tokens

pytest.importorskip("llama_cpp.server.types")


def test_max_completion_tokens_becomes_max_tokens_unless_max_tokens_is_given() -> None:
    request = accept_max_completion_tokens()
    assert accept_max_completion_tokens() is request  # idempotent
    messages = [{"role": "user", "content": "hi"}]
    assert request(messages=messages, max_completion_tokens=1024).max_tokens == 1024
    assert request(messages=messages, max_completion_tokens=1024, max_tokens=8).max_tokens == 8
    assert request(messages=messages).max_tokens is None
    dumped = request(messages=messages, max_completion_tokens=7).model_dump()
    assert "max_completion_tokens" not in dumped  # never reaches Llama.create_chat_completion


def test_the_server_app_uses_the_patched_request_model() -> None:
    request = accept_max_completion_tokens()
    from llama_cpp.server import app

    assert app.CreateChatCompletionRequest is request


def test_vllm_top_k_minus_one_is_llama_cpps_zero() -> None:
    """MLPerf E2E-RAG sends top_k -1 (no top-k filter); llama-cpp-python's request model
    rejects negatives (ge=0), and llama.cpp skips top-k for k <= 0, so -1 becomes 0."""
    request = accept_max_completion_tokens()
    messages = [{"role": "user", "content": "hi"}]
    assert request(messages=messages, top_k=-1).top_k == 0
    assert request(messages=messages, top_k=7).top_k == 7
    from llama_cpp.server import types as server_types

    with pytest.raises(ValueError):  # the unpatched model rejects it: the patch is needed
        server_types.CreateChatCompletionRequest.__mro__[1](messages=messages, top_k=-1)
