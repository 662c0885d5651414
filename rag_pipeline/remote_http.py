"""Minimal async JSON POST used by the remote embedder and reranker.

Callers that own a timed transport inject their own :data:`PostJson`; the default posts with
``aiohttp`` (imported lazily).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

PostJson = Callable[[str, dict[str, Any]], Awaitable[Any]]
T = TypeVar("T")


class RemoteServiceError(RuntimeError):
    """A remote embeddings/rerank endpoint failed or answered with something unusable."""


_SECRET = re.compile(r"^(api_?key|key|access_token|auth|authorization|auth_token|token|"
                     r"password|sig|signature)$|(_key|_token|_password)$|secret")


def shown_url(url: str) -> str:
    """``url`` safe to name in a record or an error: no ``user:password``, the values of
    credential-like query parameters (``api_key``, ``token``, ``sig``, ...) as ``***``."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query = urlencode([(k, "***" if _SECRET.search(k.lower().replace("-", "_")) else v)
                       for k, v in pairs], safe="*") if pairs else parts.query
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def split_credentials(url: str) -> tuple[str, dict[str, str]]:
    """(``url`` without its ``user:password``, the Basic auth header those make)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, {}
    userinfo, host = parts.netloc.rsplit("@", 1)
    user, _, password = userinfo.partition(":")
    token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
    return urlunsplit(parts._replace(netloc=host)), {"Authorization": f"Basic {token}"}


def auth_headers(url: str, api_key: str | None) -> tuple[str, dict[str, str]]:
    """The URL to post to and the headers that authenticate it: the API key as a bearer token,
    or the URL's ``user:password`` as Basic auth (both at once is refused)."""
    clean, basic = split_credentials(url)
    if basic and api_key:
        raise ValueError(f"{shown_url(url)}: the URL carries user:password and an API key is "
                         "set too; give one of them")
    return clean, basic or bearer_headers(api_key)


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
                    raise RemoteServiceError(f"POST {shown_url(url)} -> HTTP {resp.status}: "
                                             f"{body[:300]}")
        except aiohttp.ClientError as exc:
            detail = str(exc).replace(url, shown_url(url))
            raise RemoteServiceError(f"POST {shown_url(url)} failed: {detail}") from None
        try:
            return json.loads(body)
        except ValueError:
            raise RemoteServiceError(f"POST {shown_url(url)}: response is not JSON: "
                                     f"{body[:300]}") from None

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
