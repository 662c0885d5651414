"""Record a scripted tool-using agent through the proxy, then replay the recording.

The agent runs two concurrent sessions against the latency simulator (``--tool-call``): one
named by ``X-Session-ID``, one grouped by conversation prefix. A second proxy in front of
the simulator captures the replay's request bodies, which must equal the agent's.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from agentic_bench.proxy.recorder import Call, Recorder
from agentic_bench.trace import TraceFile, validate_file
from agentic_bench.transport.result import ChatResult
from agentic_bench.transport.sse import assemble_stream

pytestmark = pytest.mark.integration

SECRET = "sk-test-secret-never-recorded"
TOOLS = [{"type": "function", "function": {
    "name": "lookup", "description": "Look something up",
    "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}}]
TOOL_S, THINK_S = 0.05, 0.15


class Proxy:
    def __init__(self, upstream: str, out: Path, *extra: str) -> None:
        cmd = [sys.executable, "-m", "agentic_bench.proxy", "--upstream", upstream, "--port",
               "0", "--out", str(out), *extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "listening on" in line, line + self.proc.stdout.read()
        self.url = line.split()[4]
        self.log = ""

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.log, _ = self.proc.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.log, _ = self.proc.communicate()
        return self.log


@pytest.fixture
def proxies() -> Iterator[Callable[..., Proxy]]:
    started: list[Proxy] = []

    def make(upstream: str, out: Path, *extra: str) -> Proxy:
        p = Proxy(upstream, out, *extra)
        started.append(p)
        return p

    yield make
    for p in started:
        p.stop()


async def chat(http: aiohttp.ClientSession, url: str, body: dict[str, Any],
               session_id: str | None) -> ChatResult:
    headers = {"Authorization": f"Bearer {SECRET}"}
    if session_id:
        headers["X-Session-ID"] = session_id
    chunks: list[tuple[int, bytes]] = []
    async with http.post(f"{url}/chat/completions", json=body, headers=headers) as resp:
        assert resp.status == 200, await resp.text()
        async for data in resp.content.iter_any():
            chunks.append((time.perf_counter_ns(), data))
    result = assemble_stream(ChatResult(), chunks)
    assert result.ok, result.error
    return result


async def agent(url: str, name: str, use_header: bool, canonical: bool) -> None:
    """Two turns; each: call → tool call → run the tool → call again → end of turn."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a scripted agent."}]
    async with aiohttp.ClientSession() as http:
        for turn in range(2):
            if turn:
                await asyncio.sleep(THINK_S)
            msgs.append({"role": "user", "content": f"{name}: task {turn}"})
            for step in range(2):
                body = {"model": "sim", "messages": list(msgs), "tools": TOOLS, "max_tokens": 6,
                        "temperature": 0, "stream": True,
                        "stream_options": {"include_usage": True}}
                reply = await chat(http, url, body, name if use_header else None)
                assert reply.tool_calls
                calls = [{"id": c["id"], "type": "function", "function": {
                    "name": c["name"], "arguments": json.dumps(json.loads(c["arguments"]))
                    if canonical else c["arguments"]}} for c in reply.tool_calls]
                msgs.append({"role": "assistant", "content": reply.content if canonical
                             else (reply.content or None), "tool_calls": calls})
                if step == 0:
                    await asyncio.sleep(TOOL_S)
                    msgs.extend({"role": "tool", "tool_call_id": c["id"],
                                 "content": json.dumps({"ok": True, "x": 0})}
                                for c in reply.tool_calls)


def dumped(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def wait_for_lines(path: Path, n: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().splitlines()) >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} did not get {n} lines")


