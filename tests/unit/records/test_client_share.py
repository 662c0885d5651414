"""#46 item 3: the client's share of TTFT from a timestamping server's readings — due → the
server's read of the body's last byte, plus its first token's write → the client's stamp."""

from __future__ import annotations

import pytest

from agentic_bench.records.client_share import client_share_fields

MS = 1_000_000


def test_the_shares_add_up_to_the_ttft_from_the_due_instant() -> None:
    server = {"body_first": 12 * MS, "body_last": 15 * MS, "head": 15 * MS,
              "first_token": 40 * MS}
    got = client_share_fields(10 * MS, 11 * MS, 43 * MS, server)
    assert got == {"client_send_ms": 5.0, "body_transfer_ms": 4.0, "server_ttft_ms": 25.0,
                   "client_receive_ms": 3.0, "client_share_ms": 8.0}
    assert got["client_share_ms"] + got["server_ttft_ms"] == (43 - 10)


@pytest.mark.parametrize(("first_token", "server"), [
    (None, {"body_last": 1, "first_token": 2}),  # no token came
    (5, None),  # a server that sent no readings
    (5, {"body_first": 1, "head": 2}),  # readings without the two the shares need
])
def test_without_the_readings_there_is_no_share(first_token: int | None,
                                                 server: dict[str, int] | None) -> None:
    assert client_share_fields(0, 0, first_token, server) == {}
