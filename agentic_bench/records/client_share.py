"""The client's share of a request's TTFT, against a server that timestamps
(``agentic-bench sim --timestamps``: its ``server_timing_ns``).

From the request's due time to its first token the time is the client's or the server's:

- ``client_send_ms`` = the server's read of the body's last byte − the due time: the lateness
  of the send (``schedule_lag_ms``: prompt writing, encoding, a busy event loop) and the body's
  way through both sockets (``body_transfer_ms`` = that read − the client's write);
- ``server_ttft_ms`` = the server's first token write − its read of the body's last byte;
- ``client_receive_ms`` = the client's first token stamp − the server's first token write: the
  reply's way back and the client's read.

``client_share_ms`` = send + receive, so TTFT from the due time = ``client_share_ms`` +
``server_ttft_ms`` exactly. The server's readings are ``perf_counter_ns`` (CLOCK_MONOTONIC on
Linux), the client's clock too when both run on one host; across hosts they mean nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from agentic_bench.units import NS_PER_MS


def client_share_fields(scheduled_ns: int, sent_ns: int, first_token_ns: int | None,
                        server: Mapping[str, int] | None) -> dict[str, float]:
    """The record's client-share fields (the module's text), ``{}`` when the server sent no
    body or first-token reading or no token came."""
    if not server or first_token_ns is None:
        return {}
    body_last = server.get("body_last")
    server_first = server.get("first_token")
    if not body_last or not server_first:
        return {}
    send = body_last - scheduled_ns
    receive = first_token_ns - server_first
    return {"client_send_ms": send / NS_PER_MS,
            "body_transfer_ms": (body_last - sent_ns) / NS_PER_MS,
            "server_ttft_ms": (server_first - body_last) / NS_PER_MS,
            "client_receive_ms": receive / NS_PER_MS,
            "client_share_ms": (send + receive) / NS_PER_MS}


__all__ = ["client_share_fields"]
