"""Does the across-runs A/B interval hold the truth 95 % of the time with few runs? (issue #44.)

Same-distribution A/A pairs of repeated runs are drawn (each run's figure log-normal around 100,
between-run spread ``sd_a`` / ``sd_b`` on the log scale); the share of pairs whose 95 % interval
of B / A holds 1 is the coverage. Two intervals are measured side by side:

* compare's: Welch t on log values (agentic_bench/metrics/ab_repeats.py), and the pooled t when
  one side is a single run;
* for contrast, a percentile bootstrap over the runs (1,000 resamples of each side's runs):
  with 3 runs a side it cannot be wider than three values allow, and it covers far less.

No network, no simulator: the statistic alone, seeded. The record goes to ``--results``
(default benchmarks/results/intervals/repeat_verdicts.json). Reproduce:
``.venv/bin/python benchmarks/repeat_verdict_calibration.py --pairs 2000`` (about 30 s of CPU)
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

CASES = ((3, 3, 0.03, 0.03), (3, 3, 0.01, 0.05), (5, 5, 0.03, 0.03), (10, 10, 0.03, 0.03),
         (2, 2, 0.03, 0.03), (1, 3, 0.03, 0.03), (1, 5, 0.03, 0.03))


def _bootstrap_holds(a: list[float], b: list[float], rng: random.Random) -> bool:
    ratios = sorted(sum(rng.choices(b, k=len(b))) / len(b) / (sum(rng.choices(a, k=len(a)))
                                                              / len(a)) for _ in range(1000))
    return ratios[24] <= 1.0 <= ratios[974]


def main() -> None:
    from agentic_bench.metrics.ab_repeats import log_ratio_interval

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--results", type=Path, default=Path(__file__).parent / "results"
                        / "intervals" / "repeat_verdicts.json")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows: list[dict[str, Any]] = []
    print(f"{'runs A vs B':<12}{'sd A':>6}{'sd B':>6}{'Welch t on logs':>17}{'bootstrap':>11}")
    for n_a, n_b, sd_a, sd_b in CASES:
        held = boot = 0
        for _ in range(args.pairs):
            a = [100 * rng.lognormvariate(0, sd_a) for _ in range(n_a)]
            b = [100 * rng.lognormvariate(0, sd_b) for _ in range(n_b)]
            _, lo, hi, _, _ = log_ratio_interval(a, b)
            held += lo <= 1.0 <= hi
            boot += n_a > 1 and _bootstrap_holds(a, b, rng)
        shown = f"{boot / args.pairs:.3f}" if n_a > 1 else "-"
        print(f"{f'{n_a} vs {n_b}':<12}{sd_a:>6.2f}{sd_b:>6.2f}{held / args.pairs:>17.3f}"
              f"{shown:>11}")
        rows.append({"runs_a": n_a, "runs_b": n_b, "log_sd_a": sd_a, "log_sd_b": sd_b,
                     "welch_log_coverage": round(held / args.pairs, 3),
                     "bootstrap_over_runs_coverage": round(boot / args.pairs, 3)
                     if n_a > 1 else None})
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(
        {"what": "coverage of the 95 % interval of B / A across repeated runs, A/A pairs",
         "command": f"benchmarks/repeat_verdict_calibration.py --pairs {args.pairs} "
                    f"--seed {args.seed}",
         "pairs": args.pairs, "seed": args.seed, "cases": rows}, indent=2) + "\n")
    print(f"wrote {args.results}")


if __name__ == "__main__":
    main()
