"""The embedded endpoint: llama.cpp's own ``llama-server`` as a supervised child process.

The binary comes from the install step's one llama.cpp build (``scripts/build_llama_cpp.sh``:
the llama-cpp-python 0.3.36 sdist's llama.cpp tree, compiled once for ``llama-server`` and for
the llama-cpp-python wheel that ``--endpoint inproc`` uses) and is kept beside
the shared libraries it loads, in ``.wheels/llama.cpp-0.3.36-shared/``. It serves the packaged
SmolLM2 with the model's whole context per slot (``--ctx-size`` = 8,192 × ``--parallel``), one
slot per stream of the run, ``--metrics`` (Prometheus at ``/metrics``, scraped by default:
docs/server-metrics.md), ``--jinja`` and its own ``/tokenize``.

SmolLM2's own chat template renders no tools (``llama-server`` would drop ``tools`` and fail on
an assistant message whose ``content`` is null), so the server is given ours,
``templates/smollm2-tools.jinja``. Where the model is to make tool calls itself,
``tool_routing=True`` puts our routing in front (:mod:`.routing_proxy`, which starts
``llama-server`` as its own child): through ``llama-server``'s own tool calling the 135M model
makes a call in 1 reply of 50 BFCL samples (its lazy grammar waits for a ``<tool_call>`` the
model does not write), with the routing — a reply's start grammar-chosen between a message and a
named call — in 49, 9 of 50 right (benchmarks/results/agentic-edge/llama-server-routing/).

``LlamaServer`` starts it on a loopback port, waits until ``GET /v1/models`` answers, and stops
it (SIGTERM, then SIGKILL after a grace period). No server outlives the harness: the child gets
its own session and, on Linux, ``PR_SET_PDEATHSIG`` (SIGKILL when the harness dies, even by
SIGKILL), forked from a thread that lives as long as the process whichever thread starts or
restarts it (:mod:`.child_process`); the routing proxy also watches its parent pid
(:func:`watch_parent_from_env`, for other systems); ``atexit`` and ``__exit__`` stop it too.
``supervise()`` restarts a server that dies on its own (a crash) on the same port, so a long
run goes on; each restart is listed in ``restarts`` (and in the run's summary). Only stdlib
imports here: the CLI imports this module at start-up time.
"""

from __future__ import annotations

import atexit
import errno
import importlib.metadata
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from agentic_bench.endpoint.child_process import spawn
from agentic_bench.endpoint.model_file import MODEL_ALIAS, locate_model, model_sha256
from agentic_bench.errors import EndpointStartError

LLAMA_CPP_VERSION = "0.3.36"
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
TOOLS_TEMPLATE = Path(__file__).resolve().parent / "templates" / "smollm2-tools.jinja"
# the bundle of scripts/build_llama_cpp.sh: llama-server beside its libllama/libggml*.so (RPATH
# $ORIGIN) and the llama-cpp-python wheel built around the same libraries
BINARY_NAME = f"llama.cpp-{LLAMA_CPP_VERSION}-shared/llama-server"
BINARY_ENV = "AGENTIC_BENCH_LLAMA_SERVER"
MODEL_CTX = 8192  # SmolLM2-135M-Instruct's trained context
MAX_SLOTS = 16
HINT = ("build it with `make install` or `scripts/install_llama_server.sh .venv/bin/pip` "
        f"(llama.cpp's tree from the llama-cpp-python {LLAMA_CPP_VERSION} sdist, compiled once "
        f"for llama-server and the llama-cpp-python wheel, ~7 min on 2 cores), or point "
        f"${BINARY_ENV} at a llama-server binary")
# OpenMP workers that spin between decode steps starve the server's Python threads (and the
# benchmark client) when cores are few or shared: measured 3-11 vs 22-28 tokens/s on 2 busy
# cores (docs/embedded-endpoint.md). A user's own setting wins.
CHILD_ENV_DEFAULTS = {"OMP_WAIT_POLICY": "PASSIVE"}
PARENT_PID_ENV = "AGENTIC_BENCH_PARENT_PID"
_LIVE: set[LlamaServer] = set()
_ATEXIT_DONE = False
_LOCK = threading.Lock()


