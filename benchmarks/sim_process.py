"""What several benchmarks share: a free loopback port, the simulator as a child process
(``agentic-bench sim``) that is waited on until it answers, and a trace of one-request
sessions."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_sim(port: int, *flags: str, ready_s: float = 30.0) -> subprocess.Popen[str]:
    """``agentic-bench sim --port PORT FLAGS…``, returned once ``/v1/models`` answers (the
    process is killed and RuntimeError raised when it does not within ``ready_s``)."""
    proc = subprocess.Popen([sys.executable, "-m", "agentic_bench", "sim", "--port", str(port),
                             *flags], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            text=True)
    deadline = time.monotonic() + ready_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"sim on port {port} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1):
                return proc
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"sim on port {port} did not answer within {ready_s:g} s")


def write_single_request_trace(path: Path, n: int) -> None:
    """``n`` sessions of one turn with one LLM step each."""
    lines = [json.dumps({"schema_version": "1", "session_id": f"s{i}", "turns": [
        {"user": f"question {i}", "steps": [{"kind": "llm"}]}]}) for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
