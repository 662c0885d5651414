"""Capacity search (#21 item 4): bracketing then bisection finds the known capacity."""

from __future__ import annotations

import pytest

from agentic_bench.capacity_search import SearchSpec, bisect_capacity, parse_search
from agentic_bench.errors import ConfigError


def probe(capacity: float, seen: list[float]):  # type: ignore[no-untyped-def]
    def meets(v: float) -> bool:
        seen.append(v)
        return v <= capacity
    return meets


@pytest.mark.parametrize("true_cap", [1, 2, 5, 11, 37, 63, 64])
def test_concurrency_capacity_is_found_exactly(true_cap: int) -> None:
    seen: list[float] = []
    assert bisect_capacity(SearchSpec("concurrency", 1, 64), probe(true_cap, seen)) == true_cap
    assert len(seen) <= 14 and len(set(seen)) == len(seen)  # no point probed twice


def test_below_and_above_the_range() -> None:
    seen: list[float] = []
    assert bisect_capacity(SearchSpec("concurrency", 4, 64), probe(2, seen)) is None
    assert seen == [4]  # LO fails: nothing else is run
    assert bisect_capacity(SearchSpec("concurrency", 1, 10), probe(99, [])) == 10


def test_rate_to_the_stated_resolution() -> None:
    found = bisect_capacity(SearchSpec("rate", 0.5, 100.0, resolution=0.25), probe(7.3, []))
    assert found is not None and 7.3 - 0.25 <= found <= 7.3


@pytest.mark.parametrize("text", ["concurrency=8", "concurrency=0:4", "concurrency=4:2",
                                  "concurrency=1.5:4", "qps=1:2", "rate=a:b"])
def test_bad_search_specs_are_refused(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_search(text, 0.95, None, 1)


def test_search_options_checked() -> None:
    with pytest.raises(ConfigError):
        parse_search("rate=1:4", 1.5, None, 1)
    with pytest.raises(ConfigError):
        parse_search("rate=1:4", 0.9, None, 0)
    spec = parse_search("rate=2:8", 0.9, None, 3)
    assert spec.step == pytest.approx(0.1) and not spec.integer
