"""``llama-server`` behind our tool-call routing: one child process that serves the OpenAI API.

``python -m agentic_bench.endpoint.routing_proxy --host H --port P --upstream-port Q -- CMD...``
starts ``CMD`` (``llama-server`` listening on loopback port ``Q``) as its own child, waits until
it answers, then serves ``H:P``: a chat request with tools (``tool_choice`` not ``none``) is
answered by :class:`.tool_routing.RoutedReply` through llama-server's ``/completion``; every
other request (chat without tools, ``/v1/models``, ``/metrics``, ``/slots``, ``/tokenize``, ...)
is passed through to llama-server unchanged, streamed both ways.

Lifecycle: it is :class:`.llama_server.LlamaServer`'s child (its own session, PDEATHSIG);
llama-server is forked from this process's main thread with PDEATHSIG too and shares its process
group, so a SIGTERM to the group or this process's death stops both. When llama-server exits on
its own this process exits the same way (the same signal, or its exit code), so the supervisor
records the crash and restarts the pair.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from typing import TYPE_CHECKING, Any

from agentic_bench.endpoint.child_process import spawn
from agentic_bench.endpoint.tool_routing import (
    RoutedReply,
    UpstreamError,
    aggregate,
    needs_routing,
)

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    import aiohttp
    from aiohttp import web

# hop-by-hop or recomputed by aiohttp: never copied across the proxy
_DROP_HEADERS = {"host", "content-length", "transfer-encoding", "connection", "keep-alive",
                 "content-encoding"}  # fmt: skip


class HttpUpstream:
    """llama-server's ``/completion`` over one shared aiohttp session."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.url = f"{base}/completion"

    async def complete(self, payload: dict[str, Any]) -> dict[str, Any]:
        async with self.session.post(self.url, json={**payload, "stream": False}) as resp:
            text = await resp.text()
            if resp.status != 200:
                raise UpstreamError(resp.status, text)
            return dict(json.loads(text))

    async def stream(self, payload: dict[str, Any]) -> AsyncGenerator[dict[str, Any], None]:
        async with self.session.post(self.url, json={**payload, "stream": True}) as resp:
            if resp.status != 200:
                raise UpstreamError(resp.status, await resp.text())
            async for raw in resp.content:
                line = raw.strip()
                if line.startswith(b"data:"):
                    data = line[5:].strip()
                    if data and data != b"[DONE]":
                        event = json.loads(data)
                        if "error" in event:
                            raise UpstreamError(500, data.decode("utf-8", "replace"))
                        yield event


def _headers(source: Any) -> dict[str, str]:
    return {k: v for k, v in source.items() if k.lower() not in _DROP_HEADERS}


class RoutingProxy:
    """The aiohttp application: routed tool calls, everything else passed through."""

    def __init__(self, upstream_base: str) -> None:
        self.upstream_base = upstream_base
        self.session: aiohttp.ClientSession | None = None

    def app(self) -> web.Application:
        from aiohttp import web

        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self.chat)
        app.router.add_post("/chat/completions", self.chat)
        app.router.add_route("*", "/{tail:.*}", self.forward)
        app.on_startup.append(self._open)
        app.on_cleanup.append(self._close)
        return app

    async def _open(self, _app: web.Application) -> None:
        import aiohttp

        self.session = aiohttp.ClientSession(
            # a connection per request: llama-server may close one after a stream, and reusing
            # it fails the next request ("Can not write request body"); loopback, so cheap
            connector=aiohttp.TCPConnector(limit=0, force_close=True), auto_decompress=False,
            timeout=aiohttp.ClientTimeout(total=None))

    async def _close(self, _app: web.Application) -> None:
        if self.session is not None:
            await self.session.close()

    async def forward(self, request: web.Request, raw: bytes | None = None) -> web.StreamResponse:
        from aiohttp import web

        assert self.session is not None
        data = await request.read() if raw is None else raw
        async with self.session.request(request.method, self.upstream_base + request.path_qs,
                                        data=data, headers=_headers(request.headers)) as up:
            resp = web.StreamResponse(status=up.status, reason=up.reason,
                                      headers=_headers(up.headers))
            await resp.prepare(request)
            async for block in up.content.iter_any():
                await resp.write(block)
            await resp.write_eof()
            return resp

    async def chat(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        assert self.session is not None
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict) or not needs_routing(body):
            return await self.forward(request, raw)
        stream = bool(body.get("stream"))
        try:
            reply = RoutedReply(body, HttpUpstream(self.session, self.upstream_base))
            reply.include_usage = reply.include_usage or not stream
            first = await reply.route()
        except UpstreamError as exc:
            return web.Response(status=exc.status, text=exc.body, content_type="application/json")
        if not stream:
            chunks = [c async for c in reply.chunks(first)]
            errors = [c for c in chunks if "error" in c]
            if errors:
                return web.json_response(errors[0], status=500)
            return web.json_response(aggregate(chunks))
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-cache"})
        await resp.prepare(request)
        async with contextlib.aclosing(reply.chunks(first)) as chunks_stream:
            async for chunk in chunks_stream:
                await resp.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp


def _wait_upstream(child: subprocess.Popen[bytes], base: str, timeout_s: float) -> bool:
    """True once llama-server answers ``/v1/models``; False if it exits or the time runs out."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout_s
    while child.poll() is None and time.monotonic() < deadline:
        try:
            with opener.open(f"{base}/v1/models", timeout=2.0) as resp:
                if resp.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


async def _serve(proxy: RoutingProxy, child: subprocess.Popen[bytes], host: str,
                 port: int) -> None:
    from aiohttp import web

    runner = web.AppRunner(proxy.app(), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port, reuse_address=True).start()
    print(f"routing proxy: serving http://{host}:{port} in front of {proxy.upstream_base}",
          flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        while child.poll() is None and not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.2)
    finally:
        await runner.cleanup()


def _exit_like(child: subprocess.Popen[bytes]) -> None:
    """Leave as llama-server left: killed by the same signal, or with its exit code."""
    code = child.returncode
    print(f"routing proxy: llama-server exited ({code}); exiting with it", flush=True)
    if code is not None and code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code or 1)


def main(argv: list[str] | None = None) -> None:
    from agentic_bench.endpoint.llama_server import watch_parent_from_env

    args = list(sys.argv[1:] if argv is None else argv)
    split = args.index("--") if "--" in args else len(args)
    parser = argparse.ArgumentParser(prog="agentic_bench.endpoint.routing_proxy")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream-port", type=int, required=True)
    parser.add_argument("--start-timeout", type=float, default=120.0)
    opts = parser.parse_args(args[:split])
    command = args[split + 1 :]
    if not command:
        parser.error("the llama-server command follows --")
    watch_parent_from_env()
    child = spawn(command, stdin=subprocess.DEVNULL)  # PDEATHSIG: dies with this process
    base = f"http://127.0.0.1:{opts.upstream_port}"
    try:
        if not _wait_upstream(child, base, opts.start_timeout):
            if child.poll() is None:
                child.kill()
                child.wait()
            _exit_like(child)
        asyncio.run(_serve(RoutingProxy(base), child, opts.host, opts.port))
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            sys.exit(0)
    _exit_like(child)


if __name__ == "__main__":
    main()
