"""Load options are checked before anything is sent, each with a message that names it: the
bounds by the options' field validators, the rules between them by the model's validator
(``LoadSpec.check``, called once there) — the path every command line and file takes."""

from __future__ import annotations

from typing import Any

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.parser import resolve


@pytest.mark.parametrize(("given", "needle"), [
    ({"scenario": "server", "rate": -1.0}, "--rate: -1: must be > 0"),
    ({"scenario": "server", "rate": 0.0}, "--rate: 0: must be > 0"),
    ({"scenario": "server", "rate": float("nan")}, "--rate: nan: must be > 0"),
    ({"rate": 2.0}, "--rate applies to --scenario server only"),
    ({"scenario": "concurrency", "concurrency": 0}, "--concurrency: 0: must be ≥ 1"),
    ({"scenario": "multi-stream"}, "needs --concurrency N"),
    ({"scenario": "server"}, "needs --rate"),
    ({"duration": float("inf")}, "--duration: inf: must be > 0"),
    ({"grace": -1.0}, "--grace: -1: must be ≥ 0"),
    ({"sessions": 0}, "--sessions: 0: must be ≥ 1"),
    ({"max_errors": 0}, "--max-errors: 0: must be ≥ 1"),
])
def test_bad_load_options_are_refused_with_their_name(given: dict[str, Any],
                                                      needle: str) -> None:
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(")):
        resolve(CommonOptions, given)


def test_good_options_pass() -> None:
    assert resolve(CommonOptions, {"scenario": "server", "rate": 0.5}).load.rate == 0.5
    options = resolve(CommonOptions, {"scenario": "concurrency", "concurrency": 4,
                                      "duration": 1.0})
    assert options.load.streams == 4 and options.load.duration_s == 1.0
