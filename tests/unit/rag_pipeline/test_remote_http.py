"""The default aiohttp transport against a loopback server (no external network)."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest
from aiohttp import web

from rag_pipeline import RemoteEmbedder, RemoteReranker, RemoteServiceError


async def _serve(handler_map: dict[str, Any]) -> tuple[web.AppRunner, str]:
    app = web.Application()
    for path, handler in handler_map.items():
        app.router.add_post(path, handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


def test_aiohttp_transport_round_trip() -> None:
    seen_auth: list[str | None] = []

    async def embeddings(request: web.Request) -> web.Response:
        seen_auth.append(request.headers.get("Authorization"))
        body = await request.json()
        data = [{"index": i, "embedding": [3.0, 4.0]} for i, _ in enumerate(body["input"])]
        return web.json_response({"data": data})

    async def rerank(request: web.Request) -> web.Response:
        body = await request.json()
        results = [{"index": i, "relevance_score": float(i)} for i in range(len(body["documents"]))]
        return web.json_response({"results": results})

    async def broken(request: web.Request) -> web.Response:
        return web.Response(status=503, text="overloaded")

    async def scenario() -> None:
        runner, base = await _serve(
            {"/v1/embeddings": embeddings, "/v1/rerank": rerank, "/bad": broken}
        )
        try:
            embedder = RemoteEmbedder("m", f"{base}/v1", api_key="secret")
            vecs = await embedder.aembed_queries(["a", "b"])
            assert np.allclose(vecs, [[0.6, 0.8], [0.6, 0.8]])
            assert seen_auth == ["Bearer secret"]
            reranker = RemoteReranker(f"{base}/v1/rerank")
            assert await reranker.arerank("q", ["x", "y", "z"], 2) == [(2, 2.0), (1, 1.0)]
            bad = RemoteReranker(f"{base}/bad")
            with pytest.raises(RemoteServiceError, match="503"):
                await bad.arerank("q", ["x"], 1)
            for client in (embedder, reranker, bad):
                await client.aclose()
        finally:
            await runner.cleanup()

    asyncio.run(scenario())
