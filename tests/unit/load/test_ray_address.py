"""--ray-address is checked before anything is sent: a malformed address or one where no Ray
head answers is an exit-2 error naming the address (credentials removed), never a traceback
(#30 item 14). ``--workers-per-node N`` pins the actors to the cluster's nodes in turn, never
more than N on one, and refuses a cluster without room for them (#46)."""

from __future__ import annotations

import socket

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.load.ray_executor import check_ray_address, nodes_for_actors


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_local_and_auto_need_no_listener() -> None:
    check_ray_address("local")
    check_ray_address("auto")


def test_a_listening_head_passes() -> None:
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        check_ray_address(f"127.0.0.1:{srv.getsockname()[1]}")
        check_ray_address(f"ray://127.0.0.1:{srv.getsockname()[1]}")


def test_nothing_listening_is_a_clear_error() -> None:
    port = _closed_port()
    with pytest.raises(ConfigError, match=rf"--ray-address 127.0.0.1:{port}: no Ray head "
                                          r"answers there .*ray start --head"):
        check_ray_address(f"127.0.0.1:{port}")


def test_credentials_never_appear_in_the_message() -> None:
    port = _closed_port()
    with pytest.raises(ConfigError) as err:
        check_ray_address(f"ray://admin:hunter2@127.0.0.1:{port}")
    assert "hunter2" not in str(err.value) and f"ray://127.0.0.1:{port}" in str(err.value)


@pytest.mark.parametrize("bad", ["head-node", "10.0.0.1:port", ":6379"])
def test_a_malformed_address_says_what_was_expected(bad: str) -> None:
    with pytest.raises(ConfigError, match="expected HOST:PORT, ray://HOST:PORT"):
        check_ray_address(bad)


def test_workers_per_node_puts_actors_on_the_nodes_in_turn() -> None:
    placed = nodes_for_actors(["a", "b", "c"], 7, per_node=3)
    assert placed == ["a", "b", "c", "a", "b", "c", "a"]
    assert max(placed.count(n) for n in "abc") <= 3


def test_workers_per_node_refuses_more_workers_than_the_nodes_hold() -> None:
    with pytest.raises(ConfigError, match=r"--workers 5 --workers-per-node 2: .* 2 node\(s\) "
                                          r"with a CPU, room for 4 workers"):
        nodes_for_actors(["a", "b"], 5, per_node=2)
