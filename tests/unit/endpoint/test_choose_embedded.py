"""#34, #45 item 4: which server ``--endpoint embedded`` starts — llama.cpp's ``llama-server``
(with our tool-call routing in front when the model is to make tool calls:
benchmarks/results/agentic-edge/llama-server-routing/), llama-cpp-python's when the binary is not
built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentic_bench.endpoint import llama_cpp_server
from agentic_bench.endpoint.llama_cpp_server import BINARY_ENV, choose_embedded


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.setenv(BINARY_ENV, str(binary))
    return binary


def test_without_tool_calls_it_is_llama_server(built: Path) -> None:
    assert choose_embedded(tool_routing=False)[0] == "llama-server"


def test_tool_calls_go_to_llama_server_with_our_routing(built: Path) -> None:
    server, why = choose_embedded(tool_routing=True)  # #45 item 4: one embedded server
    assert server == "llama-server" and "routing" in why


def test_with_routing_the_proxy_fronts_llama_server(built: Path, tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    server = llama_cpp_server.LlamaCppServer(model_path=model, port=5, slots=2,
                                             tool_routing=True)
    server.model_path, server.upstream_port = model, 6
    command = server.command()
    assert command[1:3] == ["-m", "agentic_bench.endpoint.routing_proxy"]
    assert command[command.index("--port") + 1] == "5"
    inner = command[command.index("--") + 1 :]
    assert inner[0] == os.fspath(built) and inner[inner.index("--port") + 1] == "6"
    assert inner[inner.index("--host") + 1] == "127.0.0.1"


def test_not_built_falls_back_and_says_how_to_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_cpp_server, "find_binary", lambda: None)
    server, why = choose_embedded(tool_routing=False)
    assert server == "llama-cpp-python" and "make install" in why


def test_the_server_gets_our_tool_template(built: Path, tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    server = llama_cpp_server.LlamaCppServer(model_path=model, port=1, slots=3)
    command = server.command()
    template = Path(command[command.index("--chat-template-file") + 1])
    assert template.is_file() and template.name == "smollm2-tools.jinja"
    assert command[command.index("--parallel") + 1] == "3"
    assert command[command.index("--ctx-size") + 1] == str(3 * 8192)
    assert os.fspath(built) == command[0]
