"""Endpoint URL handling (like the openai SDK's ``base_url``)."""

from __future__ import annotations

from urllib.parse import urlsplit

from agentic_bench.errors import ConfigError


def normalize_base_url(url: str) -> str:
    """``http://host:port`` → ``http://host:port/v1``; keeps an explicit ``/v1`` path."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"--endpoint {url!r}: expected a URL like http://host:port/v1")
    path = parts.path.rstrip("/")
    if not path.endswith("/v1"):
        path = f"{path}/v1"
    return f"{parts.scheme}://{parts.netloc}{path}"


def redact_url(url: str) -> str:
    """Drop user:password from a URL before it is logged or stored."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return parts._replace(netloc=f"***@{host}{port}").geturl()
    return url
