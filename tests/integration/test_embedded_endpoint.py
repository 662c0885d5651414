"""The embedded endpoint for real: llama.cpp's ``llama-server`` with the packaged SmolLM2 GGUF,
behind our tool-call routing where the model is to call tools.

Skipped (with the reason) only when the llama-server binary, llama_cpp (inproc) or the model is
not installed. Two servers are shared by the module (llama-server alone, and behind the routing
proxy); the lifecycle tests start their own. (Until 2026-12-06 this file tested
llama-cpp-python's server with our chat-format shim; both were removed.)
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.endpoint.llama_server import (
    HINT,
    LlamaServer,
    find_binary,
    free_port,
    port_is_free,
)
from agentic_bench.endpoint.model_file import locate_model
from agentic_bench.errors import EndpointStartError
from agentic_bench.transport.choose import make_chat_client
from agentic_bench.transport.result import ChatResult

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration

if importlib.util.find_spec("llama_cpp") is None:
    pytest.skip(
        "llama-cpp-python is not installed (scripts/install_llama.sh .venv/bin/pip)",
        allow_module_level=True,
    )
if find_binary() is None:
    pytest.skip(f"no llama-server here: {HINT}", allow_module_level=True)
try:
    locate_model()
except EndpointStartError as exc:
    pytest.skip(f"model not installed: {exc}", allow_module_level=True)

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
HELLO = {
    "model": "smollm2",
    "messages": [{"role": "user", "content": "Say hello in five words."}],
    "max_tokens": 16,
    "temperature": 0,
    "seed": 1,
}


def pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except FileNotFoundError:
        return False


def server_processes(port: int) -> list[int]:
    """PIDs of embedded server processes (``--alias``: llama-server, or the routing proxy in
    front of it) serving ``--port port``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        serving = b"--alias" in argv and b"--port" in argv
        if serving and argv[argv.index(b"--port") + 1] == str(port).encode() \
                and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def wait_gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaServer]:
    with LlamaServer(start_timeout_s=180) as srv:
        yield srv


@pytest.fixture(scope="module")
def routed() -> Iterator[LlamaServer]:
    """The embedded endpoint of a workload whose model calls tools: the routing proxy in front."""
    with LlamaServer(start_timeout_s=180, tool_routing=True) as srv:
        yield srv


def chat(base_url: str, body: dict[str, Any], kind: str = "raw") -> ChatResult:
    async def go() -> ChatResult:
        client = make_chat_client(base_url, kind=kind)
        try:
            return await client.chat(body, timeout_s=120)
        finally:
            await client.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("kind", ["raw", "aiohttp"])
def test_streamed_reply_with_ttft(server: LlamaServer, kind: str) -> None:
    r = chat(server.base_url, HELLO, kind)
    assert r.ok, r.error
    assert r.content.strip() and r.finish_reason in ("stop", "length")
    assert r.t_first_token_ns is not None and r.t_first_token_ns > r.t_sent_ns
    assert r.token_times_ns == sorted(r.token_times_ns) and r.t_end_ns >= r.token_times_ns[-1]
    assert r.model == "smollm2"
    assert r.input_tokens and r.output_tokens  # llama-server's usage chunk
    info = server.info()
    assert len(info["model_sha256"]) == 64 and info["kind"] == "llama-server"
    assert info["server"].startswith("llama-server (llama.cpp from llama-cpp-python 0.3.36")


@pytest.mark.parametrize("kind", ["raw", "aiohttp"])
def test_tool_call_is_an_openai_tool_call(routed: LlamaServer, kind: str) -> None:
    body = {
        "model": "smollm2",
        "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
        "tools": [WEATHER_TOOL],
        "tool_choice": "auto",
        "max_tokens": 64,
        "temperature": 0,
    }
    r = chat(routed.base_url, body, kind)
    assert r.ok, r.error
    assert r.finish_reason == "tool_calls" and r.t_first_token_ns is not None
    assert len(r.tool_calls) >= 1
    call = r.tool_calls[0]
    assert call["name"] == "get_weather" and call["id"]
    assert isinstance(json.loads(call["arguments"]).get("city"), str)


def test_max_completion_tokens_bounds_the_reply(server: LlamaServer) -> None:
    body = {"model": "smollm2", "temperature": 0, "seed": 1, "max_completion_tokens": 3,
            "messages": [{"role": "user", "content": "Count from 1 to 100, comma separated."}]}
    r = chat(server.base_url, body)
    assert r.ok, r.error
    assert r.output_tokens == 3 and r.finish_reason == "length"


