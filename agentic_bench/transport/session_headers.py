"""Session affinity: each session's id in named HTTP headers on every request of that session.

KV-cache-aware routers (llm-d, Dynamo, vLLM's router, our recording proxy) keep a
conversation on one replica when its requests carry a stable id; ``X-Session-ID`` is the usual
name. ``--session-header NAME`` (repeatable) sends ``NAME: <session id>`` — the run's session id
(``<trace session>#<index>``, unique per issued session) — on every request the session makes,
tool loops, RAG stages and retries included. ``--session-user`` puts the same id into each
request body's OpenAI ``user`` field, for routers that key on it.

How: :func:`render` makes a session's :class:`~.request.RequestContext` once per session (not
per request); the session's ticket carries it (``SessionTicket.request_context``,
:func:`agentic_bench.workload.session_executor`) and every chat call of the session passes it
explicitly to the transport, which adds the headers to the request. Values are percent-encoded
outside printable ASCII, so an id from a trace can never inject a header line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from urllib.parse import quote

from agentic_bench.errors import ConfigError
from agentic_bench.transport.request import NO_CONTEXT, RequestContext

_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # RFC 9110 field-name
RESERVED = frozenset({"host", "content-length", "content-type", "transfer-encoding",
                      "connection", "accept", "authorization", "user-agent"})
_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "%")


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
           parent_names: Sequence[str] = (), parent_id: str | None = None,
           base: RequestContext = NO_CONTEXT) -> RequestContext:
    """The context of one session's requests: ``base`` (its chunk hook kept) with the session
    id in the headers ``names`` and, with ``user_field`` (``--session-user``), as the body's
    OpenAI ``user``; a subagent's also name its parent session in ``parent_names``
    (``--parent-session-header``, e.g. X-Dynamo-Parent-Session-ID). Headers of ``base`` that
    none of these names (a session's ``traceparent``) are kept."""
    value = quote(session_id, safe=_SAFE)
    pairs = tuple((name, value) for name in names)
    if parent_id is not None:
        parent = quote(parent_id, safe=_SAFE)
        pairs += tuple((name, parent) for name in parent_names)
    named = {name.lower() for name, _ in pairs}
    kept = tuple(h for h in base.headers if h[0].lower() not in named)
    return replace(base, headers=(*kept, *pairs), user=session_id if user_field else None)


__all__ = ["RESERVED", "check_names", "render"]
