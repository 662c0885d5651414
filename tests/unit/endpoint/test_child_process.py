"""#42 item 11: children started off the main thread die with a SIGKILLed harness, and not before.

PR_SET_PDEATHSIG follows the thread that forked; ``child_process.spawn`` forks on a thread that
lives as long as the process. The harness here is a ``python -c`` subprocess that is SIGKILLed.
LlamaServer runs the fake ``llama-server`` (conftest.py) without the routing proxy, so no parent
watch runs: only the parent-death signal can stop it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agentic_bench.endpoint.child_process import spawn

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only (prctl)")


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _harness(code: str) -> tuple[subprocess.Popen[str], list[int]]:
    """Run ``code`` in a harness process; it prints child pids, one a line, then ``ready``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env=env)
    assert proc.stdout is not None
    pids = []
    for line in proc.stdout:
        if line.strip() == "ready":
            return proc, pids
        pids.append(int(line))
    raise AssertionError(f"the harness ended with {proc.wait()} before it was ready")


def _kill_and_check(proc: subprocess.Popen[str], pids: list[int]) -> None:
    try:
        time.sleep(0.5)  # the forking thread has ended: the children must still be here
        assert all(alive(pid) for pid in pids), "a child died with the thread that started it"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    try:
        assert all(gone(pid) for pid in pids), "a child outlived the SIGKILLed harness"
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_child_spawned_from_a_short_lived_thread_lives_until_the_harness_dies() -> None:
    code = (
        "import threading, time\n"
        "from agentic_bench.endpoint.child_process import spawn\n"
        "procs = []\n"
        "for _ in range(2):\n"
        "    t = threading.Thread(target=lambda: procs.append(spawn(['sleep', '60'])))\n"
        "    t.start(); t.join()\n"
        "print(*(p.pid for p in procs), sep='\\n'); print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    _kill_and_check(*_harness(code))


@pytest.mark.parametrize("how", ["worker-thread", "restart"])
def test_llama_server_started_or_restarted_off_the_main_thread_dies_with_the_harness(
    fake_binary: str, fake_model: Path, how: str
) -> None:
    code = (
        "import os, signal, threading, time\n"
        "from agentic_bench.endpoint.llama_server import LlamaServer\n"
        f"s = LlamaServer({str(fake_model)!r}, binary={fake_binary!r})  # no proxy: no watch\n"
        "t = threading.Thread(target=s.start); t.start(); t.join()  # as asyncio.to_thread\n"
        + ("s.supervise(interval_s=0.05); first = s.pid; os.kill(first, signal.SIGKILL)\n"
           "while not (s.restarts and s.restarts[0]['restart_s']): time.sleep(0.05)\n"
           "assert s.pid != first\n" if how == "restart" else "")
        + "print(s.pid); print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    _kill_and_check(*_harness(code))


def test_spawn_raises_popen_errors_in_the_calling_thread(tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def start() -> None:
        try:
            spawn([str(tmp_path / "no-such-binary")])
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=start)
    thread.start()
    thread.join(10)
    assert len(errors) == 1 and isinstance(errors[0], FileNotFoundError)
    with pytest.raises(TypeError):
        spawn(["true"], preexec_fn=lambda: None)


def test_spawn_from_a_thread_of_a_forked_child_process() -> None:
    """After ``os.fork()`` the spawner thread is not in the child: the child starts its own."""
    code = (
        "import os, threading\n"
        "from agentic_bench.endpoint.child_process import spawn\n"
        "def start(): spawn(['true']).wait()\n"
        "t = threading.Thread(target=start); t.start(); t.join()  # the parent's spawner\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    t = threading.Thread(target=start); t.start(); t.join(10)\n"
        "    os._exit(0 if not t.is_alive() else 1)\n"
        "print(os.waitpid(pid, 0)[1])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=30)
    assert res.returncode == 0 and res.stdout.strip() == "0", res.stderr
