"""``--tokenizer server``: count tokens with the endpoint's own tokenize route.

Tried in order, once, on the first call: ``POST {root}/tokenize`` with llama.cpp's body
(``content``, ``add_special: false``) and vLLM's/SGLang's (``prompt``, ``add_special_tokens:
false``), then llama-cpp-python's ``POST {root}/extras/tokenize`` (``input``). Whatever a route
adds around any text (a BOS token) is measured once on the empty text and subtracted. Used
before a run to choose and check the synthesis vocabulary (a few thousand short texts, one
keep-alive connection), never on the measured path.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from agentic_bench.errors import ConfigError


class ServerTokenizer:
    def __init__(self, base_url: str, api_key: str | None = None, timeout_s: float = 30.0
                 ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"--tokenizer server: {base_url!r} is not an http(s) URL")
        self.name = "server"
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        base = parts.path.rstrip("/")
        root = base[:-3] if base.endswith("/v1") else base
        self._routes: list[tuple[str, Callable[[str], dict[str, Any]]]] = [
            (f"{root}/tokenize", lambda t: {"content": t, "add_special": False}),
            (f"{root}/tokenize", lambda t: {"prompt": t, "add_special_tokens": False}),
            (f"{root}/extras/tokenize", lambda t: {"input": t}),
        ]
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout = timeout_s
        self._conn: http.client.HTTPConnection | None = None
        self._route: tuple[str, Callable[[str], dict[str, Any]]] | None = None
        self._offset = 0

    def _post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        for attempt in (0, 1):
            if self._conn is None:
                cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
                self._conn = cls(self._host, self._port, timeout=self._timeout)
            try:
                self._conn.request("POST", path, json.dumps(body), self._headers)
                resp = self._conn.getresponse()
                data = resp.read()
            except (OSError, http.client.HTTPException) as exc:
                self._conn.close()
                self._conn = None
                if attempt:
                    raise ConfigError(f"--tokenizer server: {path}: {exc}") from None
                continue
            try:
                return resp.status, json.loads(data or b"null")
            except json.JSONDecodeError:
                return resp.status, None
        raise AssertionError("unreachable")

    @staticmethod
    def _tokens(payload: Any) -> list[Any] | None:
        tokens = payload.get("tokens") if isinstance(payload, dict) else None
        return tokens if isinstance(tokens, list) else None

    def _choose(self) -> None:
        tried = []
        for path, make in self._routes:
            status, payload = self._post(path, make(""))
            tokens = self._tokens(payload)
            if status == 200 and tokens is not None:
                self._route, self._offset = (path, make), len(tokens)
                return
            tried.append(f"{path} (HTTP {status})")
        raise ConfigError("--tokenizer server: the endpoint offers no tokenize route (tried "
                          f"{', '.join(tried)}); pass --tokenizer DIR with the model's "
                          "tokenizer.json")

    def encode(self, text: str) -> list[int]:
        """The text's token ids (what the route adds around any text removed)."""
        if self._route is None:
            self._choose()
        assert self._route is not None
        path, make = self._route
        status, payload = self._post(path, make(text))
        tokens = self._tokens(payload)
        if status != 200 or tokens is None:
            raise ConfigError(f"--tokenizer server: {path} answered HTTP {status}")
        ids = [t if isinstance(t, int) else int(t.get("id", 0)) if isinstance(t, dict) else 0
               for t in tokens]
        return ids[self._offset:]

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def count_many(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


__all__ = ["ServerTokenizer"]