def test_record_then_replay_matches(sim_factory: Callable[..., Any],
                                    proxies: Callable[..., Proxy],
                                    cli: Callable[..., subprocess.CompletedProcess[str]],
                                    tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "3", "--itl-ms", "1", "--output-tokens", "6",
                      "--tool-call", "lookup")
    rec, dump1 = tmp_path / "rec.jsonl", tmp_path / "dump1.jsonl"
    p1 = proxies(sim.url, rec, "--idle-timeout", "0.6", "--dump-requests", str(dump1))

    async def both() -> None:
        await asyncio.gather(agent(p1.url, "agent-A", True, False),
                             agent(p1.url, "agent-B", False, True))

    asyncio.run(both())
    wait_for_lines(rec, 2)  # written on idle timeout, before shutdown
    log = p1.stop()
    assert "2 session(s), 8 request(s)" in log, log
    text = rec.read_text()
    assert SECRET not in text and SECRET not in dump1.read_text()
    assert validate_file(rec).ok, validate_file(rec).problems
    sessions = {s.session_id: s for s in TraceFile(rec)}
    assert "agent-A" in sessions and len(sessions) == 2
    for s in sessions.values():
        assert [len(t.steps) for t in s.turns] == [3, 3]  # llm, tool, llm
        assert s.llm_step_count() == 4
        tool = s.turns[0].steps[1]
        assert tool.kind == "tool" and tool.name == "lookup"
        assert TOOL_S * 1000 * 0.9 <= tool.duration_ms < TOOL_S * 1000 + 500
        assert THINK_S * 0.9 <= s.turns[1].think_time_s < THINK_S + 1.0
        assert s.turns[0].steps[0].usage.output_tokens == 6
    # the canonical agent's history is exactly what replay derives: nothing stored
    anon = next(s for k, s in sessions.items() if k != "agent-A")
    assert all(getattr(st, "messages", None) is None for t in anon.turns for st in t.steps)
    assert any(getattr(st, "messages", None) for t in sessions["agent-A"].turns
               for st in t.steps)

    rec2, dump2 = tmp_path / "rec2.jsonl", tmp_path / "dump2.jsonl"
    p2 = proxies(sim.url, rec2, "--dump-requests", str(dump2))
    out = tmp_path / "replay"
    res = cli("replay", str(rec), "--history", "recorded", "--endpoint", p2.url, "--model",
              "sim", "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    p2.stop()

    order = [s.session_id for s in TraceFile(rec)]
    by_session: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in dumped(dump1):
        by_session[row["session_id"]].append(row["body"])
    expected = [body for sid in order for body in by_session[sid]]
    replayed = [row["body"] for row in dumped(dump2)]
    assert len(replayed) == len(expected) == 8
    for want, got in zip(expected, replayed, strict=True):
        assert got == want

    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    per_session = {r["source_session"]: r["requests"] for r in records if r["type"] == "session"}
    assert per_session == {sid: sessions[sid].llm_step_count() for sid in order}
    got_calls = [[c["name"] for c in r["tool_calls"]] for r in records
                 if r["type"] == "step" and r.get("kind") == "llm"]
    want_calls = [[c.name for c in st.output.tool_calls] for sid in order
                  for t in sessions[sid].turns for st in t.steps if st.kind == "llm"]
    assert got_calls == want_calls
    again = list(TraceFile(rec2))  # the replay, recorded: same shape, same tool sequence
    assert [s.llm_step_count() for s in again] == [sessions[sid].llm_step_count()
                                                   for sid in order]
    assert [[c.name for t in s.turns for st in t.steps if st.kind == "llm"
             for c in st.output.tool_calls] for s in again] == [
        [c.name for t in sessions[sid].turns for st in t.steps if st.kind == "llm"
         for c in st.output.tool_calls] for sid in order]


def test_upstream_down_is_a_502_and_not_recorded(proxies: Callable[..., Proxy],
                                                 tmp_path: Path) -> None:
    rec = tmp_path / "rec.jsonl"
    p = proxies("http://127.0.0.1:9/v1", rec)

    async def call() -> int:
        async with aiohttp.ClientSession() as http, http.post(
                f"{p.url}/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "hi"}]}) as r:
            return r.status

    assert asyncio.run(call()) == 502
    assert "0 session(s)" in p.stop()
    assert rec.read_text() == ""


def _done(r: Recorder, session: Any, call: Call, reply: str, ok: bool = True) -> None:
    call.content, call.end_ns = reply, call.start_ns + 10
    r.finish(session, call, ok)


def test_prefix_grouping_rules(tmp_path: Path) -> None:
    r = Recorder(tmp_path / "t.jsonl", idle_timeout_s=1.0)
    u1 = [{"role": "user", "content": "hello"}]
    s1, c1 = r.begin({"model": "m", "messages": u1}, None, 0)
    s2, c2 = r.begin({"model": "m", "messages": u1}, None, 5)
    assert s2 is not s1  # same opening while the first is in flight: another session
    _done(r, s1, c1, "hi!")
    _done(r, s2, c2, "hey")
    follow = [*u1, {"role": "assistant", "content": "hey"}, {"role": "user", "content": "more"}]
    s3, c3 = r.begin({"model": "m", "messages": follow}, None, 20)
    assert s3 is s2  # extends s2's request + reply, not s1's
    _done(r, s3, c3, "", ok=False)  # a failed call is not recorded
    assert len(s2.calls) == 1 and r.failed_calls == 1
    s4, _ = r.begin({"model": "m", "messages": u1}, "client-7", 30)
    assert s4.session_id == "client-7" and s4 not in (s1, s2)
    s5, _ = r.begin({"model": "m", "messages": follow}, "client-7", 40)
    assert s5 is s4  # the header wins over any prefix
    r.flush_all()
    r.close()
    assert len((tmp_path / "t.jsonl").read_text().splitlines()) == 2  # s4 finished no call


def test_session_header_keeps_each_replayed_session_together(
        sim_factory: Callable[..., Any], proxies: Callable[..., Proxy], tmp_path: Path,
        cli: Callable[..., Any]) -> None:
    """--session-header X-Session-ID (#21 item 2): three sessions replayed at once through the
    proxy arrive interleaved, and the proxy groups every request by the id we sent."""
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "1", "--output-tokens", "4")
    rec = tmp_path / "rec.jsonl"
    dump = tmp_path / "dump.jsonl"
    proxy = proxies(sim.url, rec, "--dump-requests", str(dump))
    trace = Path(__file__).resolve().parents[2] / "traces" / "sample.jsonl"
    res = cli("replay", str(trace), "--endpoint", proxy.url, "--model", "sim",
              "--scenario", "concurrency", "--concurrency", "3", "--think-time", "none",
              "--session-header", "X-Session-ID", "--session-user",
              "--out", str(tmp_path / "run"), "--quiet")
    assert res.returncode == 0, res.stderr
    proxy.stop()
    steps = [json.loads(x) for x in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    per_session: dict[str, int] = defaultdict(int)
    for r in steps:
        if r.get("type") == "step" and r.get("kind") == "llm":
            per_session[r["session_id"]] += 1
    recorded = list(TraceFile(rec))
    grouped = {s.metadata["client_session_id"]: sum(
        1 for t in s.turns for st in t.steps if st.kind == "llm") for s in recorded}
    assert grouped == dict(per_session)  # same ids, same number of requests each
    assert len(grouped) == 3
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["config"]["session_headers"] == ["X-Session-ID"]
    bodies = dumped(dump)  # --session-user: the same id as each body's OpenAI ``user`` field
    assert len(bodies) == sum(per_session.values())
    assert all(b["body"]["user"] == b["session_id"] for b in bodies)


def test_mlcommons_coding_fixture_carries_the_header_and_its_ceiling(
        sim_factory: Callable[..., Any], proxies: Callable[..., Proxy], tmp_path: Path,
        cli: Callable[..., Any]) -> None:
    """#21 acceptance: MLCommons' coding conversations replayed with --session-header reach
    the proxy with the header on every request (the proxy groups them by it), and the run's
    reuse ceiling is the one `traces stats` computes for the same file."""
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--output-tokens", "2")
    rec = tmp_path / "rec.jsonl"
    proxy = proxies(sim.url, rec)
    coding = Path(__file__).resolve().parents[1] / "data" / "mlcommons_edge" / \
        "agentic_coding_excerpt.jsonl"
    out = tmp_path / "run"
    res = cli("replay", str(coding), "--format", "mlcommons-agentic", "--endpoint", proxy.url,
              "--model", "sim", "--think-time", "none", "--session-header", "X-Session-ID",
              "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    proxy.stop()
    steps = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    per_session: dict[str, int] = defaultdict(int)
    for r in steps:
        if r.get("type") == "step" and r.get("kind") == "llm":
            per_session[r["session_id"]] += 1
    grouped = {s.metadata["client_session_id"]: sum(
        1 for t in s.turns for st in t.steps if st.kind == "llm") for s in TraceFile(rec)}
    assert grouped == dict(per_session) and sum(grouped.values()) == 71
    stats = cli("traces", "stats", str(coding), "--json")
    assert stats.returncode == 0, stats.stderr
    shared = json.loads(stats.stdout)["prefix_sharing"]
    ceiling = json.loads((out / "summary.json").read_text())["workload"]["prefix_ceiling"]
    assert ceiling["total_chars"] == shared["total_chars"]
    assert ceiling["ratio"] == pytest.approx(shared["ratio"], abs=1e-12)


def test_session_header_name_is_checked_before_anything_is_sent(cli: Callable[..., Any],
                                                                tmp_path: Path) -> None:
    trace = Path(__file__).resolve().parents[2] / "traces" / "sample.jsonl"
    res = cli("replay", str(trace), "--endpoint", "http://127.0.0.1:9/v1",
              "--session-header", "Bad Header", "--out", str(tmp_path / "run"))
    assert res.returncode == 2 and "not an HTTP header name" in res.stderr
    assert not (tmp_path / "run").exists()


def test_upstream_credentials_never_reach_the_recording(sim_factory: Callable[..., Any],
                                                       proxies: Callable[..., Proxy],
                                                       tmp_path: Path) -> None:
    """#30 item 6: `record --upstream` with user:password and a secret query in its URL —
    neither reaches the recorded trace nor the proxy's own output."""
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "1", "--output-tokens", "3",
                      "--tool-call", "lookup")
    host = sim.url.split("://", 1)[1]
    secret = "SENTINEL-upstream-5c1d"
    out = tmp_path / "rec.jsonl"
    proxy = proxies(f"http://user:{secret}-pw@{host}?token={secret}-t", out)
    asyncio.run(agent(proxy.url, "a", True, True))
    log = proxy.stop()  # writes every session still open
    recorded = out.read_text()
    assert len(recorded.splitlines()) == 1 and '"turns"' in recorded
    assert secret not in recorded and secret not in log
    assert secret not in (out.with_suffix(".jsonl.raw").read_text()
                          if out.with_suffix(".jsonl.raw").exists() else "")
