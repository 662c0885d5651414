"""Load options are checked before anything is sent, each with a message that names it."""

from __future__ import annotations

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.options.load import LoadSpec


@pytest.mark.parametrize(("spec", "needle"), [
    (LoadSpec(scenario="server", rate=-1), "--rate -1: must be > 0"),
    (LoadSpec(scenario="server", rate=0), "--rate 0: must be > 0"),
    (LoadSpec(scenario="server", rate=float("nan")), "--rate nan"),
    (LoadSpec(rate=2.0), "--rate applies to --scenario server only"),
    (LoadSpec(scenario="concurrency", concurrency=0), "--concurrency 0: must be ≥ 1"),
    (LoadSpec(scenario="multi-stream"), "needs --concurrency N"),
    (LoadSpec(scenario="server"), "needs --rate"),
    (LoadSpec(duration_s=float("inf")), "--duration inf"),
    (LoadSpec(grace_s=-1), "--grace -1"),
    (LoadSpec(sessions=0), "--sessions 0"),
])
def test_bad_load_options_are_refused_with_their_name(spec: LoadSpec, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(")):
        spec.check()


def test_good_options_pass() -> None:
    assert LoadSpec(scenario="server", rate=0.5).check().rate == 0.5
    assert LoadSpec(scenario="concurrency", concurrency=4, duration_s=1).check().streams == 4
