"""``agentic-bench serve``: run the embedded llama.cpp endpoint until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from types import FrameType
from typing import Any


class _Stop(BaseException):
    """Raised by the signal handler: leave the wait loop and stop the server."""


def register(subparsers: Any) -> None:
    from agentic_bench.cli.options_command import add_options_command

    add_options_command(subparsers, "serve", "run the embedded llama.cpp endpoint "
                        "(SmolLM2-135M-Instruct) until interrupted").set_defaults(func=run)


def _server(options: Any) -> Any:
    """The server ``serve`` runs (not started): llama.cpp's ``llama-server``, with our tool-call
    routing in front unless ``--no-tool-routing``."""
    from agentic_bench.endpoint.llama_server import LlamaServer

    return LlamaServer(host=options.host, port=options.port or None,  # None or 0: a free port
                       n_threads=options.threads, log_path=options.log, slots=options.slots,
                       tool_routing=not options.no_tool_routing,
                       **({"n_ctx": options.ctx} if options.ctx else {}))


def refuse_removed_flags(argv: list[str]) -> None:
    """``--server``/``--chat-format`` (llama-cpp-python's server, removed): a usage error that
    says so and what ``serve`` runs now, not argparse's bare "unrecognized arguments"."""
    from agentic_bench.options.serving import REMOVED_SERVE_FLAGS, REMOVED_SERVER

    for word in argv:
        flag = word.split("=", 1)[0]
        if flag in REMOVED_SERVE_FLAGS:
            from agentic_bench.errors import ConfigError

            raise ConfigError(f"{flag} {REMOVED_SERVER}")


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signum)


def run(args: argparse.Namespace) -> int:
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.options.serving import ServeOptions

    refuse_removed_flags(args.rest)
    options = parse_command(ServeOptions, args.rest, "serve")
    server = _server(options)
    previous = {s: signal.signal(s, _raise_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with server:
            print(server.base_url, flush=True)
            print(
                f"serving {server.model} ({server.model_path.name if server.model_path else '?'}) "
                f"pid {server.pid}, ready in {server.start_seconds or 0:.1f} s; "
                "Ctrl-C to stop",
                file=sys.stderr,
                flush=True,
            )
            while server.running:
                time.sleep(0.5)
            print(
                f"error: the server exited unexpectedly; last output:\n{server.log_tail()}",
                file=sys.stderr,
            )
            return 1
    except _Stop:
        print("stopped", file=sys.stderr, flush=True)
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
