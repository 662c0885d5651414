"""pass@k and pass^k over repeated trials of the same tasks (``--trials K``).

Each task ran ``n`` trials, ``c`` of them scored correct. For ``k`` ≤ ``n``:

* **pass@k** — the chance that at least one of ``k`` trials drawn without replacement from the
  ``n`` is correct, the unbiased estimator of Chen et al. (2021, "Evaluating Large Language
  Models Trained on Code", eq. 1): ``1 − C(n − c, k) / C(n, k)``;
* **pass^k** — the chance that all ``k`` drawn trials are correct, τ-bench's form (Yao et al.
  2024): ``C(c, k) / C(n, k)``.

The run's figure is the mean over tasks. Its 95 % interval is a percentile bootstrap over
**tasks** (the tasks are the sample; a task's trials are not independent of each other):
:data:`RESAMPLES` seeded resamples of the tasks with replacement, the mean recomputed each
time. One task, or all tasks alike, gives a zero-width interval: the bootstrap has nothing to
vary, which says the run is too small to tell, not that the figure is exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb
from typing import Any

RESAMPLES = 2000
SEED = 20240617  # the bootstrap's generator: a folder gives the same interval every time
CONFIDENCE = 0.95


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al.'s unbiased pass@k for one task: ``n`` trials, ``c`` correct."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 < k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """τ-bench's pass^k for one task: the chance that ``k`` of its ``n`` trials, drawn
    without replacement, are all correct (``c`` correct)."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass^k needs 0 < k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    return comb(c, k) / comb(n, k)


def bootstrap_mean_interval(values: Sequence[float]) -> list[float] | None:
    """The percentile-bootstrap 95 % interval of the mean of ``values`` (one per task),
    seeded; None without values."""
    if not values:
        return None
    import numpy as np

    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(SEED)
    means = data[rng.integers(0, len(data), size=(RESAMPLES, len(data)))].mean(axis=1)
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return [round(float(low), 4), round(float(high), 4)]


def pass_k_block(trials_by_task: Mapping[str, Sequence[bool]]) -> dict[str, Any] | None:
    """The ``pass_k`` block: for each k from 1 to the fewest trials any task had, pass@k and
    pass^k over tasks with their bootstrap intervals, and each task's ``n``, ``c`` and its
    pass@k and pass^k at that k."""
    tasks = {task: list(v) for task, v in trials_by_task.items() if v}
    if not tasks:
        return None
    n_min = min(len(v) for v in tasks.values())
    overall: dict[str, Any] = {}
    for k in range(1, n_min + 1):
        at = [pass_at_k(len(v), sum(v), k) for v in tasks.values()]
        hat = [pass_hat_k(len(v), sum(v), k) for v in tasks.values()]
        overall[str(k)] = {"pass_at_k": round(sum(at) / len(at), 6),
                           "pass_at_k_interval": bootstrap_mean_interval(at),
                           "pass_hat_k": round(sum(hat) / len(hat), 6),
                           "pass_hat_k_interval": bootstrap_mean_interval(hat)}
    return {"tasks": len(tasks), "trials": n_min, "k": overall,
            "interval": "percentile bootstrap over tasks (95 %, seeded)",
            "per_task": {task: {"n": len(v), "c": sum(v),
                                "pass_at_k": round(pass_at_k(len(v), sum(v), n_min), 6),
                                "pass_hat_k": round(pass_hat_k(len(v), sum(v), n_min), 6)}
                         for task, v in sorted(tasks.items())}}


__all__ = ["bootstrap_mean_interval", "pass_at_k", "pass_hat_k", "pass_k_block"]