def default_threads() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 2
    return max(1, min(4, cpus))


def binary_candidates() -> list[Path]:
    root = Path(__file__).resolve().parents[2]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    found = [Path(os.environ[BINARY_ENV])] if os.environ.get(BINARY_ENV) else []
    return [*found, root / ".wheels" / BINARY_NAME,
            cache / "agentic-bench" / "wheels" / BINARY_NAME]


def find_binary() -> Path | None:
    return next((p for p in binary_candidates() if p.is_file() and os.access(p, os.X_OK)), None)


def _connect_host(host: str) -> str:
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _bind_probe(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # like uvicorn
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def port_is_free(host: str, port: int) -> bool:
    """True when a server could bind ``host:port`` now (same rules as uvicorn)."""
    try:
        _bind_probe(host or "0.0.0.0", port).close()
    except OSError:
        return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    sock = _bind_probe(host or "0.0.0.0", 0)
    try:
        return int(sock.getsockname()[1])
    finally:
        sock.close()


def watch_parent_from_env(interval_s: float = 0.5, grace_s: float = 10.0) -> None:
    """In the server child: SIGTERM itself when the harness ($AGENTIC_BENCH_PARENT_PID) is gone.

    A second guard beside PR_SET_PDEATHSIG (:mod:`.child_process`), and the only one on systems
    without it. The routing proxy (:mod:`.routing_proxy`) runs it; exits hard if a graceful
    stop takes over ``grace_s``.
    """
    try:
        parent = int(os.environ.get(PARENT_PID_ENV, ""))
    except ValueError:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval_s)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace_s)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _stop_all() -> None:
    for server in list(_LIVE):
        server.stop(grace_s=2.0)


def _tail(fd: int | None, lines: int = 25, max_bytes: int = 8192) -> str:
    """The last ``lines`` of the log behind ``fd`` (read without moving any file offset)."""
    if fd is None:
        return ""
    try:
        size = os.fstat(fd).st_size
        data = os.pread(fd, max_bytes, max(0, size - max_bytes)).decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


