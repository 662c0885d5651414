"""The recording pass-through: an aiohttp server that forwards to an aiohttp client.

Every request is forwarded as is (method, path under the upstream base URL, query, body,
headers minus hop-by-hop ones and ``Accept-Encoding``, so the reply is not compressed).
Response bytes are written to the client as each network chunk arrives — never buffered —
while the proxy keeps ``(perf_counter_ns, bytes)`` pairs and parses them only after the last
byte went out. Only ``POST .../chat/completions`` calls are recorded. Header values (API keys
included) are forwarded and never written anywhere.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

import aiohttp
from aiohttp import web

from agentic_bench.proxy.recorder import Call, Recorder
from agentic_bench.transport.result import ChatResult
from agentic_bench.transport.sse import assemble_stream
from agentic_bench.transport.url import auth_headers, parse_endpoint, redact_url

if TYPE_CHECKING:
    from agentic_bench.options.serving import RecordOptions

HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                        "te", "trailer", "trailers", "transfer-encoding", "upgrade", "host",
                        "content-length", "accept-encoding"})
SESSION_HEADER = "X-Session-ID"
MAX_BODY_BYTES = 256 * 1024 * 1024  # long agent contexts make large request bodies


@dataclass
class ProxyConfig:
    """The recording proxy's settings: upstream URL, output trace, listen address, timeouts and
    whether request bodies are dumped."""

    upstream: str
    out: Path
    host: str = "127.0.0.1"
    port: int = 8901
    idle_timeout_s: float = 60.0
    upstream_timeout_s: float = 600.0
    dump_requests: Path | None = None
    shutdown_grace_s: float = 30.0  # on SIGINT/SIGTERM, wait this long for in-flight requests

    @classmethod
    def from_options(cls, options: RecordOptions) -> ProxyConfig:
        """The proxy ``agentic-bench record`` (or ``python -m agentic_bench.proxy``) runs."""
        return cls(upstream=options.upstream, out=options.out, host=options.host,
                   port=0 if options.port is None else options.port,  # None: a free one
                   idle_timeout_s=options.idle_timeout,
                   upstream_timeout_s=options.upstream_timeout,
                   dump_requests=options.dump_requests)


def _forward_headers(headers: Any) -> dict[str, str]:
    out = {k: v for k, v in headers.items() if k.lower() not in HOP_BY_HOP}
    out["Accept-Encoding"] = "identity"  # else aiohttp asks for gzip and replies get compressed
    return out


def _fill_from_json(call: Call, data: bytes) -> bool:
    try:
        obj = json.loads(data)
        msg = obj["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    call.content = msg.get("content") or ""
    call.tool_calls = [{"id": c.get("id"), "name": c["function"]["name"],
                        "arguments": c["function"].get("arguments") or ""}
                       for c in msg.get("tool_calls") or []]
    usage = obj.get("usage") or {}
    call.input_tokens = usage.get("prompt_tokens")
    call.output_tokens = usage.get("completion_tokens")
    return True


def _fill_from_stream(call: Call, chunks: list[tuple[int, bytes]]) -> bool:
    result = assemble_stream(ChatResult(), chunks)
    if not result.ok:
        return False
    call.content = result.content
    call.tool_calls = result.tool_calls
    call.first_token_ns = result.t_first_token_ns
    call.input_tokens = result.input_tokens
    call.output_tokens = result.output_tokens
    return True


def _make_request(message: Any, payload: Any, protocol: Any, writer: Any,
                  task: asyncio.Task[None]) -> web.BaseRequest:
    return web.BaseRequest(message, payload, protocol, writer, task, asyncio.get_running_loop(),
                           client_max_size=MAX_BODY_BYTES)


class RecordingProxy:
    """The recording proxy's server: forwards each request upstream as it comes and records
    it into its session (``agentic-bench record``)."""
    def __init__(self, config: ProxyConfig) -> None:
        self.config = config
        # the upstream's own query (?api-version=...) goes on every forwarded request and its
        # user:password as Basic auth (in place of a client's Authorization); neither is
        # ever recorded or printed
        self.upstream = parse_endpoint(config.upstream)
        self.base = self.upstream.base
        self._auth = auth_headers(self.upstream, None)
        dump = open(config.dump_requests, "w", encoding="utf-8") if config.dump_requests else None
        self.recorder = Recorder(config.out, config.idle_timeout_s, redact_url(self.base), dump)
        self.client: aiohttp.ClientSession | None = None
        self.runner: web.ServerRunner | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.port = 0

    def _target(self, request: web.BaseRequest) -> str:
        path = request.path
        if path == "/v1" or path.startswith("/v1/"):
            path = path[3:]
        query = "&".join(q for q in (self.upstream.query, request.query_string) if q)
        return f"{self.base}{path}" + (f"?{query}" if query else "")

    async def start(self) -> int:
        connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=None, keepalive_timeout=60)
        self.client = aiohttp.ClientSession(
            connector=connector, auto_decompress=False, read_bufsize=1 << 16,
            timeout=aiohttp.ClientTimeout(total=None, sock_read=self.config.upstream_timeout_s))
        # the low-level server: no router or middlewares on the hot path
        server = web.Server(self.handle, request_factory=_make_request, access_log=None)
        self.runner = web.ServerRunner(server, handle_signals=False,
                                       shutdown_timeout=self.config.shutdown_grace_s)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.config.host, self.config.port, backlog=4096)
        await site.start()
        bound = site._server  # the bound port when 0 was asked for
        sockets = getattr(bound, "sockets", None)  # an asyncio.Server, typed AbstractServer
        assert sockets
        self.port = int(sockets[0].getsockname()[1])
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        return self.port

    async def _sweep(self) -> None:
        interval = max(0.05, min(1.0, self.config.idle_timeout_s / 4))
        while True:
            await asyncio.sleep(interval)
            try:
                self.recorder.flush_idle()
            except OSError as exc:  # e.g. disk full: keep proxying, say so
                print(f"record: cannot write {self.config.out}: {exc}", file=sys.stderr)

    async def stop(self) -> None:
        """Stop listening, let in-flight requests finish (up to the grace), write everything."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self.runner is not None:
            await self.runner.cleanup()
        if self.client is not None:
            await self.client.close()
        self.recorder.flush_all()
        self.recorder.close()

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        assert self.client is not None
        data = await request.read()
        start_ns = perf_counter_ns()
        upstream = asyncio.ensure_future(self.client.request(
            request.method, self._target(request), data=data or None,
            headers=self._headers(request)))
        recording = None
        if request.method == "POST" and request.path.endswith("/chat/completions"):
            await asyncio.sleep(0)  # let the forward start before parsing the body
            try:
                body = json.loads(data)
            except ValueError:
                body = None
            if isinstance(body, dict) and isinstance(body.get("messages"), list):
                recording = self.recorder.begin(body, request.headers.get(SESSION_HEADER),
                                                start_ns)
        ok = False
        try:
            try:
                up = await upstream
            except (aiohttp.ClientError, TimeoutError) as exc:
                return web.json_response(
                    {"error": {"message": f"record proxy: upstream failed: {exc}",
                               "type": "upstream_error"}}, status=502)
            ok, resp = await self._relay(request, up, recording[1] if recording else None)
            return resp
        finally:
            if recording is not None:
                self.recorder.finish(recording[0], recording[1], ok)

    def _headers(self, request: web.BaseRequest) -> dict[str, str]:
        headers = _forward_headers(request.headers)
        if self._auth:
            headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
            headers.update(self._auth)
        return headers

    async def _relay(self, request: web.BaseRequest, up: aiohttp.ClientResponse,
                     call: Call | None) -> tuple[bool, web.StreamResponse]:
        headers = {k: v for k, v in up.headers.items() if k.lower() not in HOP_BY_HOP}
        resp = web.StreamResponse(status=up.status, reason=up.reason, headers=headers)
        chunks: list[tuple[int, bytes]] = []
        try:
            await resp.prepare(request)
            append = chunks.append
            read = up.content.readany
            write = resp.write
            while True:
                piece = await read()
                if not piece:
                    break
                append((perf_counter_ns(), piece))
                await write(piece)
            await resp.write_eof()
        except (aiohttp.ClientError, ConnectionError, TimeoutError):
            up.close()  # a broken stream: do not reuse the upstream connection
            return False, resp
        up.release()
        if call is None or up.status >= 400:
            return False, resp
        call.end_ns = chunks[-1][0] if chunks else perf_counter_ns()
        if "text/event-stream" in up.headers.get("Content-Type", ""):
            return _fill_from_stream(call, chunks), resp
        return _fill_from_json(call, b"".join(d for _, d in chunks)), resp
