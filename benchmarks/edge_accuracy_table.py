"""Markdown table of agentic-edge accuracy runs, one column per run directory.

Reads each run's ``records.jsonl`` (so an interrupted run shows what it has so far) with the
same scoring code as ``summary.json``, plus the run's wall time and completeness from
``summary.json`` when present. Used for the results in ``benchmarks/results/`` and
``datasets/bfcl-v4.md``:

    .venv/bin/python benchmarks/edge_accuracy_table.py results/edge-full-native \\
        results/edge-full-prompt
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentic_bench.records.stream import read_records, run_records_path  # noqa: E402
from agentic_bench.tasks.agentic_edge.run_summary import edge_accuracy  # noqa: E402

SUBSETS = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
           "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
           "live_parallel_multiple", "irrelevance", "live_irrelevance")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def column(run: Path) -> dict[str, Any]:
    records = read_records(run_records_path(run)).records
    mode = next((r["config"].get("tool_mode") for r in records if r.get("type") == "run"
                 and "tool_mode" in r.get("config", {})), None)
    acc = edge_accuracy(records, mode or "?", None) or {}
    summary_path = run / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    return {"name": run.name, "acc": acc, "complete": summary.get("complete"),
            "duration_s": summary.get("duration_s"),
            "tool_mode": (summary.get("accuracy") or {}).get("tool_mode") or mode}


def table(runs: list[Path]) -> str:
    cols = [column(r) for r in runs]
    head = "| | " + " | ".join(c["name"] for c in cols) + " |"
    rows = [head, "|---" * (len(cols) + 1) + "|"]

    def row(label: str, cells: list[str]) -> None:
        rows.append(f"| {label} | " + " | ".join(cells) + " |")

    row("tool mode", [str(c["tool_mode"]) for c in cols])
    row("samples scored", [f"{c['acc'].get('total', 0)}" for c in cols])
    row("complete", [str(c["complete"]) for c in cols])
    row("wall time", ["–" if c["duration_s"] is None else f"{c['duration_s']:,.0f} s"
                      for c in cols])
    row("**overall**", [_pct(c["acc"].get("overall")) for c in cols])
    row("**normalized**", [_pct(c["acc"].get("normalized")) for c in cols])
    for cat in ("non_live", "live", "hallucination"):
        row(cat, [_pct(c["acc"].get("categories", {}).get(cat, {}).get("accuracy"))
                  for c in cols])
    for subset in SUBSETS:
        cells = []
        for c in cols:
            s = c["acc"].get("subsets", {}).get(subset)
            cells.append("–" if not s else f"{_pct(s['accuracy'])} ({s['correct']}/{s['total']})")
        row(subset, cells)
    return "\n".join(rows)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, help="run directories")
    print(table(ap.parse_args().runs))
