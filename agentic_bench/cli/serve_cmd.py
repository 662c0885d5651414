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


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"expected a port in 1..65535, got {text}")
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the embedded llama.cpp endpoint (SmolLM2-135M-Instruct) until interrupted",
        description="Start llama-cpp-python's OpenAI-compatible server with the packaged "
        "SmolLM2-135M-Instruct GGUF, print its base URL, and serve until SIGINT/SIGTERM.",
    )
    parser.add_argument("--port", type=_port, default=None, help="default: a free port")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--ctx", type=_positive, default=4096, help="context size (n_ctx)")
    parser.add_argument("--threads", type=_positive, default=None, help="default: min(4, CPUs)")
    parser.add_argument(
        "--chat-format",
        default=None,
        help="llama-cpp-python chat format (default: chatml-function-calling-stream, "
        "see docs/embedded-endpoint.md)",
    )
    parser.add_argument("--log", default=None, help="also keep the server's output in this file")
    parser.set_defaults(func=run)


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signum)


def run(args: argparse.Namespace) -> int:
    from agentic_bench.endpoint.llama_server import DEFAULT_CHAT_FORMAT, LlamaServer

    previous = {s: signal.signal(s, _raise_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    server = LlamaServer(
        host=args.host,
        port=args.port,
        n_ctx=args.ctx,
        n_threads=args.threads,
        chat_format=args.chat_format or DEFAULT_CHAT_FORMAT,
        log_path=args.log,
    )
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
