"""LlamaServer's lifecycle against a fake server process (no llama_cpp needed)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from agentic_bench.endpoint import llama_server
from agentic_bench.endpoint.llama_server import LlamaServer, free_port, port_is_free
from agentic_bench.errors import EndpointStartError

ROOT = Path(__file__).resolve().parents[3]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except FileNotFoundError:
        return False


def gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_command_line_and_urls(fake_model: Path, tmp_path: Path) -> None:
    binary = tmp_path / "llama-server"
    server = LlamaServer(fake_model, port=8123, n_ctx=2048, n_threads=3, binary=binary)
    server.model_path = fake_model
    cmd = server.command()
    assert cmd[0] == str(binary) and "--no-ui" in cmd and "--metrics" in cmd
    flags = dict(zip(cmd[1::2], cmd[2::2], strict=False))
    assert flags["-m"] == str(fake_model) and flags["--alias"] == "smollm2"
    assert flags["--port"] == "8123" and flags["--host"] == "127.0.0.1"
    assert flags["--ctx-size"] == "2048" and flags["--parallel"] == "1"
    assert flags["--threads"] == "3" and flags["--threads-batch"] == "3"
    assert server.base_url == "http://127.0.0.1:8123/v1"
    assert server.metrics_url == "http://127.0.0.1:8123/metrics"
    assert LlamaServer(host="0.0.0.0", port=5).base_url == "http://127.0.0.1:5/v1"


def test_start_serves_and_stop_frees_port(fake_binary: str, fake_model: Path) -> None:
    with LlamaServer(fake_model, binary=fake_binary) as server:
        assert server.pid is not None and alive(server.pid)
        assert server.base_url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as resp:
            assert resp.status == 200
        pid, port = server.pid, server.port
        info = server.info()
        assert info["model_sha256"] and info["flags"]["port"] == port
        assert info["kind"] == "llama-server" and info["tool_routing"] is None
        assert info["command"][0] == fake_binary and info["binary"] == fake_binary
    assert gone(pid) and port is not None and port_is_free("127.0.0.1", port)
    assert server.pid is None
    server.stop()  # idempotent


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyboardInterrupt()])
def test_exception_inside_with_stops_the_server(
    fake_binary: str, fake_model: Path, exc: BaseException
) -> None:
    server = LlamaServer(fake_model, binary=fake_binary)
    with pytest.raises(type(exc)), server:
        pid, port = server.pid, server.port
        raise exc
    assert pid is not None and gone(pid)
    assert port is not None and port_is_free("127.0.0.1", port)


def test_sigterm_ignored_means_sigkill_after_grace(
    fake_binary: str, fake_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_IGNORE_TERM", "1")
    server = LlamaServer(fake_model, binary=fake_binary, stop_grace_s=0.5).start()
    pid = server.pid
    assert pid is not None
    t0 = time.monotonic()
    server.stop()
    assert gone(pid) and time.monotonic() - t0 < 5


def test_busy_port_is_a_start_error(fake_binary: str, fake_model: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert not port_is_free("127.0.0.1", port)
        with pytest.raises(EndpointStartError, match=f"port {port} .* busy"):
            LlamaServer(fake_model, port=port, binary=fake_binary).start()


def test_early_exit_reports_the_tail(
    fake_binary: str, fake_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_EXIT", "3")
    with pytest.raises(EndpointStartError, match=r"exited with code 3(.|\n)*went wrong"):
        LlamaServer(fake_model, binary=fake_binary).start()


def test_start_timeout(
    fake_binary: str, fake_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_DELAY_S", "30")
    server = LlamaServer(fake_model, binary=fake_binary, start_timeout_s=0.5)
    with pytest.raises(EndpointStartError, match="did not answer"):
        server.start()
    assert server.pid is None


def test_missing_model_and_missing_binary(
    tmp_path: Path, fake_binary: str, fake_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(EndpointStartError, match="not found"):
        LlamaServer(tmp_path / "nope.gguf", binary=fake_binary).start()
    monkeypatch.setattr(llama_server, "find_binary", lambda: None)
    with pytest.raises(EndpointStartError, match=r"not built.*make install"):
        LlamaServer(fake_model).start()


@pytest.mark.parametrize("thread", [False, True], ids=["main-thread", "worker-thread"])
def test_server_dies_with_its_parent(fake_binary: str, fake_model: Path, thread: bool) -> None:
    """SIGKILL the harness and the server goes too: PR_SET_PDEATHSIG set by the thread that
    forks it — the main thread, or the long-lived spawner thread when started from a worker
    thread (endpoint/child_process.py)."""
    start = (
        f"s = LlamaServer({str(fake_model)!r}, binary={fake_binary!r})\n"
        + ("t = threading.Thread(target=s.start); t.start(); t.join()\n" if thread else
           "s.start()\n")
    )  # fmt: skip
    code = (
        "import sys, threading, time\n"
        "from agentic_bench.endpoint.llama_server import LlamaServer\n"
        f"{start}"
        "print(s.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        time.sleep(0.3)
        assert alive(child)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    assert gone(child), "the server outlived its parent"


def test_free_port_is_bindable() -> None:
    port = free_port()
    assert 0 < port < 65536 and port_is_free("127.0.0.1", port)


def test_log_file_is_kept_only_when_asked(
    fake_binary: str, fake_model: Path, tmp_path: Path
) -> None:
    log = tmp_path / "logs" / "server.log"
    with LlamaServer(fake_model, binary=fake_binary, log_path=log) as server:
        assert "fake server listening" in server.log_tail()
    assert "fake server listening" in log.read_text()
    with LlamaServer(fake_model, binary=fake_binary) as server:
        assert server.log_path is None  # an unlinked temp file: nothing left behind
        assert "fake server listening" in server.log_tail()


def _wait_for(cond: Callable[[], object], within_s: float = 20.0) -> bool:
    deadline = time.monotonic() + within_s
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_supervised_server_restarts_after_a_crash_on_the_same_port(
    fake_binary: str, fake_model: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with LlamaServer(fake_model, binary=fake_binary, log_path=log) as server:
        server.supervise(interval_s=0.05)
        first, port = server.pid, server.port
        assert first is not None
        os.kill(first, signal.SIGSEGV)  # what llama.cpp did on an unparsable grammar (0.3.36)
        assert _wait_for(lambda: server.restarts and server.restarts[0]["restart_s"] is not None)
        event = server.restarts[0]
        assert event["signal"] == "SIGSEGV" and event["exit_code"] == -signal.SIGSEGV
        assert event["error"] is None and "fake server listening" in event["log_tail"]
        assert server.pid not in (None, first) and server.port == port
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as resp:
            assert resp.status == 200
        assert server.info()["restarts"] == [event]
        second = server.pid
    assert second is not None and gone(second)
    time.sleep(0.3)  # the watcher is gone: a stopped server stays stopped
    assert server.pid is None and len(server.restarts) == 1
    assert log.read_text().count("fake server listening") == 2  # the log is appended to


def test_supervisor_gives_up_after_max_restarts(fake_binary: str, fake_model: Path) -> None:
    with LlamaServer(fake_model, binary=fake_binary) as server:
        server.max_restarts = 0
        server.supervise(interval_s=0.05)
        pid = server.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert _wait_for(lambda: bool(server.restarts))
        assert _wait_for(lambda: server.restarts[0]["error"] is not None)
        assert "not restarted" in server.restarts[0]["error"]
        time.sleep(0.3)
        assert len(server.restarts) == 1 and not server.running


def test_a_stopped_server_is_not_restarted(fake_binary: str, fake_model: Path) -> None:
    server = LlamaServer(fake_model, binary=fake_binary).start()
    server.supervise(interval_s=0.05)
    pid = server.pid
    server.stop()
    assert pid is not None and gone(pid)
    time.sleep(0.3)
    assert server.restarts == [] and server.pid is None
