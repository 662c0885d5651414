"""Shared fixtures: trace builders and a real latency simulator on loopback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_trace(path: Path, sessions: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in sessions), encoding="utf-8")
    return path


def simple_session(i: int, turns: int = 1, think_s: float = 0.0, **llm: Any) -> dict[str, Any]:
    return {
        "schema_version": "1", "session_id": f"s{i}",
        "turns": [{"user": f"question {i}.{t}", "think_time_s": think_s,
                   "steps": [{"kind": "llm", **llm}]} for t in range(turns)],
    }


@pytest.fixture
def trace_factory(tmp_path: Path) -> Callable[..., Path]:
    def make(n: int, turns: int = 1, think_s: float = 0.0, name: str = "t.jsonl",
             **llm: Any) -> Path:
        return write_trace(tmp_path / name,
                           [simple_session(i, turns, think_s, **llm) for i in range(n)])
    return make


class Sim:
    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc = proc
        self.url = url
        self.requests: int | None = None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                out, _ = self.proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, _ = self.proc.communicate()
            for line in out.splitlines():
                if line.startswith("sim stopped after"):
                    self.requests = int(line.split()[3])


def start_sim(*args: str, env: dict[str, str] | None = None, port: int | None = None) -> Sim:
    port = port or free_port()
    cmd = [sys.executable, "-m", "agentic_bench", "sim", "--port", str(port), *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **(env or {})})
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return Sim(proc, f"http://127.0.0.1:{port}/v1")
        except OSError:
            if proc.poll() is not None:
                out = proc.stdout.read() if proc.stdout else ""
                raise RuntimeError(f"sim exited: {out}") from None
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("sim did not start")


@pytest.fixture
def sim_factory() -> Iterator[Callable[..., Sim]]:
    sims: list[Sim] = []

    def make(*args: str, env: dict[str, str] | None = None, port: int | None = None) -> Sim:
        sim = start_sim(*args, env=env, port=port)
        sims.append(sim)
        return sim

    yield make
    for sim in sims:
        sim.stop()


def run_cli(*args: str, env: dict[str, str] | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agentic_bench", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_cli


def import_and_replay(fmt: str, source: Path, tmp_path: Path,
                      sim_factory: Callable[..., Sim]) -> tuple[list[dict[str, Any]], Path]:
    """``import FMT SOURCE``, validated, then replayed on a simulator that logs every request
    (``--think-time none``): the request bodies the simulator got, and the run folder."""
    from agentic_bench.trace import validate_file

    out = tmp_path / f"{fmt}.jsonl"
    res = run_cli("import", fmt, str(source), "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert validate_file(out).ok
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "0.2", "--output-tokens", "4",
                      "--request-log", str(log))
    run = tmp_path / "run"
    res = run_cli("replay", str(out), "--endpoint", sim.url, "--out", str(run), "--quiet",
                  "--think-time", "none")
    assert res.returncode == 0, res.stderr
    return [json.loads(x)["body"] for x in log.read_text().splitlines()], run


def install_plugin(site: Path, module: str, source: str, entry_points: dict[str, str],
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Install a one-module plugin distribution into ``site`` and put it on ``sys.path``:
    ``entry_points`` maps entry names (``importer:tiny``) to ``function`` names in it."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    dist = site / f"{module}-0.1.dist-info"
    dist.mkdir()
    name = module.replace("_", "-")
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n",
                                   encoding="utf-8")
    lines = "".join(f"{entry} = {module}:{target}\n" for entry, target in entry_points.items())
    (dist / "entry_points.txt").write_text(f"[agentic_bench.plugins]\n{lines}", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))


@pytest.fixture
def plugin_installer(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``plugin_installer(site, module, source, entry_points)``: see :func:`install_plugin`."""
    def install(site: Path, module: str, source: str, entry_points: dict[str, str]) -> None:
        install_plugin(site, module, source, entry_points, monkeypatch)

    return install
