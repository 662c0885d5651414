"""Session affinity: each session's id in named HTTP headers on every request of that session.

KV-cache-aware routers (llm-d, Dynamo, vLLM's router, our recording proxy) keep a
conversation on one replica when its requests carry a stable id; ``X-Session-ID`` is the usual
name. ``--session-header NAME`` (repeatable) sends ``NAME: <session id>`` — the run's session id
(``<trace session>#<index>``, unique per issued session) — on every request the session makes,
tool loops, RAG stages and retries included. ``--session-user`` puts the same id into each
request body's OpenAI ``user`` field, for routers that key on it.

How: :func:`with_session_headers` wraps a workload's executor so each session runs with
:data:`SESSION_HEADERS` set to its rendered headers (a context variable: every task the session
starts inherits it); the transports add them to each request. Rendering happens once per
session, not per request. Values are percent-encoded outside printable ASCII, so an id from a
trace can never inject a header line.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote

from agentic_bench.errors import ConfigError

_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # RFC 9110 field-name
RESERVED = frozenset({"host", "content-length", "content-type", "transfer-encoding",
                      "connection", "accept", "authorization", "user-agent"})
_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "%")


@dataclass(frozen=True, slots=True)
class SessionHeaders:
    pairs: tuple[tuple[str, str], ...]
    raw: str  # the same, as HTTP/1.1 header lines
    user: str | None = None  # --session-user: the session id as the body's OpenAI ``user``


SESSION_HEADERS: ContextVar[SessionHeaders | None] = ContextVar("session_headers", default=None)


def check_names(names: Sequence[str]) -> tuple[str, ...]:
    """The header names, or a :class:`ConfigError` naming the bad one (before any request)."""
    out: list[str] = []
    for name in names:
        if not _TOKEN.match(name or ""):
            raise ConfigError(f"--session-header {name!r}: not an HTTP header name "
                              "(letters, digits and !#$%&'*+-.^_`|~ only)")
        if name.lower() in RESERVED:
            raise ConfigError(f"--session-header {name}: the harness sets this header itself")
        if name.lower() not in {n.lower() for n in out}:
            out.append(name)
    return tuple(out)


def render(names: Sequence[str], session_id: str, user_field: bool = False,
           parent_names: Sequence[str] = (), parent_id: str | None = None) -> SessionHeaders:
    """The headers of one session's requests; a subagent's also name its parent session in
    ``parent_names`` (``--parent-session-header``, e.g. X-Dynamo-Parent-Session-ID)."""
    value = quote(session_id, safe=_SAFE)
    pairs = tuple((name, value) for name in names)
    if parent_id is not None:
        parent = quote(parent_id, safe=_SAFE)
        pairs += tuple((name, parent) for name in parent_names)
    return SessionHeaders(pairs, "".join(f"{n}: {v}\r\n" for n, v in pairs),
                          session_id if user_field else None)


def with_user(body: dict[str, Any], affinity: SessionHeaders | None) -> dict[str, Any]:
    """``body`` with the session id as its ``user`` field when ``--session-user`` asked."""
    if affinity is None or affinity.user is None:
        return body
    return {**body, "user": affinity.user}


T = TypeVar("T")


def with_session_headers(execute: Callable[[Any], Awaitable[T]], names: Sequence[str],
                         user_field: bool = False) -> Callable[[Any], Awaitable[T]]:
    """``execute`` with each session's headers (and ``user`` field) set while it runs
    (itself when neither is asked)."""
    if not names and not user_field:
        return execute

    async def run(ticket: Any) -> T:
        token = SESSION_HEADERS.set(render(names, ticket.session_id, user_field))
        try:
            return await execute(ticket)
        finally:
            SESSION_HEADERS.reset(token)

    return run
