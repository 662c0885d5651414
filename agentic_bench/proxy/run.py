"""Run the recording proxy until SIGINT/SIGTERM, then flush every open session."""

from __future__ import annotations

import asyncio
import signal
import sys

from agentic_bench.errors import EndpointStartError
from agentic_bench.proxy.server import ProxyConfig, RecordingProxy


async def serve(config: ProxyConfig, ready: asyncio.Event | None = None) -> RecordingProxy:
    proxy = RecordingProxy(config)
    try:
        port = await proxy.start()
    except OSError as exc:
        await proxy.stop()
        raise EndpointStartError(f"cannot listen on {config.host}:{config.port}: "
                                 f"{exc.strerror}") from None
    print(f"record proxy listening on http://{config.host}:{port}/v1 -> {proxy.recorder.upstream}"
          f"; writing {config.out}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if ready is not None:
        ready.set()
    await stop.wait()
    await proxy.stop()
    rec = proxy.recorder
    print(f"record proxy stopped: {rec.written_sessions} session(s), {rec.written_calls} "
          f"request(s) written to {config.out}; {rec.failed_calls} failed call(s) not recorded",
          flush=True)
    return proxy


def run_proxy(config: ProxyConfig) -> int:
    """Serve until interrupted (uvloop when installed); returns the exit code."""
    try:
        import uvloop

        uvloop.run(serve(config))
    except ImportError:
        asyncio.run(serve(config))
    sys.stdout.flush()
    return 0
