"""Re-score a finished agentic-edge run's BFCL replies with today's scoring rules.

Each sample record keeps the exact text MLPerf's scorer saw (``scored_text``); this scores it
again with ``reference_scoring.score_reply`` and counts the verdicts that change — how a scoring
rule changed since the run (for #31: the reference's JSON round trip of calls found in text)
moves a committed result. Prints one JSON line.

Reproduce: ``.venv/bin/python benchmarks/edge_rescore_text_calls.py
benchmarks/results/agentic-edge/mlperf-full`` (2026-12-05: 995 samples, 0 changed).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agentic_bench.records.stream import read_records, run_records_path
from agentic_bench.tasks.agentic_edge import load_subset
from agentic_bench.tasks.agentic_edge.reference_scoring import score_reply


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", type=Path)
    run = ap.parse_args().run
    records = read_records(run_records_path(run)).records
    samples = [r for r in records if r.get("type") == "sample"
               and r.get("category") != "multi_turn" and "scored_text" in r]
    subsets: dict[str, dict[str, object]] = {}
    changed, cut = [], 0
    for r in samples:
        if r.get("scored_text_chars", 0) > len(r["scored_text"]):
            cut += 1  # the record kept only the start of a long reply
            continue
        if r["subset"] not in subsets:
            subsets[r["subset"]] = {s.id: s for s in load_subset(r["subset"])}
        verdict, _ = score_reply(subsets[r["subset"]][r["sample_id"]], r["scored_text"])
        if verdict.valid != r["bfcl_valid"]:
            changed.append({"sample_id": r["sample_id"], "was": r["bfcl_valid"],
                            "now": verdict.valid, "error": verdict.error})
    print(json.dumps({"run": str(run), "samples": len(samples), "text_cut": cut,
                      "changed": len(changed), "examples": changed[:10]}))


if __name__ == "__main__":
    main()
