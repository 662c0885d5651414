"""#45 item 4: ``llama-server`` with our tool-call routing in front (``routing_proxy``) — a tool
call from the real model comes back as structured OpenAI ``tool_calls`` (streamed and not), a
request without tools and ``/metrics`` pass through to llama-server, and a crash of llama-server
takes the pair down for the supervisor to restart."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from agentic_bench.endpoint.llama_server import HINT, LlamaServer, find_binary
from agentic_bench.transport.choose import make_chat_client
from agentic_bench.transport.result import ChatResult

pytestmark = pytest.mark.skipif(find_binary() is None, reason=f"no llama-server here: {HINT}")

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
ASK = {"model": "smollm2", "temperature": 0, "max_tokens": 64, "tools": [WEATHER],
       "messages": [{"role": "user", "content": "What is the weather in Paris?"}]}


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaServer]:
    srv = LlamaServer(slots=1, tool_routing=True, start_timeout_s=120)
    with srv:
        yield srv


def _chat(url: str, body: dict[str, Any]) -> ChatResult:
    async def go() -> ChatResult:
        client = make_chat_client(url)
        try:
            return await client.chat({"stream": True, **body})
        finally:
            await client.aclose()

    return asyncio.run(go())


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as resp:
        return dict(json.loads(resp.read()))


def test_a_tool_call_comes_back_structured(server: LlamaServer) -> None:
    result = _chat(server.base_url, {**ASK, "stream_options": {"include_usage": True}})
    assert result.ok, result.error
    assert [c["name"] for c in result.tool_calls] == ["get_weather"]
    assert json.loads(result.tool_calls[0]["arguments"]) == {"city": "Paris"}
    assert result.input_tokens and result.input_tokens > 100  # the tools are in the prompt
    reply = _post(f"{server.base_url}/chat/completions", ASK)
    message = reply["choices"][0]["message"]
    assert reply["choices"][0]["finish_reason"] == "tool_calls"
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert reply["usage"]["prompt_tokens_details"]["cached_tokens"] > 100  # the same prompt


def test_other_requests_pass_through_to_llama_server(server: LlamaServer) -> None:
    reply = _post(f"{server.base_url}/chat/completions", {
        "model": "smollm2", "max_tokens": 4, "temperature": 0,
        "messages": [{"role": "user", "content": "Say hi."}]})
    assert reply.get("system_fingerprint", "").startswith("b")  # llama-server's own answer
    text = urllib.request.urlopen(server.metrics_url, timeout=10).read().decode()
    assert "llamacpp:prompt_tokens_total" in text
    assert server.info()["tool_routing"] and server.upstream_port != server.port


def test_a_crashed_llama_server_is_restarted_with_the_proxy(server: LlamaServer) -> None:
    server.supervise(interval_s=0.1)
    proxy_pid = server.pid
    assert proxy_pid is not None
    children = [int(p) for p in open(f"/proc/{proxy_pid}/task/{proxy_pid}/children").read().split()]
    os.kill(children[0], signal.SIGSEGV)  # llama-server dies as on a bad grammar
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.generation < 1:  # restarted and ready
        time.sleep(0.2)
    assert server.restarts and server.restarts[0]["signal"] == "SIGSEGV"
    assert server.pid != proxy_pid and server.running
    assert _chat(server.base_url, ASK).tool_calls


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_a_sigkilled_harness_leaves_neither_proxy_nor_llama_server() -> None:
    import subprocess
    import sys

    script = ("import sys, time\n"
              "from agentic_bench.endpoint.llama_server import LlamaServer\n"
              "srv = LlamaServer(tool_routing=True).start()\n"
              "print(srv.pid, flush=True)\n"
              "time.sleep(600)\n")
    harness = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert harness.stdout is not None
        proxy = int(harness.stdout.readline())
        with open(f"/proc/{proxy}/task/{proxy}/children") as kids:
            llama = int(kids.read().split()[0])
        assert _alive(proxy) and _alive(llama)
    finally:
        harness.kill()
        harness.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (_alive(proxy) or _alive(llama)):
        time.sleep(0.1)
    assert not _alive(proxy) and not _alive(llama)
