from __future__ import annotations

import itertools
import statistics

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.load import (
    LoadSpec,
    burst_arrivals,
    constant_arrivals,
    poisson_arrivals,
    trace_arrivals,
)


def gaps(ts: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(ts)]


@pytest.mark.parametrize("seed", [42, 1, 7])
def test_server_20_per_s_for_30_s(seed: int) -> None:
    ts = list(poisson_arrivals(20.0, seed, count=round(20.0 * 30)))
    assert len(ts) == 600
    assert ts == sorted(ts) and 0 <= ts[0] and ts[-1] < 30.0
    achieved = (len(ts) - 1) / (ts[-1] - ts[0])
    assert abs(achieved - 20.0) / 20.0 < 0.05
    g = gaps(ts)
    cv = statistics.pstdev(g) / statistics.fmean(g)
    assert 0.9 <= cv <= 1.1, cv


def test_same_seed_same_schedule_other_seed_differs() -> None:
    a = list(poisson_arrivals(5.0, 42, count=100))
    assert a == list(poisson_arrivals(5.0, 42, count=100))
    assert a != list(poisson_arrivals(5.0, 43, count=100))
    stream = poisson_arrivals(5.0, 42)
    first = [next(stream) for _ in range(50)]
    stream2 = poisson_arrivals(5.0, 42)
    assert first == [next(stream2) for _ in range(50)]


def test_unbounded_poisson_rate() -> None:
    stream = poisson_arrivals(50.0, 3)
    ts = [next(stream) for _ in range(20000)]
    assert abs(len(ts) / ts[-1] - 50.0) / 50.0 < 0.03


def test_other_generators() -> None:
    assert list(constant_arrivals(4.0, 3)) == [0.0, 0.25, 0.5]
    assert list(burst_arrivals(3)) == [0.0, 0.0, 0.0]
    assert list(trace_arrivals([0.0, 2.0], cycle_span_s=5.0, count=5)) == [0, 2, 5, 7, 10]
    with pytest.raises(ConfigError):
        next(poisson_arrivals(0, 1))


@pytest.mark.parametrize(("kwargs", "text"), [
    ({"scenario": "warp"}, "expected one of"),
    ({"scenario": "server"}, "needs --rate"),
    ({"scenario": "concurrency"}, "needs --concurrency"),
    ({"scenario": "server", "rate": 1.0, "concurrency": None}, None),
])
def test_spec_errors(kwargs: dict, text: str | None) -> None:
    """The rules between a load's options (its bounds are the options model's:
    tests/unit/load/test_spec_check.py)."""
    if text is None:
        assert LoadSpec(**kwargs).check().rate == 1.0
        return
    with pytest.raises(ConfigError, match=text):
        LoadSpec(**kwargs).check()
