"""Write the recorded digest of MLPerf E2E-RAG's prompt texts (hashes and placeholder names,
never the text) that tests/unit/rag_e2e/test_reference_prompts.py checks in CI.

Usage, from a mirror or clone of mlcommons/inference::

    mkdir -p /tmp/ref && git -C INFERENCE archive b66003e1 e2e-rag | tar -x -C /tmp/ref
    .venv/bin/python scripts/record_reference_prompts_digest.py /tmp/ref \\
        --commit "$(git -C INFERENCE rev-parse b66003e1)"

The output defaults to tests/data/mlperf_reference_prompts_digest.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agentic_bench.tasks.rag_e2e.reference_prompts_digest import prompts_digest

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / \
    "mlperf_reference_prompts_digest.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of mlcommons/inference (or its "
                        "e2e-rag/) at --commit")
    parser.add_argument("--commit", required=True, help="the full commit id it was taken at")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    record = {
        "reference": "mlcommons/inference e2e-rag/",
        "commit": args.commit,
        "reader": "agentic_bench/tasks/rag_e2e/reference_prompts.py read_reference_prompts",
        "produced_by": "scripts/record_reference_prompts_digest.py",
        "contents": "hashes and placeholder names only; the reference's text is not stored",
        **prompts_digest(args.checkout),
    }
    args.out.write_text(json.dumps(record, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
