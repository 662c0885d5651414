"""Capacity search (#21 item 4): bracketing then bisection finds the known capacity."""

from __future__ import annotations

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.load import SearchSpec
from agentic_bench.options.parser import resolve
from agentic_bench.run.search import bisect_capacity


def probe(capacity: float, seen: list[float]):  # type: ignore[no-untyped-def]
    def meets(v: float) -> bool:
        seen.append(v)
        return v <= capacity
    return meets


@pytest.mark.parametrize("true_cap", [1, 2, 5, 11, 37, 63, 64])
def test_concurrency_capacity_is_found_exactly(true_cap: int) -> None:
    seen: list[float] = []
    found = bisect_capacity(SearchSpec("concurrency", 1, 64), probe(true_cap, seen))
    assert found.capacity == true_cap
    assert found.answer == ("at least 64" if true_cap == 64 else f"capacity {true_cap}")
    assert len(seen) <= 14 and len(set(seen)) == len(seen)  # no point probed twice


def test_below_and_above_the_range() -> None:
    seen: list[float] = []
    assert bisect_capacity(SearchSpec("concurrency", 4, 64), probe(2, seen)).capacity is None
    assert seen == [4]  # LO fails: nothing else is run
    assert bisect_capacity(SearchSpec("concurrency", 1, 10), probe(99, [])).capacity == 10


def test_rate_to_the_stated_resolution() -> None:
    found = bisect_capacity(SearchSpec("rate", 0.5, 100.0, resolution=0.25),
                            probe(7.3, [])).capacity
    assert found is not None and 7.3 - 0.25 <= found <= 7.3


@pytest.mark.parametrize("text", ["concurrency=8", "concurrency=0:4", "concurrency=4:2",
                                  "concurrency=1.5:4", "qps=1:2", "rate=a:b"])
def test_bad_search_specs_are_refused(text: str) -> None:
    with pytest.raises(ConfigError):
        SearchSpec.parse(text)
    with pytest.raises(ConfigError, match="--search: --search"):  # as the options say it
        resolve(CommonOptions, {"search": text})


def test_search_options_checked() -> None:
    with pytest.raises(ConfigError, match=r"--search-fraction: 1\.5: expected a fraction"):
        resolve(CommonOptions, {"search": "rate=1:4", "search_fraction": 1.5})
    with pytest.raises(ConfigError, match="--search-repeats: 0: must be ≥ 1"):
        resolve(CommonOptions, {"search": "rate=1:4", "search_repeats": 0})
    options = resolve(CommonOptions, {"search": "rate=2:8", "search_fraction": 0.9,
                                      "search_repeats": 3})
    assert options.search == SearchSpec("rate", 2.0, 8.0)  # held parsed
    spec = options.search_spec
    assert spec is not None and (spec.fraction, spec.repeats) == (0.9, 3)
    assert spec.step == pytest.approx(0.1) and not spec.integer
