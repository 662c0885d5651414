"""#30 item 2: the endpoint URL's query string reaches every request (Azure OpenAI needs
``?api-version=``), its ``user:password`` goes as Basic auth, ``--api-key-header`` sends the
key as a bare header value — with both transports — and no output shows a credential."""

from __future__ import annotations

import base64

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.transport.aiohttp_client import AiohttpChatClient
from agentic_bench.transport.raw_client import RawChatClient
from agentic_bench.transport.url import auth_headers, parse_endpoint, redact_url

URL = "https://user:p%40ss@gw.example.com:8443/openai/deployments/x?api-version=2024-10-21"


def test_the_url_is_split_into_base_query_and_credentials() -> None:
    ep = parse_endpoint(URL)
    assert ep.base == "https://gw.example.com:8443/openai/deployments/x/v1"
    assert ep.query == "api-version=2024-10-21" and ep.userinfo == ("user", "p@ss")
    assert ep.path("/chat/completions") == \
        "/openai/deployments/x/v1/chat/completions?api-version=2024-10-21"
    assert redact_url("http://h:1/v1?api-version=1&api_key=s3cret") == \
        "http://h:1/v1?api-version=1&api_key=***"
    assert "p%40ss" not in redact_url(URL) and "user" not in redact_url(URL)


def test_the_raw_client_sends_query_and_basic_auth() -> None:
    client = RawChatClient(URL)
    request = client._request("POST", "/chat/completions", b"{}").decode("latin-1")
    first, *headers = request.split("\r\n")
    assert first == ("POST /openai/deployments/x/v1/chat/completions?api-version=2024-10-21 "
                     "HTTP/1.1")
    token = base64.b64encode(b"user:p@ss").decode()
    assert f"Authorization: Basic {token}" in headers
    assert "Host: gw.example.com:8443" in headers  # never the credentials
    models = client._request("GET", "/models").decode("latin-1").split("\r\n")[0]
    assert models == "GET /openai/deployments/x/v1/models?api-version=2024-10-21 HTTP/1.1"


def test_the_aiohttp_client_sends_the_same() -> None:
    client = AiohttpChatClient(URL)
    assert client._url == ("https://gw.example.com:8443/openai/deployments/x/v1/"
                           "chat/completions?api-version=2024-10-21")
    assert client._headers["Authorization"].startswith("Basic ")


def test_api_key_header() -> None:
    plain = parse_endpoint("http://h:1/v1")
    assert auth_headers(plain, "k1") == [("Authorization", "Bearer k1")]
    assert auth_headers(plain, "k1", "api-key") == [("api-key", "k1")]
    raw = RawChatClient("http://h:1/v1", "k1", api_key_header="api-key")
    lines = raw._request("POST", "/chat/completions", b"{}").decode("latin-1").split("\r\n")
    assert "api-key: k1" in lines and not any(x.startswith("Authorization") for x in lines)
    with_user = parse_endpoint("http://u:p@h:1/v1")
    assert [h for h, _ in auth_headers(with_user, "k1", "api-key")] == ["api-key",
                                                                       "Authorization"]
    with pytest.raises(ConfigError, match="Basic auth"):
        auth_headers(with_user, "k1")
