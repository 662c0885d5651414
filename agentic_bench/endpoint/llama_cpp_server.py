"""``--endpoint llama-server``: llama.cpp's own ``llama-server`` as a supervised child process.

The binary comes from the install step's one llama.cpp build (``scripts/build_llama_cpp.sh``:
the llama-cpp-python 0.3.36 sdist's llama.cpp tree, compiled once for the embedded endpoint's
wheel and this server) and is kept beside the shared libraries it loads and that wheel, in
``.wheels/llama.cpp-0.3.36-shared/``. It serves the packaged SmolLM2 with the model's whole
context per slot (``--ctx-size`` = 8,192 × ``--parallel``), one slot per stream of the run,
``--metrics`` (Prometheus at ``/metrics``, scraped by default: docs/server-metrics.md),
``--jinja`` and its own ``/tokenize``. Start, stop, supervision, restarts and the log in the run
folder are :class:`LlamaServer`'s.

SmolLM2's own chat template renders no tools (``llama-server`` would drop ``tools`` and fail on
an assistant message whose ``content`` is null), so the server is given ours,
``templates/smollm2-tools.jinja``: tools listed in the system message, calls as
``<tool_call>{...}</tool_call>`` blocks, ``tool`` results as ``<tool_response>`` — llama.cpp's
template analysis then builds its tool-call parser and lazy grammar from it.

It is the ``embedded`` endpoint (:func:`choose_embedded`). Where the model is to make tool calls
itself, ``tool_routing=True`` puts our routing in front (:mod:`.routing_proxy`, which starts
``llama-server`` as its own child): through ``llama-server``'s own tool calling the 135M model
makes a call in 1 reply of 50 BFCL samples (its lazy grammar waits for a ``<tool_call>`` the
model does not write), with the routing — a reply's start grammar-chosen between a message and a
named call — in 49, 9 of 50 right (benchmarks/results/agentic-edge/llama-server-routing/).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentic_bench.endpoint.llama_server import LLAMA_CPP_VERSION, LlamaServer, free_port
from agentic_bench.errors import EndpointStartError

TOOLS_TEMPLATE = Path(__file__).resolve().parent / "templates" / "smollm2-tools.jinja"
# the bundle of scripts/build_llama_cpp.sh: llama-server beside its libllama/libggml*.so (RPATH
# $ORIGIN) and the llama-cpp-python wheel built around the same libraries
BINARY_NAME = f"llama.cpp-{LLAMA_CPP_VERSION}-shared/llama-server"
BINARY_ENV = "AGENTIC_BENCH_LLAMA_SERVER"
MODEL_CTX = 8192  # SmolLM2-135M-Instruct's trained context
MAX_SLOTS = 16
HINT = ("build it with `make install` or `scripts/install_llama_server.sh .venv/bin/pip` "
        f"(llama.cpp's tree from the llama-cpp-python {LLAMA_CPP_VERSION} sdist, compiled once "
        f"for both servers, ~7 min on 2 cores), or point ${BINARY_ENV} at a llama-server binary")


def binary_candidates() -> list[Path]:
    root = Path(__file__).resolve().parents[2]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    found = [Path(os.environ[BINARY_ENV])] if os.environ.get(BINARY_ENV) else []
    return [*found, root / ".wheels" / BINARY_NAME,
            cache / "agentic-bench" / "wheels" / BINARY_NAME]


def find_binary() -> Path | None:
    return next((p for p in binary_candidates() if p.is_file() and os.access(p, os.X_OK)), None)


def choose_embedded(tool_routing: bool) -> tuple[str, str]:
    """Which server ``--endpoint embedded`` starts, and why: ``llama-server`` (with our tool-call
    routing in front when the workload needs the model's tool calls, ``tool_routing``), or
    ``llama-cpp-python`` (its server with our routing shim) when the binary is not built."""
    if find_binary() is None:
        return "llama-cpp-python", f"llama-server is not built: {HINT}"
    if tool_routing:
        return "llama-server", ("the model is to call tools: llama.cpp's own server with our "
                                "routing in front (a message or a named call, grammar-chosen)")
    return "llama-server", "llama.cpp's own server, a slot per stream, /metrics"


class LlamaCppServer(LlamaServer):
    """``with LlamaCppServer(slots=4) as srv: ... srv.base_url`` — llama.cpp's server."""

    def __init__(self, *args: Any, slots: int = 1, binary: str | os.PathLike[str] | None = None,
                 tool_routing: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("n_ctx", MODEL_CTX)
        super().__init__(*args, **kwargs)
        self.slots = max(1, min(int(slots), MAX_SLOTS))
        self.binary = Path(binary) if binary else find_binary()
        # our tool-call routing in front (routing_proxy.py): llama-server then listens on
        # a loopback port of its own, picked at each start
        self.tool_routing = tool_routing
        self.upstream_port: int | None = None

    def _spawn_and_wait(self, append_log: bool = False) -> None:
        if self.tool_routing:
            self.upstream_port = free_port("127.0.0.1")
        super()._spawn_and_wait(append_log)

    def command(self) -> list[str]:
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

    def _check_installed(self) -> None:
        if self.binary is None or not self.binary.is_file():
            raise EndpointStartError(f"llama.cpp's llama-server is not built; {HINT}")

    def _start_sysinfo(self) -> None:
        self._sysinfo = ""  # the build line is in the server's own log

    @property
    def metrics_url(self) -> str:
        return self.base_url.removesuffix("/v1") + "/metrics"

    @property
    def slots_url(self) -> str:
        return self.base_url.removesuffix("/v1") + "/slots"

    def info(self) -> dict[str, Any]:
        out = super().info()
        out.update(kind="llama-server", launcher="llama-server",
                   server=f"llama-server (llama.cpp from llama-cpp-python {LLAMA_CPP_VERSION})",
                   binary=str(self.binary), chat_template=TOOLS_TEMPLATE.name,
                   metrics_urls=[self.metrics_url, self.slots_url] if self.port else [],
                   tool_routing=("routing_proxy: a message or a named call, grammar-chosen "
                                 "(docs/embedded-endpoint.md)") if self.tool_routing else None)
        if self.tool_routing:
            out["launcher"] = "agentic_bench.endpoint.routing_proxy + llama-server"
        flags = out["flags"]
        for key in ("chat_format", "n_threads_batch"):
            flags.pop(key, None)
        flags.update(slots=self.slots, ctx_size=self.n_ctx * self.slots, ctx_per_slot=self.n_ctx)
        return out
