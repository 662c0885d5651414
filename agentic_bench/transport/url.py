"""Endpoint URL handling (like the openai SDK's ``base_url``)."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

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


# query parameters whose values are credentials (compared lower-case, "-" read as "_"); a
# superset of the reference's rule (mlcommons/endpoints config/schema.py 1470-1499)
SECRET_QUERY_KEYS = re.compile(
    r"^(api_?key|key|access_token|auth|authorization|auth_token|token|password|sig|signature)$"
    r"|(_key|_token|_password)$|secret")


def redact_url(url: str, marker: str = "***") -> str:
    """A URL safe to log or store: user:password and the values of credential-like query
    parameters (``api_key``, ``token``, ``sig``, ...) replaced by ``marker``."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{marker}@{netloc.rsplit('@', 1)[1]}"
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    secret = [SECRET_QUERY_KEYS.search(k.strip().lower().replace("-", "_")) is not None
              for k, _ in pairs]
    query = (urlencode([(k, marker if s else v) for (k, v), s in zip(pairs, secret, strict=True)],
                       safe="*") if any(secret) else parts.query)
    return urlunsplit(parts._replace(netloc=netloc, query=query))
