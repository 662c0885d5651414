"""#47 item 5: docs/scored-load.md's table is the committed sweep's own figures
(benchmarks/results/scored-load/prompt/sweep.json)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_scored_load_table_is_the_committed_sweep() -> None:
    doc = (ROOT / "docs" / "scored-load.md").read_text(encoding="utf-8")
    sweep = json.loads((ROOT / "benchmarks" / "results" / "scored-load" / "prompt" /
                        "sweep.json").read_text(encoding="utf-8"))
    for p in sweep["points"]:
        lo, hi = p["accuracy_interval"]
        glo, ghi = p["task_goodput_interval"]
        causes = ", ".join(f"{k} {v}" for k, v in p["failure_causes"].items())
        row = (f"| {p['concurrency']:g} | {p['sessions_per_s']:.2f} | "
               f"{p['goodput_sessions_per_s']:.2f} | {p['accuracy'] * 100:.1f}% "
               f"[{lo * 100:.1f}, {hi * 100:.1f}] | {p['pass_hat_k'] * 100:.1f}% | "
               f"{p['correct_within_slo']}/{p['tasks_scored']} | "
               f"{p['task_goodput_per_s']:.3f} [{glo:.3f}, {ghi:.3f}] | "
               f"{p['request_p99_ms']:.0f} | {causes} |"
               + (" outside |" if p["accuracy_outside"] else " |"))
        assert row in doc, row
    native = json.loads((ROOT / "benchmarks" / "results" / "scored-load" / "native" /
                         "sweep.json").read_text(encoding="utf-8"))
    low, high = native["points"][0], native["points"][-1]
    assert f"{low['task_goodput_per_s']:.3f} to {high['task_goodput_per_s']:.3f}" in doc
    assert f"timeout {high['failure_causes']['timeout']}" in doc
