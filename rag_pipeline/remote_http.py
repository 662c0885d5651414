"""Minimal async JSON POST used by the remote embedder and reranker.

Callers that own a timed transport inject their own :data:`PostJson`; the default posts with
``aiohttp`` (imported lazily).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

PostJson = Callable[[str, dict[str, Any]], Awaitable[Any]]
T = TypeVar("T")


class RemoteServiceError(RuntimeError):
    """A remote embeddings/rerank endpoint failed or answered with something unusable."""


class AiohttpPoster:
    """``await poster(url, payload)`` → decoded JSON; one ``aiohttp`` session per event loop."""

    def __init__(self, headers: dict[str, str] | None = None, timeout_s: float = 60.0) -> None:
        self.headers = dict(headers or {})
        self.timeout_s = timeout_s
        self._session: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def _get_session(self) -> Any:
        import aiohttp

        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop or self._session.closed:
            self._session = aiohttp.ClientSession(
                headers=self.headers, timeout=aiohttp.ClientTimeout(total=self.timeout_s)
            )
            self._loop = loop
        return self._session

    async def __call__(self, url: str, payload: dict[str, Any]) -> Any:
        import aiohttp

        session = await self._get_session()
        try:
            async with session.post(url, json=payload) as resp:
                body = await resp.text()
                if resp.status >= 400:
                    raise RemoteServiceError(f"POST {url} -> HTTP {resp.status}: {body[:300]}")
        except aiohttp.ClientError as exc:
            raise RemoteServiceError(f"POST {url} failed: {exc}") from exc
        try:
            return json.loads(body)
        except ValueError as exc:
            raise RemoteServiceError(f"POST {url}: response is not JSON: {body[:300]}") from exc

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None


def bearer_headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def run_sync(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine from synchronous code; refuses inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    raise RuntimeError("called a synchronous method inside an event loop; use the async variant")
