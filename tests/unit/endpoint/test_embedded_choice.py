"""#34, #45 item 4: ``--endpoint embedded`` is llama.cpp's ``llama-server`` (with our tool-call
routing in front when the model is to make tool calls:
benchmarks/results/agentic-edge/llama-server-routing/); a missing binary is an error saying how
to build it (no fallback: llama-cpp-python's server was removed on 2026-12-06), and
``--endpoint llama-cpp-python`` is refused naming what replaces it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agentic_bench.endpoint import llama_server
from agentic_bench.endpoint.llama_server import BINARY_ENV, LlamaServer
from agentic_bench.endpoint.resolve import _embedded_server, open_endpoint
from agentic_bench.errors import EndpointError


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.setenv(BINARY_ENV, str(binary))
    return binary


@pytest.mark.parametrize("spec", ["embedded", "llama-server"])
@pytest.mark.parametrize("tool_routing", [False, True])
def test_embedded_is_llama_server_with_routing_when_tools_are_called(
        built: Path, spec: str, tool_routing: bool) -> None:
    server = _embedded_server(spec, tool_routing, None, slots=2)
    assert isinstance(server, LlamaServer) and server.binary == built
    assert server.tool_routing is tool_routing and server.slots == 2


def test_a_url_starts_no_server(built: Path) -> None:
    assert _embedded_server("http://127.0.0.1:1/v1", True, None, slots=1) is None


def test_not_built_is_an_error_that_says_how_to_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_server, "find_binary", lambda: None)
    for tool_routing in (False, True):
        with pytest.raises(EndpointError, match=r"not built.*make install.*install_llama_server"):
            _embedded_server("embedded", tool_routing, None, slots=1)


def test_llama_cpp_python_is_refused_naming_the_replacements(built: Path) -> None:
    with pytest.raises(EndpointError, match="removed on 2026-12-06") as caught:
        _embedded_server("llama-cpp-python", False, None, slots=1)
    for replacement in ("--endpoint embedded", "llama-server", "--endpoint inproc"):
        assert replacement in str(caught.value)


def test_inproc_is_refused_when_the_model_is_to_call_tools() -> None:
    async def go() -> None:
        async with open_endpoint("inproc", None, None, tool_routing=True):
            raise AssertionError("inproc opened for a tool-calling workload")

    with pytest.raises(EndpointError, match=r"no tool calls.*--endpoint embedded"):
        asyncio.run(go())


def test_with_routing_the_proxy_fronts_llama_server(built: Path, tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    server = LlamaServer(model_path=model, port=5, slots=2, tool_routing=True)
    server.model_path, server.upstream_port = model, 6
    command = server.command()
    assert command[1:3] == ["-m", "agentic_bench.endpoint.routing_proxy"]
    assert command[command.index("--port") + 1] == "5"
    inner = command[command.index("--") + 1 :]
    assert inner[0] == os.fspath(built) and inner[inner.index("--port") + 1] == "6"
    assert inner[inner.index("--host") + 1] == "127.0.0.1"


def test_the_server_gets_our_tool_template(built: Path, tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    server = LlamaServer(model_path=model, port=1, slots=3)
    server.model_path = model
    command = server.command()
    template = Path(command[command.index("--chat-template-file") + 1])
    assert template.is_file() and template.name == "smollm2-tools.jinja"
    assert command[command.index("--parallel") + 1] == "3"
    assert command[command.index("--ctx-size") + 1] == str(3 * 8192)
    assert os.fspath(built) == command[0]
    assert command[command.index("--alias") + 1] == "smollm2"


def test_an_old_command_line_exits_2_naming_the_replacements(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    res = subprocess.run([sys.executable, "-m", "agentic_bench", "replay",
                          str(root / "traces" / "sample.jsonl"), "--endpoint", "llama-cpp-python",
                          "--out", str(tmp_path / "run")],
                         capture_output=True, text=True, cwd=root, timeout=120)
    assert res.returncode == 2, res.stderr
    assert "removed on 2026-12-06" in res.stderr and "--endpoint embedded" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "run" / "records.jsonl").exists()


def test_embedded_says_what_it_starts_and_why(built: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _embedded_server("embedded", True, None, slots=1)
    err = capsys.readouterr().err
    assert "endpoint: embedded = llama-server (the model is to call tools: our routing" in err
    _embedded_server("llama-server", False, None, slots=1)
    assert "embedded =" not in capsys.readouterr().err  # asked for by name: nothing to explain
