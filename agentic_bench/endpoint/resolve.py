"""Turn ``--endpoint`` into a ready transport: a URL, ``embedded`` (= ``llama-server``) or
``inproc``.

``embedded`` starts the packaged model on llama.cpp's ``llama-server`` — with our tool-call
routing in front (:mod:`.routing_proxy`) when the workload needs tool calls — on a free loopback
port, restarts it if it crashes, and stops it when the block exits, whatever happens; a missing
``llama-server`` binary is an :class:`EndpointError` that says how to build it. ``inproc`` calls
the same model through ``llama_cpp.Llama`` in this process (no HTTP, no tool calls). A URL is
checked before the run: unreachable, rejected key and unknown model are usage errors (exit 2)
and nothing is sent. ``llama-cpp-python`` (its server with our chat-format shim) was removed on
2026-12-06: ``options.common.REMOVED_ENDPOINTS`` says what to use instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp

from agentic_bench.errors import EndpointError
from agentic_bench.options.common import REMOVED_ENDPOINTS

if TYPE_CHECKING:
    from agentic_bench.endpoint.llama_server import LlamaServer
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.choose import HttpChatClient, make_chat_client
from agentic_bench.transport.url import redact_url


@dataclass
class Endpoint:
    transport: ChatTransport
    model: str
    url: str  # as shown and stored: credentials redacted
    kind: str
    info: dict[str, Any] = field(default_factory=dict)
    target: str = ""  # the URL itself, for more clients of the same server (never stored)


async def preflight(client: HttpChatClient, model: str | None) -> str:
    """Check the endpoint answers and serves ``model``; return the model to use."""
    try:
        status, body = await client.list_models()
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        raise EndpointError(f"cannot reach {redact_url(client.base_url)}: {exc}") from None
    if status in (401, 403):
        if getattr(client, "has_credentials", True):
            raise EndpointError(f"{redact_url(client.base_url)} rejected the credentials "
                                f"(HTTP {status})")
        raise EndpointError(f"{redact_url(client.base_url)} wants credentials (HTTP {status}) "
                            "and none was sent: put the API key in $OPENAI_API_KEY (or name "
                            "its variable with --api-key-env VAR)")
    ids: list[str] = []
    if status == 200 and isinstance(body, dict):
        ids = [str(m["id"]) for m in body.get("data", []) if isinstance(m, dict) and m.get("id")]
    if model is None:
        if not ids:
            raise EndpointError(
                f"{redact_url(client.base_url)} lists no models (HTTP {status}); pass --model")
        return ids[0]
    if ids and model not in ids:
        raise EndpointError(f"model {model!r} is not served by {redact_url(client.base_url)} "
                            f"(available: {', '.join(ids)})")
    return model


def refuse_removed_endpoint(spec: str) -> None:
    """A removed ``--endpoint`` value is an :class:`EndpointError` naming what replaces it."""
    if spec in REMOVED_ENDPOINTS:
        raise EndpointError(f"--endpoint {REMOVED_ENDPOINTS[spec]}")


def _embedded_server(spec: str, tool_routing: bool, server_log: Path | None,
                     slots: int) -> LlamaServer | None:
    """The server ``spec`` starts (None for a URL), its start announced on stderr."""
    refuse_removed_endpoint(spec)
    if spec not in ("embedded", "llama-server"):
        return None
    from agentic_bench.endpoint.llama_server import HINT, LlamaServer, find_binary

    if find_binary() is None:
        raise EndpointError(f"--endpoint {spec} needs llama.cpp's llama-server, which is not "
                            f"built: {HINT}")
    if spec == "embedded":
        why = ("the model is to call tools: our routing in front (a message or a named call, "
               "grammar-chosen)" if tool_routing else "a slot per stream, /metrics")
        print(f"endpoint: embedded = llama-server ({why})", file=sys.stderr, flush=True)
    server = LlamaServer(log_path=server_log, append_log=True, slots=slots,
                         tool_routing=tool_routing)
    slots_text = f"{server.slots} slot{'s' if server.slots != 1 else ''}"
    routing = ", our tool-call routing in front" if tool_routing else ""
    print(f"endpoint: starting llama.cpp's llama-server (packaged SmolLM2-135M, "
          f"{slots_text} x {server.n_ctx:,} tokens, {server.n_threads} threads{routing}); pass "
          "--endpoint URL to measure your own server", file=sys.stderr, flush=True)
    return server


@contextlib.asynccontextmanager
async def open_endpoint(
    spec: str, model: str | None, api_key: str | None, max_connections: int = 0,
    request_timeout_s: float = 300.0, warm_connections: int = 1,
    server_log: Path | None = None, api_key_header: str | None = None, slots: int = 1,
    tool_routing: bool = False, transport_kind: str | None = None,
) -> AsyncIterator[Endpoint]:
    """``server_log``: where the embedded server writes its log (appended; default: nowhere
    once the run ends). ``slots``: ``llama-server``'s parallel slots (the run's streams).
    ``tool_routing``: the workload needs the model to make tool calls (``llama-server`` then
    gets our routing in front; ``inproc`` is refused: it makes none).
    ``transport_kind``: the run's ``--transport`` (None: $AGENTIC_BENCH_TRANSPORT, then raw)."""
    if spec == "inproc":
        from agentic_bench.endpoint.inproc import NO_TOOL_CALLS, InprocChatClient

        if tool_routing:
            raise EndpointError(f"--endpoint inproc: {NO_TOOL_CALLS}")

        inproc = await asyncio.to_thread(InprocChatClient)
        try:
            yield Endpoint(inproc, "smollm2", "inproc", "inproc", inproc.info(), target="inproc")
        finally:
            await inproc.aclose()
        return
    server = _embedded_server(spec, tool_routing, server_log, slots)
    url = spec
    if server is not None:
        await asyncio.to_thread(server.start)
        server.supervise()  # a crashed server comes back on the same port; the run goes on
        url = server.base_url
        print(f"endpoint: embedded server ready at {url} in {server.start_seconds or 0:.1f} s"
              + (f" (log: {server_log})" if server_log else ""), file=sys.stderr, flush=True)
    try:
        client = make_chat_client(url, api_key if server is None else None, kind=transport_kind,
                                  max_connections=max_connections, timeout_s=request_timeout_s,
                                  api_key_header=api_key_header)
        transport: ChatTransport = client
        if server is not None:  # a request meeting a crashed server waits for its restart
            from agentic_bench.endpoint.restart_wait import RestartWaitingClient

            transport = RestartWaitingClient(client, server, server.start_timeout_s + 60)
        try:
            chosen = await preflight(client, model)
            await client.warm_up(warm_connections)
            info = server.info() if server is not None else {}
            kind = "url" if server is None else spec
            yield Endpoint(transport, chosen, redact_url(url), kind, info, target=url)
        finally:
            await client.aclose()
    finally:
        if server is not None:
            await asyncio.to_thread(server.stop)
