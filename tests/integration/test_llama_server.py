"""#34 item 1: ``llama-server`` — llama.cpp's own server, built from the pinned sdist by the
install step and the embedded endpoint's default, answers what the harness needs (streaming
with usage, ``top_k: -1``, the prompt cache's ``cached_tokens``, ``/metrics``, context overflow
as its own error type) and a 4-stream replay against it shows the server's metrics
(``/metrics`` and ``/slots``) over the run without being asked."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.endpoint.llama_server import HINT, LlamaServer, find_binary
from agentic_bench.transport.choose import make_chat_client
from agentic_bench.transport.result import ChatResult

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(find_binary() is None, reason=f"no llama-server here: {HINT}")


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaServer]:
    with LlamaServer(slots=2, start_timeout_s=120) as srv:
        yield srv


def _chat(url: str, body: dict[str, Any]) -> ChatResult:
    async def go() -> ChatResult:
        client = make_chat_client(url)
        try:
            return await client.chat({"model": "smollm2", "stream": True, **body})
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_stream_usage_top_k_and_prompt_cache(server: LlamaServer) -> None:
    messages = [{"role": "system", "content": "You are terse. " * 40},
                {"role": "user", "content": "Say hello."}]
    first = _chat(server.base_url, {"messages": messages, "max_tokens": 8, "top_k": -1,
                                    "temperature": 0})
    assert first.ok and first.t_first_token_ns is not None and first.input_tokens
    assert first.output_tokens and first.output_tokens <= 8
    again = _chat(server.base_url, {"messages": messages, "max_tokens": 8, "temperature": 0})
    assert again.ok and again.cached_tokens and again.cached_tokens > 0  # timings cache_n
    import urllib.request

    text = urllib.request.urlopen(server.metrics_url, timeout=10).read().decode()
    assert "llamacpp:prompt_tokens_cached_total" in text


def test_context_overflow_is_its_own_error(server: LlamaServer) -> None:
    long = "word " * 9000  # over the 8,192 tokens of a slot
    result = _chat(server.base_url, {"messages": [{"role": "user", "content": long}],
                                     "max_tokens": 4})
    assert result.error_type == "context_overflow", result.error


def test_our_template_renders_tools_recorded_calls_and_results(server: LlamaServer) -> None:
    """llama.cpp's own Jinja engine renders our template: the tools listed, a recorded call
    whose content is null as a <tool_call> block, a tool result as <tool_response>; and the
    server reads tool support from it."""
    import urllib.request

    root = server.base_url.removesuffix("/v1")
    call = {"id": "c1", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    body = {"messages": [{"role": "user", "content": "Weather in Paris?"},
                         {"role": "assistant", "content": None, "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": "c1", "content": "18 C"}],
            "tools": [{"type": "function", "function": {
                "name": "get_weather", "description": "The weather of a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]}
    request = urllib.request.Request(root + "/apply-template", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        prompt = json.loads(reply.read())["prompt"]
    system = prompt.split("<|im_end|>")[0]
    assert '"name": "get_weather"' in system and "The weather of a city" in system
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' \
        in prompt
    assert "<tool_response>\n18 C\n</tool_response>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")
    with urllib.request.urlopen(root + "/props", timeout=30) as reply:
        caps = json.loads(reply.read())["chat_template_caps"]
    assert caps["supports_tools"] and caps["supports_tool_calls"]
    # and a streamed request carrying those tools and that history is answered
    result = _chat(server.base_url, {**body, "max_tokens": 8})
    assert result.ok, result.error


def test_replay_scrapes_the_servers_metrics_by_default(tmp_path: Path, cli: Any) -> None:
    """No --endpoint: the embedded endpoint of a replay is llama-server, a slot per stream."""
    out = tmp_path / "run"
    res = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--sessions", "8",
              "--scenario", "concurrency", "--concurrency", "4",
              "--max-tokens", "16", "--server-metrics-interval", "0.25", "--out", str(out),
              "--quiet")
    assert res.returncode == 0, res.stderr
    summary = json.loads((out / "summary.json").read_text())
    endpoint = summary["endpoint"]
    assert endpoint["kind"] == "llama-server" and endpoint["flags"]["slots"] == 4
    assert endpoint["chat_template"] == "smollm2-tools.jinja"
    assert "endpoint: embedded = llama-server" in res.stderr
    assert "(llama-server (llama.cpp" in (out / "summary.txt").read_text()  # the Endpoint line
    assert endpoint["flags"]["ctx_size"] == 4 * 8192
    assert summary["counts"]["sessions_ok"] == 8
    sources = summary["server_metrics"]["sources"]
    assert sorted(s.rsplit("/", 1)[1] for s in sources) == ["metrics", "slots"]
    block = next(b for s, b in sources.items() if s.endswith("/metrics"))
    slots = next(b for s, b in sources.items() if s.endswith("/slots"))
    assert block["failures"] == 0 and block["scrapes"] >= 3 and slots["failures"] == 0
    assert slots["metrics"]["slots_busy"]["max"] >= 2  # the 4 streams keep slots busy
    assert 0 < slots["metrics"]["slot_context_used"]["max"] < 1
    assert block["engines"] == ["llamacpp"]
    assert block["metrics"]["requests_running"]["max"] >= 2  # the streams overlap on 4 slots
    rate = block["prefix_cache_hit_rate"]["value"]
    client = summary["prefix_cache"]["hit_rate"]
    assert rate == pytest.approx(client, abs=1e-9)  # the server's count = the replies' usage
    assert (out / "server.log").stat().st_size > 0
    assert 'id="section-server"' in (out / "report.html").read_text()


def test_agentx_lanes_with_its_tokenizer_and_metrics(tmp_path: Path, cli: Any) -> None:
    """4 AgentX lanes of Weka agent trees on the embedded endpoint (llama-server): prompts made
    token-exact with the server's own /tokenize, and busy and deferred requests over the run
    from its /metrics (the server's counters also see the lanes' warm-up requests, which the
    summary leaves out)."""
    out = tmp_path / "ax"
    res = cli("replay", str(ROOT / "tests" / "data" / "weka" / "corpus.jsonl"),
              "--tokenizer", "server", "--agentx",  # the embedded endpoint: llama-server
              "--concurrency", "4", "--duration", "6", "--allow-dataset-wrap",
              "--max-context", "8000", "--server-metrics-interval", "0.25", "--out", str(out),
              "--quiet")
    assert res.returncode in (0, 3), res.stderr  # 3: INVALID (a 6 s AgentX run, not 900 s)
    summary = json.loads((out / "summary.json").read_text())
    prompts = summary["trees"]["prompt_tokens"]
    assert prompts["requests"] > 0 and prompts["synthesized_exact"] == prompts["requests"]
    sources = summary["server_metrics"]["sources"]
    block = next(b for s, b in sources.items() if s.endswith("/metrics"))
    slots = next(b for s, b in sources.items() if s.endswith("/slots"))
    assert block["failures"] == 0 and block["metrics"]["requests_running"]["max"] >= 2
    assert "requests_waiting" in block["metrics"]
    context = slots["metrics"]["slot_context_used"]["series"]
    assert max(v for _, v in context) > min(v for _, v in context)  # it moves as trees grow
    report = (out / "report.html").read_text()
    assert 'id="plot-server-requests_running"' in report
    assert 'id="plot-server-slot_context_used"' in report


def test_serve_runs_llama_server_until_sigint() -> None:
    """``agentic-bench serve --slots 2 --no-tool-routing``: llama.cpp's own server alone, its
    URL printed once it answers, /metrics on, gone after Ctrl-C."""
    import signal
    import subprocess
    import sys
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "agentic_bench", "serve", "--slots", "2",
                             "--port", "0", "--no-tool-routing"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1"), \
            proc.stderr.read() if proc.stderr else ""
        with urllib.request.urlopen(url.removesuffix("/v1") + "/metrics", timeout=10) as resp:
            assert "llamacpp:" in resp.read().decode()
        with urllib.request.urlopen(url.removesuffix("/v1") + "/slots", timeout=10) as resp:
            assert len(json.load(resp)) == 2
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
