"""Which BFCL single-turn samples a run issues.

Default (MLPerf Inference v6.1 Edge Agentic gate, ``offline_bfcl_v4_single_turn.yaml`` of the
mlcommons/endpoints reference): per-*category* sampling rates applied to every subset of the
category — non_live 62 %, live 10 %, hallucination 10 % — with ``subset_floor: 25``: a subset
whose total size is <= 25 is taken whole; otherwise it gets ``max(1, int(total * pct / 100))``.
There is no remaining share: the three percentages are per-subset rates, not shares of a total.
On bfcl-eval 2026.3.23 this gives 995 samples:

    simple_python 248, simple_java 62, simple_javascript 31, multiple 124, parallel 124,
    parallel_multiple 124 (non_live 713); live_simple 25, live_multiple 105, live_parallel 16,
    live_parallel_multiple 24 (live 170); irrelevance 24, live_irrelevance 88 (hallucination 112).

Which samples, in what order (the default, ``selection="head"``, is MLPerf's): the first n of
each subset in file order (``group.head(n)``), subsets in lexicographic order — the order
``DataFrame.groupby("subset")`` yields them — and issued in that order (mlcommons/endpoints
ea332753, ``dataset_manager/predefined/bfcl_v4/__init__.py`` 352-366; accuracy datasets are
issued by ``SequentialSampleOrder``, ``load_generator/sample_order.py`` 95-110). That starts
with ``irrelevance`` and ends with ``simple_python``.

``selection="random"`` (not MLPerf; ``--sample-selection random``) draws the n with a seeded RNG
per subset (``random.Random(f"{seed}:{subset}")``, seed 42), keeps file order within a subset
and issues the subsets in BFCL's category order (non_live, live, hallucination) — the selection
of our runs before 2026-12-03, which shares 501 of its 995 ids with MLPerf's.

``n`` (and ``quick``, which is ``n=50``) allocate stratified over the subsets present: each subset
first gets a floor of ``min(25, available, n // subsets)``, the rest is split in proportion to what
each subset has beyond its floor (largest-remainder rounding, ties in subset order), so the total is
exactly ``n`` (or everything, when ``n`` exceeds the data).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Literal

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge.data import (
    SINGLE_TURN_SUBSETS,
    SUBSET_CATEGORY,
    BfclSample,
    load_single_turn,
)

DEFAULT_CATEGORY_PCT: dict[str, float] = {"non_live": 62, "live": 10, "hallucination": 10}
SUBSET_FLOOR = 25
DEFAULT_SEED = 42
QUICK_SIZE = 50
Selection = Literal["random", "head"]


def mlperf_counts(
    available: Mapping[str, int],
    category_pct: Mapping[str, float] | None = None,
    floor: int = SUBSET_FLOOR,
) -> dict[str, int]:
    """MLPerf's per-subset counts: the whole subset if ``total <= floor``, else
    ``max(1, int(total * pct / 100))`` with the subset's category rate."""
    pct_by_category = dict(DEFAULT_CATEGORY_PCT if category_pct is None else category_pct)
    counts: dict[str, int] = {}
    for subset, total in available.items():
        pct = pct_by_category.get(SUBSET_CATEGORY.get(subset, ""), 100)
        if not 0 < pct <= 100:
            raise ConfigError(f"sampling percentage must be in (0, 100], got {pct}")
        if total <= floor:
            counts[subset] = total
        else:
            counts[subset] = max(1, int(total * pct / 100))
    return counts


def stratified_counts(
    available: Mapping[str, int], n: int, floor: int = SUBSET_FLOOR
) -> dict[str, int]:
    """Exactly ``n`` samples over the subsets (or all of them): floor, then proportional."""
    if n < 1:
        raise ConfigError(f"the number of samples must be at least 1, got {n}")
    subsets = [s for s, a in available.items() if a > 0]
    if n >= sum(available[s] for s in subsets):
        return {s: available[s] for s in available}
    floor_each = min(floor, n // len(subsets)) if subsets else 0
    counts = {s: min(floor_each, available[s]) for s in available}
    rest = n - sum(counts.values())
    room = {s: available[s] - counts[s] for s in subsets}
    total_room = sum(room.values())
    if rest > 0 and total_room > 0:
        quotas = {s: rest * room[s] / total_room for s in subsets}
        extra = {s: int(quotas[s]) for s in subsets}
        leftover = rest - sum(extra.values())
        order = sorted(subsets, key=lambda s: (-(quotas[s] - extra[s]), subsets.index(s)))
        for s in order:
            if leftover <= 0:
                break
            if extra[s] < room[s]:
                extra[s] += 1
                leftover -= 1
        for s in subsets:
            counts[s] += extra[s]
    return counts


def plan_counts(
    available: Mapping[str, int], *, n: int | None = None, quick: bool = False
) -> dict[str, int]:
    """The per-subset counts for a run: MLPerf default, ``quick`` (50) or ``n``."""
    if n is not None:
        return stratified_counts(available, n)
    if quick:
        return stratified_counts(available, QUICK_SIZE)
    return mlperf_counts(available)


def pick_indices(
    total: int, k: int, *, subset: str, seed: int = DEFAULT_SEED, selection: Selection = "head"
) -> list[int]:
    """Indices (ascending) of the ``k`` samples taken from a subset of ``total``."""
    k = max(0, min(k, total))
    if selection == "head":
        return list(range(k))
    if selection != "random":
        raise ConfigError(f"unknown selection {selection!r}; use 'random' or 'head'")
    rng = random.Random(f"{seed}:{subset}")
    return sorted(rng.sample(range(total), k))


def group_by_subset(
    samples: Sequence[BfclSample], *, lexicographic: bool = True
) -> dict[str, list[BfclSample]]:
    """Samples grouped by subset (file order kept within a subset): subsets in lexicographic
    order (MLPerf's ``groupby``), or in BFCL's category order (unknown subsets last)."""
    groups: dict[str, list[BfclSample]] = {}
    for sample in samples:
        groups.setdefault(sample.subset, []).append(sample)
    if lexicographic:
        return dict(sorted(groups.items()))
    rank = {s: i for i, s in enumerate(SINGLE_TURN_SUBSETS)}
    return dict(sorted(groups.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def sample_single_turn(
    samples: Sequence[BfclSample] | None = None,
    *,
    n: int | None = None,
    quick: bool = False,
    seed: int = DEFAULT_SEED,
    selection: Selection = "head",
) -> list[BfclSample]:
    """The issued samples, in issue order: deterministic for (data, n/quick, seed, selection)."""
    groups = group_by_subset(load_single_turn() if samples is None else samples,
                             lexicographic=selection == "head")
    counts = plan_counts({s: len(g) for s, g in groups.items()}, n=n, quick=quick)
    chosen: list[BfclSample] = []
    for subset, group in groups.items():
        idx = pick_indices(
            len(group), counts[subset], subset=subset, seed=seed, selection=selection
        )
        chosen.extend(group[i] for i in idx)
    return chosen
