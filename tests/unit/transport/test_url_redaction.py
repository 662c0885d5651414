"""One redaction for every URL we write: userinfo and credential-like query values."""

from __future__ import annotations

import pytest

from agentic_bench.transport.url import redact_url


@pytest.mark.parametrize(("url", "safe"), [
    ("http://u:pw@h:8/v1", "http://***@h:8/v1"),
    ("http://h:8/v1?api_key=S&x=1", "http://h:8/v1?api_key=***&x=1"),
    ("http://h/v1?token=S&my-token=S&sig=S&client_secret=S&keep=1",
     "http://h/v1?token=***&my-token=***&sig=***&client_secret=***&keep=1"),
    ("http://h:8/v1?a=1", "http://h:8/v1?a=1"),
    # #42: an OAuth code, AWS SigV4 query auth, a password as pwd
    ("http://h/v1?code=S&X-Amz-Signature=S&X-Amz-Credential=S&passwd=S&X-Amz-Date=1",
     "http://h/v1?code=***&X-Amz-Signature=***&X-Amz-Credential=***&passwd=***&X-Amz-Date=1"),
    ("http://h:8/v1", "http://h:8/v1"),
])
def test_credentials_never_survive(url: str, safe: str) -> None:
    assert redact_url(url) == safe
    assert "S&" not in redact_url(url) and "pw" not in redact_url(url)


def test_the_reference_marker_is_url_encoded_as_there() -> None:
    # mlcommons/endpoints config/schema.py 1470-1499: urlencode of "<redacted>"
    assert redact_url("https://u:p@api.example/v1?api_key=S&x=1", marker="<redacted>") == \
        "https://<redacted>@api.example/v1?api_key=%3Credacted%3E&x=1"


def test_pwd_is_a_password() -> None:
    assert redact_url("http://h/v1?user=u&pwd=hunter2") == "http://h/v1?user=u&pwd=***"