class LlamaServer:
    """``with LlamaServer(slots=4) as srv: ... srv.base_url`` — llama.cpp's ``llama-server`` on
    loopback (``tool_routing=True``: behind our routing proxy)."""

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        n_ctx: int = MODEL_CTX,
        n_threads: int | None = None,
        slots: int = 1,
        binary: str | os.PathLike[str] | None = None,
        tool_routing: bool = False,
        alias: str = MODEL_ALIAS,
        start_timeout_s: float = 120.0,
        stop_grace_s: float = 5.0,
        python: str | None = None,
        log_path: str | os.PathLike[str] | None = None,
        extra_args: Sequence[str] = (),
        append_log: bool = False,
    ) -> None:
        self._model_arg = model_path
        self.host = host
        self.requested_port = port
        self.port: int | None = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
        self.slots = max(1, min(int(slots), MAX_SLOTS))
        self.binary = Path(binary) if binary else find_binary()
        # our tool-call routing in front (routing_proxy.py): llama-server then listens on
        # a loopback port of its own, picked at each start
        self.tool_routing = tool_routing
        self.upstream_port: int | None = None
        self.model = alias
        self.start_timeout_s = start_timeout_s
        self.stop_grace_s = stop_grace_s
        self.python = python or sys.executable
        self.log_path = Path(log_path) if log_path else None  # None: an unlinked temp file
        self.append_log = append_log  # keep what an earlier server wrote there (a resumed run)
        self._log_fd: int | None = None  # read side, for the tail in error messages
        self.extra_args = list(extra_args)
        self.model_path: Path | None = None
        self.start_seconds: float | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._sha256: str | None = None
        self.restarts: list[dict[str, Any]] = []  # one entry per crash seen by supervise()
        self.generation = 0  # successful restarts so far
        # requests that met the dead server and waited for its restart (restart_wait.py)
        self.restart_waits: dict[str, float] = {"requests": 0, "total_ms": 0.0}
        self.max_restarts = 20
        self._life = threading.RLock()  # start/stop/restart of the child, one at a time
        self._stopping = threading.Event()
        self._watcher: threading.Thread | None = None

    # -- properties ---------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("LlamaServer is not started")
        return f"http://{_url_host(_connect_host(self.host))}:{self.port}/v1"

    @property
    def metrics_url(self) -> str:
        return self.base_url.removesuffix("/v1") + "/metrics"

    @property
    def slots_url(self) -> str:
        return self.base_url.removesuffix("/v1") + "/slots"

    def command(self) -> list[str]:
        """The child's command line (model path and port must be resolved): ``llama-server``,
        or with ``tool_routing`` the routing proxy that starts it."""
        if not self.tool_routing:
            return self.server_command(self.host, self.port)
        return [self.python, "-m", "agentic_bench.endpoint.routing_proxy",
                "--host", self.host, "--port", str(self.port),
                "--upstream-port", str(self.upstream_port),
                "--start-timeout", str(self.start_timeout_s),
                "--", *self.server_command("127.0.0.1", self.upstream_port)]  # fmt: skip

    def server_command(self, host: str, port: int | None) -> list[str]:
        """``llama-server``'s own command line, listening on ``host:port``."""
        return [
            str(self.binary), "-m", str(self.model_path), "--alias", self.model,
            "--host", host, "--port", str(port),
            "--ctx-size", str(self.n_ctx * self.slots), "--parallel", str(self.slots),
            "--threads", str(self.n_threads), "--threads-batch", str(self.n_threads),
            "--metrics", "--jinja", "--chat-template-file", str(TOOLS_TEMPLATE), "--no-ui",
            *self.extra_args,
        ]  # fmt: skip

    # -- lifecycle ----------------------------------------------------------------------------
    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> LlamaServer:
        if self._proc is not None:
            return self
        self._check_installed()
        self.model_path = locate_model(self._model_arg)
        if self.requested_port is not None and not port_is_free(self.host, self.requested_port):
            raise EndpointStartError(
                f"port {self.requested_port} on {self.host} is busy (another server is listening); "
                "choose another --port or omit it to pick a free one"
            )
        t0 = time.perf_counter()
        attempts = 1 if self.requested_port is not None else 3
        for attempt in range(attempts):
            self.port = self.requested_port or free_port(self.host)
            try:
                self._spawn_and_wait(append_log=self.append_log)
                break
            except _PortRace:
                if attempt == attempts - 1:
                    raise EndpointStartError(
                        f"could not bind a free port on {self.host} after {attempts} tries"
                    ) from None
        self.start_seconds = time.perf_counter() - t0
        return self

    def _check_installed(self) -> None:
        if self.binary is None or not self.binary.is_file():
            raise EndpointStartError(f"llama.cpp's llama-server is not built; {HINT}")

    def _open_log(self, append: bool = False) -> Any:
        """The file the child writes to; a temp file is unlinked at once (nothing to leak)."""
        self._close_log()
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = self.log_path.open("ab" if append else "wb")
            self._log_fd = os.open(self.log_path, os.O_RDONLY)
            return log
        fd, name = tempfile.mkstemp(prefix="agentic-bench-llama-", suffix=".log")
        try:
            self._log_fd = os.open(name, os.O_RDONLY)
        finally:
            os.unlink(name)
        return os.fdopen(fd, "wb")

    def _close_log(self) -> None:
        fd, self._log_fd = self._log_fd, None
        if fd is not None:
            os.close(fd)

    def _spawn_and_wait(self, append_log: bool = False) -> None:
        global _ATEXIT_DONE
        with _LOCK:
            if not _ATEXIT_DONE:
                atexit.register(_stop_all)
                _ATEXIT_DONE = True
        env = dict(os.environ)
        env.pop("HOST", None)  # never let $HOST/$PORT reach a server that reads them
        env.pop("PORT", None)
        env.setdefault("PYTHONUNBUFFERED", "1")
        for key, value in CHILD_ENV_DEFAULTS.items():
            env.setdefault(key, value)
        env[PARENT_PID_ENV] = str(os.getpid())
        if self.tool_routing:  # the routing proxy lives in this package
            self.upstream_port = free_port("127.0.0.1")
            path = env.get("PYTHONPATH")
            env["PYTHONPATH"] = _PACKAGE_ROOT + (os.pathsep + path if path else "")
        with self._open_log(append_log) as log:
            # forked from the main thread or the child-spawner thread (not this one, which may
            # be a short-lived worker), with PR_SET_PDEATHSIG: it dies with the harness
            self._proc = spawn(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        _LIVE.add(self)
        try:
            self._wait_ready()
        except BaseException:
            self._stop_child(2.0)
            raise

    def _wait_ready(self) -> None:
        assert self._proc is not None
        url = f"{self.base_url}/models"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + self.start_timeout_s
        delay = 0.05
        while True:
            code = self._proc.poll()
            if code is not None:
                tail = _tail(self._log_fd)
                if self.requested_port is None and (
                    "address already in use" in tail.lower() or f"errno {errno.EADDRINUSE}" in tail
                ):
                    raise _PortRace
                raise EndpointStartError(
                    f"llama.cpp server exited with code {code} during start-up "
                    f"(command: {' '.join(self.command())}); last output:\n{tail}"
                )
            try:
                with opener.open(url, timeout=2.0) as resp:
                    if resp.status == 200:
                        json.loads(resp.read())
                        return
            except (urllib.error.URLError, OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                tail = _tail(self._log_fd)
                raise EndpointStartError(
                    f"llama.cpp server did not answer {url} within {self.start_timeout_s:.0f} s; "
                    f"last output:\n{tail}"
                )
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def stop(self, grace_s: float | None = None) -> None:
        """SIGTERM, wait ``grace_s``, SIGKILL; then wait until the port is free. Idempotent."""
        self._stopping.set()  # the supervisor must not bring it back
        watcher, self._watcher = self._watcher, None
        if watcher is not None and watcher is not threading.current_thread():
            watcher.join(self.start_timeout_s + 15)  # a restart in progress finishes first
        with self._life:
            self._stop_child(grace_s)

    def _stop_child(self, grace_s: float | None) -> None:
        proc, self._proc = self._proc, None
        _LIVE.discard(self)
        if proc is None:
            return
        grace = self.stop_grace_s if grace_s is None else grace_s
        try:
            if proc.poll() is None:
                _killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(grace)
                except subprocess.TimeoutExpired:
                    _killpg(proc.pid, signal.SIGKILL)
                    proc.wait(10)
        except BaseException:
            _killpg(proc.pid, signal.SIGKILL)  # interrupted while waiting: do not leave it
            proc.wait(10)
            raise
        finally:
            _killpg(proc.pid, signal.SIGKILL)  # stragglers in its process group, if any
        if self.port is not None:
            deadline = time.monotonic() + 5.0
            while not port_is_free(self.host, self.port) and time.monotonic() < deadline:
                time.sleep(0.05)
        self._close_log()

    # -- supervision --------------------------------------------------------------------------
    def supervise(self, interval_s: float = 0.25) -> None:
        """Watch the started server from a thread; when it exits on its own, restart it on the
        same port (at most ``max_restarts`` times). Requests it was serving fail (error
        records); ``--resume DIR --retry-errors`` asks them again."""
        if self._proc is None or self._watcher is not None:
            return
        self._stopping.clear()
        self._watcher = threading.Thread(target=self._watch, args=(interval_s,),
                                         name="llama-server-watch", daemon=True)
        self._watcher.start()

    def recover(self, seen_generation: int, timeout_s: float) -> bool:
        """Called when a request found the port closed: ``True`` once a server newer than
        ``seen_generation`` is up (restarted here, or by the watcher while this waited at most
        ``timeout_s``); ``False`` when the server is alive (the refusal was something else),
        stopping, unsupervised, or could not be restarted."""
        if self._watcher is None or not self._life.acquire(timeout=timeout_s):
            return False
        try:
            if self.generation > seen_generation:
                return True
            proc = self._proc
            if self._stopping.is_set() or proc is None or proc.poll() is None:
                return False
            return self._restart_after(proc)
        finally:
            self._life.release()

    def _watch(self, interval_s: float) -> None:
        while not self._stopping.wait(interval_s):
            with self._life:
                proc = self._proc
                if self._stopping.is_set() or proc is None or proc.poll() is None:
                    continue
                if not self._restart_after(proc):
                    return

    def _restart_after(self, proc: subprocess.Popen[bytes]) -> bool:
        code = proc.returncode
        event: dict[str, Any] = {
            "at": time.time(), "exit_code": code,
            "signal": _signal_name(code),
            "log_tail": _tail(self._log_fd, 8), "restart_s": None, "error": None,
        }
        self.restarts.append(event)
        what = event["signal"] or f"exit code {code}"
        if len(self.restarts) > self.max_restarts:
            event["error"] = f"not restarted: {self.max_restarts} restarts already"
            print(f"embedded server died ({what}); {event['error']}", file=sys.stderr)
            return False
        self._stop_child(0.0)  # reap it and anything left in its process group
        t0 = time.perf_counter()
        try:
            self._spawn_and_wait(append_log=True)  # self.port is kept: clients' URL still works
        except (EndpointStartError, _PortRace, OSError) as exc:
            event["error"] = f"restart failed: {exc}"
            print(f"embedded server died ({what}); {event['error']}", file=sys.stderr)
            return False
        event["restart_s"] = round(time.perf_counter() - t0, 3)
        event["pid"] = self.pid
        self.generation += 1
        print(f"embedded server died ({what}); restarted on port {self.port} in "
              f"{event['restart_s']:.1f} s — requests it was serving are error records "
              "(--resume DIR --retry-errors asks them again)", file=sys.stderr)
        return True

    def log_tail(self, lines: int = 25) -> str:
        """The last lines the server wrote (while its log exists)."""
        return _tail(self._log_fd, lines)

    # -- description --------------------------------------------------------------------------
    def model_sha256(self) -> str:
        if self._sha256 is None:
            path = self.model_path or locate_model(self._model_arg)
            self._sha256 = model_sha256(path)
        return self._sha256

    def info(self) -> dict[str, Any]:
        """What was served and how: recorded in a run's summary."""
        path = self.model_path or locate_model(self._model_arg)
        try:
            wheel = importlib.metadata.version("llama_cpp_python")
        except importlib.metadata.PackageNotFoundError:
            wheel = None
        routing = "agentic_bench.endpoint.routing_proxy + " if self.tool_routing else ""
        return {
            "kind": "llama-server",
            "server": f"llama-server (llama.cpp from llama-cpp-python {LLAMA_CPP_VERSION})",
            "launcher": routing + "llama-server",
            "llama_cpp_python": wheel,  # the wheel built from the same compile (inproc's)
            "binary": str(self.binary),
            "chat_template": TOOLS_TEMPLATE.name,
            "tool_routing": ("routing_proxy: a message or a named call, grammar-chosen "
                             "(docs/embedded-endpoint.md)") if self.tool_routing else None,
            "model": self.model,
            "model_path": str(path),
            "model_file": path.name,
            "model_size_bytes": path.stat().st_size,
            "model_sha256": self.model_sha256(),
            "base_url": self.base_url if self.port is not None else None,
            "metrics_urls": [self.metrics_url, self.slots_url] if self.port else [],
            "pid": self.pid,
            "start_seconds": self.start_seconds,
            "restarts": self.restarts,  # the live list: crashes seen until the run ends
            "restart_waits": self.restart_waits,  # live too
            "flags": {
                "host": self.host,
                "port": self.port,
                "n_threads": self.n_threads,
                "slots": self.slots,
                "ctx_size": self.n_ctx * self.slots,
                "ctx_per_slot": self.n_ctx,
                "model_alias": self.model,
                "extra_args": list(self.extra_args),
                "env": {k: os.environ.get(k, v) for k, v in CHILD_ENV_DEFAULTS.items()},
            },
            "command": self.command() if self.model_path and self.port else None,
        }


def _signal_name(returncode: int) -> str | None:
    """``SIGSEGV`` for a child killed by signal 11 (return code -11); None otherwise."""
    try:
        return signal.Signals(-returncode).name if returncode < 0 else None
    except ValueError:
        return None


class _PortRace(Exception):
    """The auto-picked port was taken between probing and binding."""


def _killpg(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
