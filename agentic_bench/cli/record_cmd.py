"""``agentic-bench record``: a recording pass-through proxy that writes a trace."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "record", help="record an agent's calls through an OpenAI-compatible proxy",
        description="Serve an OpenAI-compatible pass-through on --port that forwards to "
        "--upstream (streams relayed chunk by chunk) and writes the chat sessions it sees "
        "to --out as a trace: messages, tools, replies, usage, timings, think and tool "
        "time. Sessions are grouped by the X-Session-ID header, else by conversation "
        "prefix (docs/recording.md); they are written after --idle-timeout seconds without "
        "a request and on SIGINT/SIGTERM. Authorization headers are forwarded, never "
        "written.")
    p.add_argument("--upstream", required=True, metavar="URL",
                   help="the real endpoint (http://host:port/v1)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8901, help="port to listen on (8901; 0 = any)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="trace to write")
    p.add_argument("--idle-timeout", type=float, default=60.0, metavar="S",
                   help="write a session after S seconds without a request (default 60)")
    p.add_argument("--upstream-timeout", type=float, default=600.0, metavar="S",
                   help="give up on an upstream read after S seconds of silence (600)")
    p.add_argument("--dump-requests", type=Path, metavar="FILE",
                   help="also write each chat request body (no headers) as JSONL, for debugging")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.errors import ConfigError
    from agentic_bench.proxy import ProxyConfig, run_proxy
    from agentic_bench.transport.url import normalize_base_url

    normalize_base_url(args.upstream)  # ConfigError for a bad URL, before listening
    if args.idle_timeout <= 0:
        raise ConfigError("--idle-timeout must be > 0")
    config = ProxyConfig(upstream=args.upstream, out=args.out, host=args.host, port=args.port,
                         idle_timeout_s=args.idle_timeout,
                         upstream_timeout_s=args.upstream_timeout,
                         dump_requests=args.dump_requests)
    return run_proxy(config)
