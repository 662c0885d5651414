"""W3C Trace Context on every request of a session, with ids the run's OTel export reproduces.

``--traceparent`` (and ``--otel-endpoint``, which implies it) sends ``traceparent:
00-<trace-id>-<parent-id>-01`` (W3C Trace Context Level 1, https://www.w3.org/TR/trace-context/
§3.2: version ``00``, 32 lowercase hex digits of trace id, 16 of parent id, flags ``01`` =
sampled) on every chat request of a session, so a server that traces (vLLM, SGLang, Dynamo, a
gateway) files its own spans under ours. The trace id is the session's trace and the parent id
is the session's root span (:data:`SESSION`): one trace per issued session.

The ids are not random: they are hashed (BLAKE2b) from the run's *trace key* — a random token
drawn once per run and kept in the ``run`` record (``trace_key``) — and the session id
(``<trace session>#<index>``), plus a path for each span below the session. The spans that
:mod:`agentic_bench.export.otel_spans` builds from the records therefore carry exactly the ids
the live headers named, whether they are exported as the run ends or from the folder later.

Off the hot path: :func:`with_traceparent` adds the header to a session's
:class:`~.request.RequestContext` once per session (the context renders its header lines once);
the transport only copies them.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import replace

from agentic_bench.transport.request import RequestContext

HEADER = "traceparent"
SESSION = "session"  # the path of a session's root span
_FORMAT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


def new_trace_key() -> str:
    """A run's trace key: 16 random hex digits (kept in the run record as ``trace_key``)."""
    return secrets.token_hex(8)


def _digest(size: int, *parts: str) -> int:
    data = "".join(f"{len(p)}:{p}" for p in parts).encode("utf-8", "surrogatepass")
    value = int.from_bytes(hashlib.blake2b(data, digest_size=size).digest(), "big")
    return value or 1  # all zeroes is invalid in W3C Trace Context (and OTLP)


def trace_id(key: str, session_id: str) -> int:
    """The 128-bit trace id of session ``session_id`` in the run of trace key ``key``."""
    return _digest(16, key, session_id)


def span_id(key: str, session_id: str, path: str = SESSION) -> int:
    """The 64-bit id of the span at ``path`` in the session's trace (:data:`SESSION`: its
    root)."""
    return _digest(8, key, session_id, path)


def header_value(trace: int, span: int, sampled: bool = True) -> str:
    """``00-<trace>-<span>-<flags>`` as W3C Trace Context §3.2 writes it."""
    return f"00-{trace:032x}-{span:016x}-{'01' if sampled else '00'}"


def session_traceparent(key: str, session_id: str) -> str:
    """The header value every request of the session carries: its trace, its root span."""
    return header_value(trace_id(key, session_id), span_id(key, session_id))


def parse(value: str) -> tuple[int, int, int] | None:
    """``(trace id, parent id, flags)`` of a version-00 header value; None when malformed or
    when either id is all zeroes (§3.2.2.3, §3.2.2.4)."""
    match = _FORMAT.match(value.strip())
    if match is None:
        return None
    trace, parent, flags = (int(g, 16) for g in match.groups())
    return None if trace == 0 or parent == 0 else (trace, parent, flags)


def with_traceparent(context: RequestContext, key: str, session_id: str) -> RequestContext:
    """``context`` with the session's ``traceparent`` (replacing any it had), its other headers
    and hooks kept."""
    kept = tuple(h for h in context.headers if h[0].lower() != HEADER)
    return replace(context, headers=(*kept, (HEADER, session_traceparent(key, session_id))))


__all__ = ["HEADER", "SESSION", "header_value", "new_trace_key", "parse", "session_traceparent",
           "span_id", "trace_id", "with_traceparent"]
