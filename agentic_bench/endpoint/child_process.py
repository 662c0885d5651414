"""Child processes that die with the harness, even when the harness is SIGKILLed (Linux).

``prctl(PR_SET_PDEATHSIG, sig)`` makes the kernel send ``sig`` to a child when its parent
*thread* exits — the thread that forked it, not the parent process (prctl(2)). The embedded
server is started from threads that end early: ``asyncio.to_thread(server.start)`` in a run, the
supervisor's watcher thread and the restart wait's ``to_thread`` on a restart. Set there, the
signal would kill a healthy server as soon as that thread ends; not set there (before #42 item
11), a SIGKILLed harness left ``llama-server`` listening on its port.

So :func:`spawn` forks every child from a thread that lives as long as the process: the main
thread when called there, otherwise one dedicated daemon thread, ``child-spawner``, that does
nothing but fork on request and never returns. Whichever way the harness ends (exit, exception,
SIGTERM, SIGKILL, OOM kill), all its threads end with it, and the kernel then kills the child.

The signal is SIGKILL: once the harness is gone nobody waits for a graceful stop, and SIGKILL
cannot be delayed (on SIGTERM ``llama-server`` first finishes its batch, uvicorn waits for open
requests), so the port is free at once. Normal stops are unchanged: ``LlamaServer.stop()`` sends
SIGTERM to the child's process group, then SIGKILL after a grace period.

Not Linux: a plain ``Popen``; the routing proxy then watches its parent pid
(``llama_server.watch_parent_from_env``). Standard library only (the CLI imports this early).
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

PDEATHSIG = signal.SIGKILL
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_LINUX = sys.platform.startswith("linux")


class _Request:
    """One fork asked of the spawner thread, and its outcome."""

    __slots__ = ("args", "done", "error", "kwargs", "proc")

    def __init__(self, args: Sequence[str], kwargs: dict[str, Any]) -> None:
        self.args = args
        self.kwargs = kwargs
        self.done = threading.Event()
        self.proc: subprocess.Popen[bytes] | None = None
        self.error: BaseException | None = None


_lock = threading.Lock()
_requests: queue.SimpleQueue[_Request] | None = None
_spawner: threading.Thread | None = None


def _forget_spawner() -> None:
    """After ``os.fork()``, in the child: the spawner thread was not copied; start afresh."""
    global _lock, _requests, _spawner
    _lock, _requests, _spawner = threading.Lock(), None, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_spawner)


def _pdeathsig_preexec() -> Callable[[], None] | None:
    """A ``preexec_fn``: the child gets :data:`PDEATHSIG` when the forking thread ends (and at
    once if this process is already gone). None where prctl is unavailable."""
    if not _LINUX:
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before the fork
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(PDEATHSIG), 0, 0, 0)
        if os.getppid() != parent:  # the harness died before prctl took effect
            os.kill(os.getpid(), PDEATHSIG)

    return preexec


def _fork_here(args: Sequence[str], kwargs: dict[str, Any]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(args, preexec_fn=_pdeathsig_preexec(), **kwargs)


def _serve(requests: queue.SimpleQueue[_Request]) -> None:
    while True:  # never returns: the children's parent-death signal is tied to this thread
        request = requests.get()
        try:
            request.proc = _fork_here(request.args, request.kwargs)
        except BaseException as exc:  # handed to the caller, which raises it
            request.error = exc
        finally:
            request.done.set()


def _spawner_thread() -> tuple[queue.SimpleQueue[_Request], threading.Thread]:
    global _requests, _spawner
    with _lock:
        if _requests is None or _spawner is None or not _spawner.is_alive():
            _requests = queue.SimpleQueue()
            _spawner = threading.Thread(target=_serve, args=(_requests,),
                                        name="child-spawner", daemon=True)
            _spawner.start()
        return _requests, _spawner


def spawn(args: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(args, **kwargs)`` whose child dies when this process dies.

    Called on the main thread, it forks there; on any other thread, the ``child-spawner``
    thread forks and this call waits for it (exceptions of ``Popen`` are raised here)."""
    if "preexec_fn" in kwargs:
        raise TypeError("spawn() sets preexec_fn itself")
    if not _LINUX or threading.current_thread() is threading.main_thread():
        return _fork_here(args, kwargs)
    requests, thread = _spawner_thread()
    request = _Request(args, kwargs)
    requests.put(request)
    while not request.done.wait(1.0):
        if not thread.is_alive():  # only at interpreter shutdown
            raise OSError("cannot start a child process: the child-spawner thread is gone")
    if request.error is not None:
        raise request.error
    assert request.proc is not None
    return request.proc