def test_second_turn_of_a_conversation_hits_the_prompt_cache(server: LlamaServer) -> None:
    """#21 item 1: the embedded server reports llama.cpp's prefix reuse as OpenAI's
    usage.prompt_tokens_details.cached_tokens; a follow-up request that resends the history
    reuses all of its first prompt."""
    first_msgs = [{"role": "system", "content": "You answer in one short sentence."},
                  {"role": "user", "content": "Name a colour of the sky."}]
    body = {"model": "smollm2", "temperature": 0, "max_tokens": 8, "messages": first_msgs}
    chat(server.base_url, {**body, "messages": [{"role": "user", "content": "Reset."}]})
    first = chat(server.base_url, body)
    assert first.ok and first.cached_tokens is not None and first.input_tokens
    assert first.cached_tokens < first.input_tokens // 2  # a different conversation came first
    follow = [*first_msgs, {"role": "assistant", "content": first.content},
              {"role": "user", "content": "And of grass?"}]
    second = chat(server.base_url, {**body, "messages": follow})
    assert second.ok and second.cached_tokens is not None and second.input_tokens
    assert second.cached_tokens >= first.input_tokens - 2  # the whole first prompt, reused
    assert second.cached_tokens < second.input_tokens


def test_inproc_and_http_fill_the_same_fields(server: LlamaServer) -> None:
    from agentic_bench.endpoint.inproc import InprocChatClient

    async def go() -> ChatResult:
        client = InprocChatClient()
        try:
            return await client.chat(HELLO, timeout_s=120)
        finally:
            await client.aclose()

    inproc = asyncio.run(go())
    http = chat(server.base_url, HELLO)
    assert inproc.ok and http.ok, (inproc.error, http.error)

    def populated(r: ChatResult) -> set[str]:
        empty = (None, "", [])
        return {f.name for f in fields(r) if getattr(r, f.name) not in empty}

    # http_status is the one field that only HTTP has
    assert populated(inproc) == populated(http) - {"http_status"}


def test_exception_inside_with_leaves_no_server() -> None:
    srv = LlamaServer()
    with pytest.raises(RuntimeError, match="boom"), srv:
        pid, port = srv.pid, srv.port
        assert pid is not None and port is not None and pid_alive(pid)
        raise RuntimeError("boom")
    assert wait_gone(pid)
    assert server_processes(port) == []
    assert port_is_free("127.0.0.1", port)


def test_busy_port_is_refused(server: LlamaServer) -> None:
    assert server.port is not None
    with pytest.raises(EndpointStartError, match="busy"):
        LlamaServer(port=server.port).start()


def test_serve_command_stops_on_sigint() -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentic_bench", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()  # printed once /v1/models answers
        assert url == f"http://127.0.0.1:{port}/v1", proc.stderr.read() if proc.stderr else ""
        with urllib.request.urlopen(f"{url}/models", timeout=10) as resp:
            assert json.load(resp)["data"][0]["id"] == "smollm2"
        servers = server_processes(port)
        assert len(servers) == 1
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert wait_gone(servers[0])
    assert server_processes(port) == []
    assert port_is_free("127.0.0.1", port)


def test_a_run_without_endpoint_says_it_starts_the_bundled_model(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = subprocess.run([sys.executable, "-m", "agentic_bench", "replay",
                          str(ROOT / "traces" / "sample.jsonl"), "--sessions", "1",
                          "--max-tokens", "4", "--out", str(out), "--quiet"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert res.returncode in (0, 3), res.stderr
    assert "endpoint: embedded = llama-server (a slot per stream" in res.stderr  # #34, #45/4
    assert "starting llama.cpp's llama-server" in res.stderr
    assert "pass --endpoint URL" in res.stderr and (out / "server.log").stat().st_size > 0


def _server_child(parent: int) -> int | None:
    """The pid of the embedded server started by process ``parent`` (its child with the model:
    ``-m`` for llama-server)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent and \
                b"-m" in cmdline:
            return int(entry.name)
    return None


def test_a_server_killed_mid_replay_is_restarted_and_the_run_goes_on(tmp_path: Path) -> None:
    """#34 item 4: SIGKILL the embedded server in the middle of a replay (6 sessions, 2
    streams). Requests that meet the dead server wait for its restart instead of failing at once;
    only the requests in flight at the kill fail; the restart is in the summary."""
    out = tmp_path / "run"
    cli = subprocess.Popen([sys.executable, "-m", "agentic_bench", "replay",
                            str(ROOT / "traces" / "sample.jsonl"), "--sessions", "6",
                            "--scenario", "concurrency", "--concurrency", "2",
                            "--max-tokens", "24", "--out", str(out), "--quiet"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=ROOT)
    try:
        deadline = time.monotonic() + 240
        records = out / "records.jsonl"
        while not (records.is_file() and '"type":"step"' in records.read_text()):
            assert cli.poll() is None and time.monotonic() < deadline, cli.communicate()
            time.sleep(0.05)
        pid = _server_child(cli.pid)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        _, err = cli.communicate(timeout=400)
    finally:
        if cli.poll() is None:
            cli.kill()
    summary = json.loads((out / "summary.json").read_text())
    restarts = summary["endpoint"]["restarts"]
    assert len(restarts) == 1 and restarts[0]["signal"] == "SIGKILL", (restarts, err)
    assert restarts[0]["pid"] not in (None, pid)
    counts = summary["counts"]
    assert counts["errors"] <= 2, counts  # at most the two requests in flight at the kill
    assert counts["sessions_ok"] >= 4, counts
    assert "Restarts  : the embedded server died 1x (SIGKILL)" in (out / "summary.txt").read_text()
