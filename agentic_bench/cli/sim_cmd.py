"""``agentic-bench sim``: the latency simulator (OpenAI-compatible, known timings)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "sim", help="run the latency simulator (an OpenAI-compatible server with known timings)",
        description="Serve /v1/chat/completions (streaming) and /v1/models with injected "
        "timings: first token after --ttft-ms, then one token every --itl-ms.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: loopback only)")
    p.add_argument("--port", type=int, default=8900, help="port (default 8900; 0 = a free one)")
    p.add_argument("--ttft-ms", type=float, default=100.0, metavar="MS",
                   help="time from the complete request to the first token (default 100)")
    p.add_argument("--itl-ms", type=float, default=10.0, metavar="MS",
                   help="gap between consecutive tokens (default 10)")
    p.add_argument("--output-tokens", type=int, default=64, metavar="N",
                   help="tokens per reply, or the request's smaller max_tokens (default 64)")
    p.add_argument("--jitter", type=float, default=0.0, metavar="MS",
                   help="uniform ±MS added to each inter-token gap (seeded)")
    p.add_argument("--tool-call", metavar="NAME", help="stream a call to tool NAME instead of text")
    p.add_argument("--model", default="sim", help="model id to serve (default sim)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed for --jitter and the fault draws (default 0)")
    p.add_argument("--replay-trace", metavar="FILE",
                   help="oracle mode: answer each request with the recorded reply that "
                   "followed its history in FILE (MLCommons agentic JSONL), streamed one "
                   "word per chunk; an unknown history gets a short text reply")
    p.add_argument("--reply", metavar="TEXT",
                   help="answer every request with TEXT (streamed one word per chunk), e.g. a "
                   "judge verdict '{\"correct\": true}' for rag-e2e's --judge-endpoint")
    p.add_argument("--prefix-cache", action="store_true",
                   help="prefix-cache model: usage counts prompt characters and reports as "
                   "cached (prompt_tokens_details.cached_tokens) those whose whole prefix an "
                   "earlier request sent, in 64-character blocks — the trace's prefix ceiling, "
                   "so a single-stream replay's hit rate equals it")
    p.add_argument("--precise", action="store_true",
                   help="hold every injected time to tens of microseconds (the last 2 ms "
                   "before each deadline are spent polling: one busy core); for measuring "
                   "a client's own timing error")
    p.add_argument("--ttft-per-inflight-ms", type=float, default=0.0, metavar="MS",
                   help="load model: add MS to a reply's TTFT for every other reply in flight "
                   "when it arrives (TTFT = --ttft-ms + MS x others), so latency grows with "
                   "load and a capacity search has a known answer (default 0: no load model)")
    p.add_argument("--itl-per-inflight-ms", type=float, default=0.0, metavar="MS",
                   help="load model: add MS to each gap between a reply's tokens for every other "
                   "reply in flight when it arrives (default 0)")
    p.add_argument("--context-limit", type=int, metavar="N",
                   help="answer HTTP 400 'maximum context length' when prompt words + "
                   "max_tokens exceed N (a model's context window, for overflow handling)")
    p.add_argument("--request-log", metavar="FILE",
                   help="append every chat request (arrival time, routing headers, body) to "
                   "FILE as JSON Lines")
    p.add_argument("--api-key-env", metavar="VAR",
                   help="require 'Bearer $VAR' (to test key handling)")
    faults = p.add_argument_group("faults (per-request probabilities, for robustness tests)")
    for name, what in (("fail", "answer HTTP 500"), ("hang", "send headers, then nothing"),
                       ("disconnect", "drop the connection mid-stream"),
                       ("malformed", "send a non-JSON chunk mid-stream")):
        faults.add_argument(f"--{name}-rate", type=float, default=0.0, metavar="P",
                            help=f"probability to {what} (default 0)")
    faults.add_argument("--slow-headers-ms", type=float, default=0.0, metavar="MS",
                        help="delay the response headers by MS (default 0)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    import asyncio
    import os
    import signal

    from agentic_bench.endpoint.sim import SimConfig, SimServer

    config = SimConfig(
        ttft_ms=args.ttft_ms, itl_ms=args.itl_ms, output_tokens=args.output_tokens,
        jitter_ms=args.jitter, tool_call=args.tool_call, model=args.model, seed=args.seed,
        fail_rate=args.fail_rate, hang_rate=args.hang_rate, disconnect_rate=args.disconnect_rate,
        malformed_rate=args.malformed_rate, slow_headers_ms=args.slow_headers_ms,
        precise=args.precise, replay_trace=args.replay_trace, reply=args.reply,
        prefix_cache=args.prefix_cache,
        ttft_per_inflight_ms=args.ttft_per_inflight_ms,
        itl_per_inflight_ms=args.itl_per_inflight_ms,
        context_limit=args.context_limit, request_log=args.request_log,
        api_key=os.environ.get(args.api_key_env) if args.api_key_env else None)

    server = SimServer(config)  # loads --replay-trace first: a bad file fails before listening

    async def serve() -> None:
        try:
            port = await server.start(args.host, args.port)
        except OSError as exc:
            from agentic_bench.errors import EndpointStartError

            raise EndpointStartError(f"cannot listen on {args.host}:{args.port}: "
                                     f"{exc.strerror}") from None
        print(f"sim listening on http://{args.host}:{port}/v1", flush=True)
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
