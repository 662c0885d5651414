"""Endpoint URL handling (like the openai SDK's ``base_url``)."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

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


@dataclass(frozen=True)
class EndpointURL:
    """An endpoint as every request reaches it: the base (``scheme://host:port/…/v1``, no
    credentials), the query string every request carries (Azure OpenAI's ``api-version``,
    a gateway's key), and the ``user:password`` the URL held (sent as Basic auth)."""

    base: str
    query: str = ""
    userinfo: tuple[str, str] | None = None

    def url(self, route: str) -> str:
        """``route`` (``/chat/completions``) under the base, with the query."""
        return f"{self.base}{route}" + (f"?{self.query}" if self.query else "")

    def path(self, route: str) -> str:
        """The request target (path and query) of ``route``."""
        parts = urlsplit(self.base)
        return parts.path.rstrip("/") + route + (f"?{self.query}" if self.query else "")


def parse_endpoint(url: str) -> EndpointURL:
    """``http://user:pw@host:port/v1?api-version=x`` → base ``http://host:port/v1``, the
    query kept for every request, the credentials apart (never in a logged URL)."""
    base = normalize_base_url(url)
    parts = urlsplit(base)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    userinfo = None
    if "@" in parts.netloc:
        user, _, password = parts.netloc.rsplit("@", 1)[0].partition(":")
        userinfo = (unquote(user), unquote(password))
    return EndpointURL(urlunsplit(parts._replace(netloc=netloc)), urlsplit(url).query,
                       userinfo)


def auth_headers(endpoint: EndpointURL, api_key: str | None,
                 api_key_header: str | None = None) -> list[tuple[str, str]]:
    """The headers that authenticate every request: the API key as ``Authorization: Bearer``
    (or as the bare value of ``api_key_header``, e.g. Azure's ``api-key``), the URL's
    ``user:password`` as ``Authorization: Basic``; both wanting ``Authorization`` is refused."""
    out: list[tuple[str, str]] = []
    header = api_key_header or "Authorization"
    if api_key:
        value = f"Bearer {api_key}" if header.lower() == "authorization" else api_key
        out.append((header, value))
    if endpoint.userinfo is not None:
        if any(h.lower() == "authorization" for h, _ in out):
            raise ConfigError("the endpoint URL carries user:password (sent as Basic auth) "
                              "and an API key is set for the same Authorization header: unset "
                              "the key's variable (--api-key-env), or send the key in another "
                              "header with --api-key-header NAME")
        token = base64.b64encode(":".join(endpoint.userinfo).encode()).decode()
        out.append(("Authorization", f"Basic {token}"))
    return out


# query parameters whose values are credentials (compared lower-case, "-" read as "_"); a
# superset of the reference's rule (mlcommons/endpoints config/schema.py 1470-1499)
# (an OAuth ``code``, AWS SigV4's ``X-Amz-Signature`` and ``X-Amz-Credential``, ``pwd``)
SECRET_QUERY_KEYS = re.compile(
    r"^(api_?key|key|access_token|auth|authorization|auth_token|token|password|passwd|pwd|pass"
    r"|sig|signature|code|credential|session)$"
    r"|(_key|_token|_password|_signature|_credential)$|secret")


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
