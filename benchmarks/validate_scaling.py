"""Does validating a malformed trace stay linear in its size? (issue #42 item 14)

Writes traces of 1, 2 and 4 MB with a problem on every row into a temporary folder and times
what ``agentic-bench validate FILE`` runs on each, in this process (no start-up counted):

- ``weka``: one pretty-printed Weka trace (``.json``, ``indent=2``) whose rows each hold 200
  ``hash_ids`` (a 12,800-token input at block size 64) and a negative ``api_time``: every
  problem is placed at the line of its field (:func:`agentic_bench.trace.weka.scan`);
- ``native``: our JSONL, one session per line, each with an unknown ``schema_version``
  (:func:`agentic_bench.trace.validate_file`).

Each file is timed ``--repeat`` times (default 1) and the best is printed: CPU seconds of this
process (what a busy shared machine changes least) and wall seconds, with problems found and MB
per CPU second. Nothing is compared against a threshold: the figures are read as a table.

Reproduce: ``.venv/bin/python benchmarks/validate_scaling.py [--sizes 1 2 4] [--repeat N]``;
the code before the fix: ``git worktree add /tmp/wt13 2ae0e28 && cd /tmp/wt13 &&
PYTHONPATH=/tmp/wt13 /work/main/.venv/bin/python /work/main/benchmarks/validate_scaling.py``.

Recorded on 2026-12-06 (a shared 2-core VM, CPython 3.11; CPU seconds, best of 3 but one run for
the Weka files at 2ae0e28; ``agentic_bench`` at 2ae0e28 and with the fix):

    format  MB  rows  problems  2ae0e28 cpu s  fixed cpu s
    weka     1   378       378         15.907        0.023
    weka     2   757       757         62.855        0.046
    weka     4  1515      1515        251.232        0.099
    native   1   433       433          0.009        0.009
    native   2   866       866          0.018        0.018
    native   4  1732      1732          0.036        0.035

Before the fix the Weka time grew 4x per doubling (quadratic; wall 17.8 s at 1 MB and 67.1 s
at 2 MB in earlier runs on a quieter machine: the issue's 18 s and 68 s); after it, 2x (linear,
about 40 MB per CPU second).

Before the fix each Weka problem's line was found by walking the document from its first byte
(``json_lines.line_of``: a pass per problem, quadratic in the size); now one pass places every
problem (``json_lines.lines_of``). The native reader was already linear (each problem carries
its line as the file is read).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import agentic_bench
from agentic_bench.trace import validate_file
from agentic_bench.trace.weka import scan

ROOT = Path(__file__).resolve().parents[1]
MB = 1 << 20


def weka_trace(path: Path, size: int) -> int:
    """A pretty-printed Weka trace of about ``size`` bytes, a problem on every row; its rows."""
    row = {"t": 0.0, "type": "s", "model": "m", "in": 12800, "out": 40,
           "hash_ids": list(range(1, 201)), "input_types": ["text"],
           "output_types": ["text"], "stop": "end_turn", "api_time": -1.0}
    one, two = ({"requests": [row] * n} for n in (1, 2))
    per_row = len(json.dumps(two, indent=2)) - len(json.dumps(one, indent=2))
    rows = max(1, size // per_row)
    trace = {"id": "scaling", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
             "requests": [dict(row, t=float(i)) for i in range(rows)]}
    path.write_text(json.dumps(trace, indent=2) + "\n", encoding="utf-8")
    return rows


def native_trace(path: Path, size: int) -> int:
    """Our JSONL trace of about ``size`` bytes, a problem (unknown schema_version) per line."""
    sample = json.loads((ROOT / "traces" / "sample.jsonl").read_text().splitlines()[0])
    rows = 0
    written = 0
    with open(path, "w", encoding="utf-8") as fh:
        while written < size:
            line = json.dumps({**sample, "schema_version": "0", "session_id": f"s{rows}"}) + "\n"
            fh.write(line)
            written += len(line)
            rows += 1
    return rows


def weka_problems(path: Path) -> int:
    return len(scan(path).problems)


def native_problems(path: Path) -> int:
    return len(validate_file(path).problems)


FORMATS: dict[str, tuple[str, Callable[[Path, int], int], Callable[[Path], int]]] = {
    "weka": ("trace.json", weka_trace, weka_problems),
    "native": ("trace.jsonl", native_trace, native_problems),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 2, 4], metavar="MB")
    parser.add_argument("--formats", nargs="+", choices=sorted(FORMATS), default=list(FORMATS))
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print(f"agentic_bench from {Path(agentic_bench.__file__).parent}", file=sys.stderr,
          flush=True)
    print(f"{'format':<8}{'MB':>6}{'rows':>7}{'problems':>10}{'cpu s':>10}{'wall s':>10}"
          f"{'MB/cpu s':>10}")
    with tempfile.TemporaryDirectory(prefix="validate-scaling-") as tmp:
        for fmt in args.formats:
            name, write, check = FORMATS[fmt]
            for mb in args.sizes:
                path = Path(tmp) / name
                rows = write(path, int(mb * MB))
                size_mb = path.stat().st_size / MB
                cpu = wall = float("inf")
                for _ in range(max(1, args.repeat)):
                    start, start_cpu = time.perf_counter(), time.process_time()
                    problems = check(path)
                    cpu = min(cpu, time.process_time() - start_cpu)
                    wall = min(wall, time.perf_counter() - start)
                print(f"{fmt:<8}{size_mb:>6.2f}{rows:>7}{problems:>10}{cpu:>10.3f}{wall:>10.3f}"
                      f"{size_mb / max(cpu, 1e-9):>10.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
