"""``agentic-bench sim``: the latency simulator (OpenAI-compatible, known timings)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    add_options_command(sub, "sim", "run the latency simulator (an OpenAI-compatible server "
                        "with known timings)").set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    import asyncio
    import os
    import signal

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.endpoint.sim import SimConfig, SimServer
    from agentic_bench.options.serving import SimOptions

    opts = parse_command(SimOptions, args.rest, "sim")
    config = SimConfig(
        ttft_ms=opts.ttft_ms, itl_ms=opts.itl_ms, output_tokens=opts.output_tokens,
        jitter_ms=opts.jitter, ttft_jitter_ms=opts.ttft_jitter, tool_call=opts.tool_call,
        model=opts.model, seed=opts.seed,
        fail_rate=opts.fail_rate, hang_rate=opts.hang_rate, disconnect_rate=opts.disconnect_rate,
        malformed_rate=opts.malformed_rate, slow_headers_ms=opts.slow_headers_ms,
        precise=opts.precise,
        replay_trace=None if opts.replay_trace is None else str(opts.replay_trace),
        reply=opts.reply,
        prefix_cache=opts.prefix_cache,
        ttft_per_inflight_ms=opts.ttft_per_inflight_ms,
        itl_per_inflight_ms=opts.itl_per_inflight_ms,
        context_limit=opts.context_limit,
        request_log=None if opts.request_log is None else str(opts.request_log),
        timestamps=opts.timestamps,
        timing_log=None if opts.timing_log is None else str(opts.timing_log),
        api_key=os.environ.get(opts.api_key_env) if opts.api_key_env else None)

    server = SimServer(config)  # loads --replay-trace first: a bad file fails before listening

    async def serve() -> None:
        try:
            port = await server.start(opts.host, opts.port or 0)
        except OSError as exc:
            from agentic_bench.errors import EndpointStartError

            raise EndpointStartError(f"cannot listen on {opts.host}:{opts.port}: "
                                     f"{exc.strerror}") from None
        print(f"sim listening on http://{opts.host}:{port}/v1", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()
        print(f"sim stopped after {server.requests} requests", flush=True)

    try:
        import uvloop

        uvloop.run(serve())
    except ImportError:
        asyncio.run(serve())
    return 0
