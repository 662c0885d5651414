"""#33: a metric kept as an exact value→count map at 1 µs describes exactly what the records'
values rounded to the µs describe (count, mean, min, percentiles, max), in any order."""

from __future__ import annotations

import random

import pytest

from agentic_bench.metrics.distribution import DENSE_US, MICROSECOND_MS, Distribution
from agentic_bench.metrics.percentiles import describe


def at_us(values: list[float]) -> list[float]:
    return [round(v * 1000) / 1000 for v in values]


@pytest.mark.parametrize("seed", range(20))
def test_describes_the_values_rounded_to_the_us(seed: int) -> None:
    rng = random.Random(seed)
    values = [rng.choice([rng.random() * 10, rng.random() * 5000, -rng.random(),
                          rng.gauss(40, 3)]) for _ in range(rng.randint(1, 400))]
    dist = Distribution(MICROSECOND_MS)
    dist.add_all(values)
    assert dist.describe() == describe(at_us(values))
    rng.shuffle(values)
    again = Distribution()
    again.add_all(values)
    assert again.describe() == dist.describe()


def test_exact_resolution_keeps_each_value() -> None:
    values = [3, 1, 2, 2, 0.125, 7.5]
    dist = Distribution(None)
    dist.add_all(values)
    assert dist.describe() == describe(values)
    assert dist.total() == sum(values)


def test_memory_follows_the_range_not_the_count() -> None:
    dist = Distribution()
    for i in range(100_000):
        dist.add(1.0 + (i % 500) / 1000)  # 500 distinct µs values, a hundred thousand times
    assert dist.count == 100_000 and dist.distinct() == 500
    dist.add(DENSE_US / 1000 * 3)  # a slow value beyond the array: one dict entry
    assert dist.distinct() == 501 and dist.describe()["max"] == DENSE_US / 1000 * 3


def test_counts_and_repeats() -> None:
    dist = Distribution()
    dist.add(2.0, 3)
    dist.add(1.0)
    assert dist.describe() == describe([1.0, 2.0, 2.0, 2.0])
    assert dist.percentile(50) == 2.0
    assert Distribution().describe() == describe([])
    with pytest.raises(ValueError):
        Distribution(0.01)


@pytest.mark.parametrize("values", [[0.0] * 15, [2.5] * 3, [1e9] * 4, [-0.5] * 2,
                                    [0.0, 0.0, 0.001]])
def test_a_list_of_one_repeated_value_counts_as_the_values_one_by_one(
        values: list[float]) -> None:
    """add_all takes such a list (a reply read in one piece: gaps of 0) as one add of n."""
    whole, one_by_one = Distribution(), Distribution()
    whole.add_all(values)
    for value in values:
        one_by_one.add(value)
    assert whole.counts() == one_by_one.counts() and whole.count == len(values)
    assert whole.describe() == describe(at_us(values))
