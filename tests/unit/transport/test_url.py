from __future__ import annotations

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.transport import normalize_base_url, redact_url


@pytest.mark.parametrize(("given", "want"), [
    ("http://h:8000", "http://h:8000/v1"),
    ("http://h:8000/", "http://h:8000/v1"),
    ("http://h:8000/v1", "http://h:8000/v1"),
    ("https://api.example.com/openai/v1/", "https://api.example.com/openai/v1"),
    ("http://h/prefix", "http://h/prefix/v1"),
])
def test_normalize(given: str, want: str) -> None:
    assert normalize_base_url(given) == want


@pytest.mark.parametrize("bad", ["localhost:8000", "ftp://h/v1", "embedded-ish", ""])
def test_bad_urls(bad: str) -> None:
    with pytest.raises(ConfigError, match="expected a URL"):
        normalize_base_url(bad)


def test_redact() -> None:
    assert redact_url("http://user:secret@h:1/v1") == "http://***@h:1/v1"
    assert redact_url("http://h:1/v1") == "http://h:1/v1"
