"""#42 item 11: no embedded server outlives a SIGKILLed harness.

A real ``agentic-bench replay`` starts the embedded server (llama.cpp's ``llama-server``; the
llama-cpp-python server this also covered was removed on 2026-12-06) from a worker thread
(``asyncio.to_thread``); the harness is then SIGKILLed — no ``atexit``, no ``finally`` — and the
server must be gone, its port closed, within a few seconds. The same after a crash restart, which
the supervisor's thread does. Before the fix the ``llama-server`` child kept listening (it got no
parent-death signal off the main thread). Skipped (with the reason) when the binary or the model is
missing.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agentic_bench.endpoint.llama_server import HINT, find_binary, port_is_free
from agentic_bench.endpoint.model_file import locate_model
from agentic_bench.errors import EndpointStartError

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration

try:
    locate_model()
except EndpointStartError as exc:
    pytest.skip(f"model not installed: {exc}", allow_module_level=True)

LLAMA_SERVER = pytest.param(
    "llama-server", id="llama-server",
    marks=pytest.mark.skipif(find_binary() is None, reason=f"no llama-server here: {HINT}"))
GONE_WITHIN_S = 5.0


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def server_children(parent: int) -> list[int]:
    """The harness's children that serve the model (``-m`` on their command line),
    whichever of its threads forked them."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"-m" in argv:
            found.append(int(entry.name))
    return found


def wait_for(cond: Callable[[], object], within_s: float, what: str,
             harness: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + within_s
    while not cond():
        assert harness.poll() is None, f"the harness ended early:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"no {what} within {within_s} s:\n{log.read_text()}"
        time.sleep(0.05)


def refused(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(2.0)
        return sock.connect_ex(("127.0.0.1", port)) == errno.ECONNREFUSED


@pytest.mark.parametrize("crash_first", [False, True], ids=["started", "restarted"])
@pytest.mark.parametrize("endpoint", [LLAMA_SERVER])
def test_the_server_dies_with_a_sigkilled_harness(tmp_path: Path, endpoint: str,
                                                  crash_first: bool) -> None:
    log = tmp_path / "harness.stderr"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with log.open("wb") as err:  # a long run: it is still going when it is killed
        harness = subprocess.Popen(
            [sys.executable, "-m", "agentic_bench", "replay", str(ROOT / "traces" / "sample.jsonl"),
             "--endpoint", endpoint, "--sessions", "1000", "--duration", "300",
             "--max-tokens", "32", "--out", str(tmp_path / "run"), "--quiet"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT, env=env)
    servers: list[int] = []
    try:
        wait_for(lambda: "embedded server ready at" in log.read_text(), 180, "server",
                 harness, log)
        found = re.search(r"ready at http://127\.0\.0\.1:(\d+)/v1", log.read_text())
        assert found, log.read_text()
        port = int(found.group(1))
        wait_for(lambda: server_children(harness.pid), 10, "server process", harness, log)
        servers = server_children(harness.pid)
        assert len(servers) == 1, servers
        if crash_first:  # the supervisor's thread (or a waiting request's) restarts it
            records = tmp_path / "run" / "records.jsonl"  # past the preflight: the run is on
            wait_for(lambda: records.is_file() and '"type":"step"' in records.read_text(), 180,
                     "request", harness, log)
            os.kill(servers[0], signal.SIGKILL)
            wait_for(lambda: "restarted on port" in log.read_text(), 180, "restart", harness, log)
            wait_for(lambda: [p for p in server_children(harness.pid) if p not in servers], 10,
                     "restarted server process", harness, log)
            servers = server_children(harness.pid)
            time.sleep(1.0)  # the thread that restarted it may end meanwhile: no matter
            assert len(servers) == 1 and alive(servers[0]), servers
        server = servers[0]
        assert alive(server) and not port_is_free("127.0.0.1", port)
        harness.send_signal(signal.SIGKILL)  # no atexit, no finally in the harness
        harness.wait(30)
        deadline = time.monotonic() + GONE_WITHIN_S
        # a killed leader shows as a zombie while its other threads still close the socket
        while (alive(server) or not refused(port)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(server), (f"the embedded {endpoint} server (pid {server}) outlived the "
                                   f"SIGKILLed harness by {GONE_WITHIN_S} s")
        assert refused(port) and port_is_free("127.0.0.1", port)
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.wait(30)
        for pid in servers:  # the old code's orphans: do not leave them running
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
